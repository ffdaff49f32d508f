package registry_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
)

// probe builds the pipeline of chain for chunks of dt, shape and the fill
// value fill (as zarr.json writes it) from the bundled codecs, and probes
// it with a bound of maxBytes.
func probe(t *testing.T, chain, dt string, shape []int, fill string, maxBytes int64) error {
	t.Helper()
	ctx := context.Background()
	exts, err := meta.ParseExtensions(json.RawMessage(chain))
	if err != nil {
		t.Fatal(err)
	}
	d, err := dtype.ParseV3(dt)
	if err != nil {
		t.Fatal(err)
	}
	fv, err := dtype.ParseFill(d, json.RawMessage(fill), false)
	if err != nil {
		t.Fatal(err)
	}
	p, err := codec.NewPipeline(ctx, exts, registry.Codecs(), codec.Spec{DataType: d, Shape: shape, FillValue: fv}, 0)
	if err != nil {
		return err
	}
	return p.Probe(ctx, maxBytes)
}

// The chains arrays are written with every day, lossy ones included,
// store and give back a chunk of fill values: the probe that cp and
// create run refuses none of them.
func TestProbeTakesWorkingChains(t *testing.T) {
	const le = `{"name":"bytes","configuration":{"endian":"little"}}`
	chains := []string{
		`[` + le + `]`,
		`[{"name":"bytes","configuration":{"endian":"big"}},{"name":"gzip","configuration":{"level":1}}]`,
		`[` + le + `,{"name":"zstd","configuration":{"level":0,"checksum":false}},{"name":"crc32c"}]`,
		`[` + le + `,{"name":"blosc","configuration":{"cname":"lz4","clevel":5,"shuffle":"shuffle","typesize":4}}]`,
		`[` + le + `,{"name":"numcodecs.zlib","configuration":{"level":1}},{"name":"numcodecs.adler32"}]`,
		`[` + le + `,{"name":"numcodecs.bz2","configuration":{"level":1}}]`,
		`[{"name":"transpose","configuration":{"order":[1,0]}},` + le + `]`,
		`[{"name":"numcodecs.bitround","configuration":{"keepbits":10}},` + le + `]`,
		`[{"name":"numcodecs.quantize","configuration":{"digits":3,"dtype":"<f4"}},` + le + `]`,
		`[{"name":"numcodecs.fixedscaleoffset","configuration":{"offset":0,"scale":10,"dtype":"<f4","astype":"<i4"}},` + le + `]`,
		`[{"name":"sharding_indexed","configuration":{"chunk_shape":[4,5],"codecs":[` + le + `,{"name":"zstd"}]}}]`,
	}
	for _, chain := range chains {
		for _, fill := range []string{`0`, `"NaN"`, `-1.5`} {
			err := probe(t, chain, "float32", []int{8, 10}, fill, 0)
			if err != nil && !(strings.Contains(chain, "fixedscaleoffset") && fill == `"NaN"`) {
				t.Errorf("%s, fill %s: %v", chain, fill, err)
			}
		}
	}
	// NaN scaled to integers is lost: reported as such
	err := probe(t, chains[len(chains)-2], "float32", []int{8, 10}, `"NaN"`, 0)
	if !errors.Is(err, codec.ErrFillChanged) {
		t.Errorf("fixedscaleoffset to integers with a NaN fill value: %v, want ErrFillChanged", err)
	}
	if err := probe(t, `[{"name":"vlen-utf8"},{"name":"zstd"}]`, "string", []int{8, 10}, `""`, 0); err != nil {
		t.Errorf("vlen-utf8: %v", err)
	}
	// a chunk larger than the bound is probed smaller: its chain still
	if err := probe(t, `[`+le+`,{"name":"zstd"}]`, "float64", []int{4096, 4096}, `0`, 1<<20); err != nil {
		t.Errorf("a chunk of 128 MiB probed within 1 MiB: %v", err)
	}
}

// A chain that cannot store the data type is refused, naming the codec
// and what is wrong with it, in the chain itself or nested in a shard's
// inner chain (which a shard of fill values never reaches), at any size.
func TestProbeRefusesBrokenChains(t *testing.T) {
	const noEndian = `{"name":"bytes"}`
	for _, c := range []struct {
		chain string
		shape []int
		max   int64
		want  []string
	}{
		{`[` + noEndian + `,{"name":"zstd"}]`, []int{8, 10}, 0, []string{"bytes", "endian"}},
		{`[` + noEndian + `,{"name":"zstd"}]`, []int{8192, 8192}, 1 << 20, []string{"bytes", "endian"}},
		{`[{"name":"sharding_indexed","configuration":{"chunk_shape":[4,5],"codecs":[` + noEndian + `]}}]`, []int{8, 10}, 0,
			[]string{"sharding_indexed", "bytes", "endian"}},
		{`[{"name":"sharding_indexed","configuration":{"chunk_shape":[512,512],"codecs":[` + noEndian + `]}}]`, []int{8192, 8192}, 4 << 20,
			[]string{"sharding_indexed", "bytes", "endian"}},
	} {
		err := probe(t, c.chain, "float32", c.shape, `0`, c.max)
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s on %v: %v: want an error naming %q", c.chain, c.shape, err, w)
				break
			}
		}
	}
}
