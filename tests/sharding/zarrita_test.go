package sharding

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/plugins/builtin"
	shardcodec "github.com/zarrgw/zarrgw/plugins/codecs/sharding"
	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
)

// nodeModules is where scripts/setup.sh installs zarrita.js.
const nodeModules = "../interop/js/node_modules"

// requireZarrita returns the node binary, failing (never skipping) when
// node or zarrita.js is missing.
func requireZarrita(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed (needed to run zarrita.js): install Node.js, then run `bash scripts/setup.sh` from the repository root")
	}
	for _, p := range []string{"zarrita/package.json", "@zarrita/storage/package.json"} {
		if _, err := os.Stat(filepath.Join(nodeModules, p)); err != nil {
			t.Fatalf("zarrita.js is not installed (%v): run `bash scripts/setup.sh` from the repository root", err)
		}
	}
	return node
}

// zarritaArray is one sharded array zarrgw writes for zarrita to read.
type zarritaArray struct {
	path                string
	dt                  string
	shape, shard, inner []int
	codecs              string
	morton              bool
}

var zarritaArrays = []zarritaArray{
	{"int32-gzip", "int32", []int{10, 13}, []int{4, 8}, []int{2, 4},
		`[{"name":"bytes","configuration":{"endian":"little"}},{"name":"gzip","configuration":{"level":5}}]`, false},
	{"uint16-crc-morton", "uint16", []int{9, 9}, []int{6, 6}, []int{3, 2},
		`[{"name":"bytes","configuration":{"endian":"big"}},{"name":"crc32c"}]`, true},
	{"float64-3d", "float64", []int{5, 4, 6}, []int{4, 4, 4}, []int{2, 2, 2},
		`[{"name":"bytes","configuration":{"endian":"little"}}]`, false},
}

// TestZarritaReadsShards writes sharded arrays with zarrgw (some inner
// chunks and a whole shard left at the fill value, Morton order for one)
// and checks that zarrita.js reads the same values.
func TestZarritaReadsShards(t *testing.T) {
	node := requireZarrita(t)
	dir := t.TempDir()
	s, err := fsstore.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := map[string]*ndarray.Array{}
	var paths []string
	for _, za := range zarritaArrays {
		want[za.path] = writeForZarrita(t, s, za)
		paths = append(paths, za.path)
	}
	got := runZarrita(t, node, dir, paths)
	for _, za := range zarritaArrays {
		r, ok := got[za.path]
		if !ok || r.Error != "" {
			t.Errorf("%s: zarrita: %+v", za.path, r)
			continue
		}
		ref := want[za.path]
		if !reflect.DeepEqual(r.Shape, za.shape) || !reflect.DeepEqual(r.Values, render(ref)) {
			t.Errorf("%s: zarrita read %v %v,\nzarrgw wrote %v %v", za.path, r.Shape, r.Values, za.shape, render(ref))
		}
		t.Logf("%s: zarrita read %d elements, %v ... %v", za.path, len(r.Values), r.Values[:3], r.Values[len(r.Values)-3:])
		sel := grid.All(za.shape)
		sel[0] = grid.Dim{Start: 1, Step: 1, Count: 2}
		if !reflect.DeepEqual(r.Slice, render(expect(ref, sel))) {
			t.Errorf("%s: zarrita read [1:3] as %v", za.path, r.Slice)
		}
	}
}

// writeForZarrita writes arange values to part of the array and returns
// what the whole array holds.
func writeForZarrita(t *testing.T, s *fsstore.Store, za zarritaArray) *ndarray.Array {
	t.Helper()
	dt := dtype.Named(za.dt)
	m := shardedMeta(dt, za.shape, za.shard, za.inner, za.codecs, "end")
	o := opts()
	if za.morton {
		reg := codec.NewRegistry(builtin.Codecs()...)
		reg.Register(shardcodec.RegistrationWith(shardcodec.Options{Order: shardcodec.Morton}))
		o.Codecs = reg
	}
	a, err := hierarchy.CreateArray(ctx, s, za.path, m, o)
	if err != nil {
		t.Fatal(err)
	}
	// Leave the last rows unwritten: a shard (or inner chunks) of fill.
	sel := grid.All(za.shape)
	sel[0].Count = min(za.shard[0]+za.inner[0], za.shape[0]-1)
	data := ndarray.New(dt, sel.Shape())
	for i := range data.Len() {
		putNumber(data, i, float64(i+1)/2)
	}
	if err := a.Write(ctx, sel, data); err != nil {
		t.Fatal(err)
	}
	ref := ndarray.Filled(dt, za.shape, m.FillValue)
	if err := ndarray.CopyRegion(ref, spans(sel), data, grid.WholeSpans(data.Shape)); err != nil {
		t.Fatal(err)
	}
	return ref
}

func putNumber(a *ndarray.Array, i int, v float64) {
	switch a.DType.Name {
	case "int32":
		binary.LittleEndian.PutUint32(a.Data[4*i:], uint32(int32(v*2)))
	case "uint16":
		binary.LittleEndian.PutUint16(a.Data[2*i:], uint16(v*2))
	case "float64":
		binary.LittleEndian.PutUint64(a.Data[8*i:], math.Float64bits(v))
	}
}

// render prints every element as zarrita's script does.
func render(a *ndarray.Array) []string {
	out := make([]string, a.Len())
	for i := range out {
		switch v := a.At(i).(type) {
		case int64:
			out[i] = strconv.FormatInt(v, 10)
		case uint64:
			out[i] = strconv.FormatUint(v, 10)
		case float64:
			out[i] = strconv.FormatFloat(v, 'g', -1, 64)
		}
	}
	return out
}

type zarritaResult struct {
	Path   string   `json:"path"`
	Shape  []int    `json:"shape"`
	Values []string `json:"values"`
	Slice  []string `json:"slice"`
	Error  string   `json:"error"`
}

func runZarrita(t *testing.T, node, dir string, paths []string) map[string]zarritaResult {
	t.Helper()
	// A generous bound so a hung client fails the test instead of the run.
	cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	abs, err := filepath.Abs(nodeModules)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(cctx, node, append([]string{"js/read_sharded.mjs", abs, dir}, paths...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("zarrita: %v\n%s", err, stderr.String())
	}
	var out struct{ Results []zarritaResult }
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("zarrita output: %v\n%s", err, stdout.String())
	}
	res := map[string]zarritaResult{}
	for _, r := range out.Results {
		res[r.Path] = r
	}
	return res
}
