package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
)

// v3Types are the types zarrita.js holds in typed arrays; float16 (in a
// Float16Array, which js/float16.mjs provides on node 20) is added where
// the cases are built.
var v3Types = []string{"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64", "bool"}

// foreignNode is what a read script reports about one node.
type foreignNode struct {
	Root         string            `json:"root"`
	Path         string            `json:"path"`
	Kind         string            `json:"kind"`
	Error        string            `json:"error"`
	Attrs        json.RawMessage   `json:"attrs"`
	Shape        []int             `json:"shape"`
	Chunks       []int             `json:"chunks"`
	DType        string            `json:"dtype"`
	FillValue    json.RawMessage   `json:"fill_value"`
	Values       []json.RawMessage `json:"values"`
	Order        string            `json:"order"`
	Compressor   json.RawMessage   `json:"compressor"`
	Filters      []json.RawMessage `json:"filters"`
	Members      []string          `json:"members"`
	Consolidated bool              `json:"consolidated"`
}

type readManifest struct {
	Root  string         `json:"root,omitempty"`
	Nodes []manifestNode `json:"nodes"`
}

type manifestNode struct {
	Root         string `json:"root,omitempty"` // overrides the manifest's root
	Path         string `json:"path"`
	Kind         string `json:"kind"`
	Consolidated bool   `json:"consolidated,omitempty"`
}

// v3Chain is a codec chain zarrgw writes for zarrita to read.
type v3Chain struct {
	name   string
	shape  []int
	chunks []int
	codecs func(dt dtype.DataType) []meta.Extension
	crc    bool // the chain ends with crc32c
}

var shape2, chunks2 = []int{7, 5}, []int{3, 2} // ragged in both dimensions
var shape3, chunks3 = []int{4, 3, 5}, []int{3, 2, 2}

func after(c ...meta.Extension) func(dt dtype.DataType) []meta.Extension {
	return func(dt dtype.DataType) []meta.Extension {
		return append([]meta.Extension{bytesCodec(dt, "little")}, c...)
	}
}

var zarritaReadChains = []v3Chain{
	{name: "bytes-little", codecs: after()},
	{name: "bytes-big", codecs: func(dt dtype.DataType) []meta.Extension { return []meta.Extension{bytesCodec(dt, "big")} }},
	{name: "gzip", codecs: after(ext("gzip", `{"level":5}`))},
	{name: "zstd", codecs: after(ext("zstd", `{"level":0,"checksum":false}`))},
	{name: "crc32c", codecs: after(ext("crc32c", "")), crc: true},
	{name: "transpose-2d", codecs: func(dt dtype.DataType) []meta.Extension {
		return []meta.Extension{ext("transpose", `{"order":[1,0]}`), bytesCodec(dt, "little")}
	}},
	{name: "transpose-3d", shape: shape3, chunks: chunks3, codecs: func(dt dtype.DataType) []meta.Extension {
		return []meta.Extension{ext("transpose", `{"order":[2,0,1]}`), bytesCodec(dt, "big")}
	}},
	{name: "zstd-crc32c", codecs: after(ext("zstd", `{"level":3,"checksum":true}`), ext("crc32c", "")), crc: true},
}

// zarritaReadCases are the v3 arrays zarrgw writes for zarrita.js.
func zarritaReadCases() []*outCase {
	var cases []*outCase
	for k, ch := range zarritaReadChains {
		shape, chunks := shape2, chunks2
		if ch.shape != nil {
			shape, chunks = ch.shape, ch.chunks
		}
		for _, name := range append(append([]string{}, v3Types...), "float16") {
			dt := dtype.Named(name)
			cases = append(cases, &outCase{
				path: "v3/" + ch.name + "/" + name, dt: dt, shape: shape, chunks: chunks,
				codecs: ch.codecs(dt), fill: scalarBytes(dt, fillValue(dt, k%2)), missing: true, checkCRC32C: ch.crc,
				attrs: fmt.Sprintf(`{"chain":%q,"type":%q}`, ch.name, name),
			})
		}
	}
	str := dtype.Named("string")
	strFill := scalarBytes(str, fillValue(str, 0))
	cases = append(cases,
		&outCase{path: "strings/vlen-utf8", dt: str, shape: []int{6, 4}, chunks: []int{4, 3}, fill: strFill, missing: true,
			codecs: []meta.Extension{ext("vlen-utf8", "")}},
		&outCase{path: "strings/vlen-utf8-zstd", dt: str, shape: []int{9}, chunks: []int{4}, fill: strFill, missing: true,
			codecs: []meta.Extension{ext("vlen-utf8", ""), ext("zstd", `{"level":1,"checksum":false}`)}},
		&outCase{path: "strings/transpose-vlen-utf8", dt: str, shape: []int{5, 3}, chunks: []int{2, 2}, fill: strFill, missing: true,
			codecs: []meta.Extension{ext("transpose", `{"order":[1,0]}`), ext("vlen-utf8", "")}},
		&outCase{path: "h/sub/arr", dt: dtype.Named("int32"), shape: []int{5, 6}, chunks: []int{5, 4},
			fill: scalarBytes(dtype.Named("int32"), int64(-1)), codecs: after(ext("zstd", `{"level":1,"checksum":false}`))(dtype.Named("int32")),
			attrs: `{"units":"m","scale":0.5,"names":["x","y"],"nested":{"deep":[1,{"k":null}]}}`},
	)
	return cases
}

var zarritaReadGroups = []groupCase{
	{Path: "h", Attrs: json.RawMessage(`{"title":"hierarchy","n":1,"nested":{"a":[1,2,3]}}`)},
	{Path: "h/sub", Attrs: json.RawMessage(`{"level":2,"unicode":"é漢🙂","empty":{}}`)},
}

// TestZarritaReadsZarrgw: zarrgw writes v3 arrays and groups, zarrita.js
// reads every element back.
func TestZarritaReadsZarrgw(t *testing.T) {
	t.Parallel()
	node := requireNode(t)
	ctx := context.Background()
	dir := t.TempDir()
	s, err := fsstore.New(dir, fsstore.WithDirSync(false))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	groupErrs := map[string]error{}
	for _, g := range zarritaReadGroups {
		_, groupErrs[g.Path] = hierarchy.CreateGroup(ctx, s, g.Path, meta.V3, g.Attrs)
	}
	cases := zarritaReadCases()
	man := readManifest{Root: dir}
	for _, g := range zarritaReadGroups {
		man.Nodes = append(man.Nodes, manifestNode{Path: g.Path, Kind: "group"})
	}
	for i, c := range cases {
		c.werr = c.write(ctx, s, dir, meta.V3, int64(1000+i))
		if c.werr == nil {
			man.Nodes = append(man.Nodes, manifestNode{Path: c.path, Kind: "array"})
		}
	}

	var out struct {
		Results []foreignNode `json:"results"`
	}
	runScript(t, node, "js/read.mjs", man, &out)
	got := map[string]foreignNode{}
	for _, r := range out.Results {
		got[r.Path] = r
	}

	tl := &tally{name: "zarrita-read"}
	for _, g := range zarritaReadGroups {
		tl.run(t, "group/"+g.Path, func() error {
			if err := groupErrs[g.Path]; err != nil {
				return fmt.Errorf("create: %w", err)
			}
			r, ok := got[g.Path]
			switch {
			case !ok:
				return fmt.Errorf("zarrita reported nothing for %s", g.Path)
			case r.Error != "":
				return fmt.Errorf("zarrita: %s", r.Error)
			case !jsonEqual(r.Attrs, g.Attrs):
				return fmt.Errorf("zarrita read attributes %s, want %s", r.Attrs, g.Attrs)
			}
			return nil
		})
	}
	for _, c := range cases {
		tl.run(t, c.path, func() error {
			if c.werr != nil {
				return c.werr
			}
			r, ok := got[c.path]
			if !ok {
				return fmt.Errorf("zarrita reported nothing for %s", c.path)
			}
			if r.Error != "" {
				return fmt.Errorf("zarrita: %s", r.Error)
			}
			if err := c.compareZarrita(r); err != nil {
				return err
			}
			if c.checkCRC32C {
				return verifyCRC32C(dir, c.path)
			}
			return nil
		})
	}
	tl.summary(t, "")
}

// compareZarrita checks what zarrita.js read against what zarrgw wrote.
func (c *outCase) compareZarrita(r foreignNode) error {
	switch {
	case !sameInts(r.Shape, c.shape):
		return fmt.Errorf("zarrita read shape %v, want %v", r.Shape, c.shape)
	case !sameInts(r.Chunks, c.chunks):
		return fmt.Errorf("zarrita read chunk shape %v, want %v", r.Chunks, c.chunks)
	case r.DType != c.dt.Name:
		return fmt.Errorf("zarrita read data type %q, want %q", r.DType, c.dt.Name)
	}
	attrs := c.attrs
	if attrs == "" {
		attrs = "{}"
	}
	if !jsonEqual(r.Attrs, []byte(attrs)) {
		return fmt.Errorf("zarrita read attributes %s, want %s", r.Attrs, attrs)
	}
	fill, err := parseForeign(c.dt, r.FillValue)
	if err != nil {
		return fmt.Errorf("fill value: %v", err)
	}
	if want := fillElement(c.dt, c.fill); !sameValue(want, fill) {
		return fmt.Errorf("zarrita read fill value %#v, want %#v", fill, want)
	}
	return compareElements(c.dt, c.written.Len(), c.written.At, r.Values)
}

// codecsJSON builds a v3 codec list from name/configuration pairs.
func codecsJSON(pairs ...string) json.RawMessage {
	var list []map[string]json.RawMessage
	for i := 0; i+1 < len(pairs); i += 2 {
		cfg := pairs[i+1]
		if cfg == "" {
			cfg = "{}"
		}
		list = append(list, map[string]json.RawMessage{"name": json.RawMessage(fmt.Sprintf("%q", pairs[i])), "configuration": json.RawMessage(cfg)})
	}
	b, err := json.Marshal(list)
	if err != nil {
		panic(err)
	}
	return b
}

func endianCfg(dt dtype.DataType, endian string) string {
	if !dt.HasEndian() {
		return "{}"
	}
	return fmt.Sprintf(`{"endian":%q}`, endian)
}

// zarritaWriteCases are the v3 arrays zarrita.js writes for zarrgw, with
// the codecs zarrita can encode (it cannot encode gzip, crc32c or
// vlen-utf8, nor write into sharded arrays).
func zarritaWriteCases() []foreignArray {
	var cases []foreignArray
	add := func(path string, dt dtype.DataType, shape, chunks []int, rows, variant int, codecs json.RawMessage) *foreignArray {
		fa := newForeign(path, dt.Name, dt, shape, chunks, fillValue(dt, variant), rows)
		fa.Codecs = codecs
		cases = append(cases, fa)
		return &cases[len(cases)-1]
	}
	for _, name := range v3Types {
		dt := dtype.Named(name)
		// Integer fill values stay small: zarrita passes them through
		// JavaScript numbers.
		variant := 0
		if dt.Kind == dtype.Float {
			variant = 1
		}
		add("v3/bytes-little/"+name, dt, shape2, chunks2, 5, variant, codecsJSON("bytes", endianCfg(dt, "little")))
		add("v3/bytes-big/"+name, dt, shape2, chunks2, 4, 0, codecsJSON("bytes", endianCfg(dt, "big")))
		add("v3/zstd/"+name, dt, shape2, chunks2, 7, variant, codecsJSON("bytes", endianCfg(dt, "little"), "zstd", `{"level":3,"checksum":false}`))
		add("v3/transpose-2d/"+name, dt, shape2, chunks2, 6, 0, codecsJSON("transpose", `{"order":[1,0]}`, "bytes", endianCfg(dt, "little")))
		add("v3/transpose-3d/"+name, dt, shape3, chunks3, 2, variant, codecsJSON("transpose", `{"order":[2,0,1]}`, "bytes", endianCfg(dt, "big")))
	}
	i16, i32, i64, u32 := dtype.Named("int16"), dtype.Named("int32"), dtype.Named("int64"), dtype.Named("uint32")
	f32, f64 := dtype.Named("float32"), dtype.Named("float64")
	add("v3/lz4/int16", i16, shape2, chunks2, 5, 0, codecsJSON("bytes", endianCfg(i16, "little"), "numcodecs.lz4", `{"acceleration":1}`))
	add("v3/lz4/float32", f32, shape2, chunks2, 5, 1, codecsJSON("bytes", endianCfg(f32, "little"), "numcodecs.lz4", `{"acceleration":1}`))
	add("v3/shuffle-zstd/int32", i32, shape2, chunks2, 5, 0, codecsJSON("bytes", endianCfg(i32, "little"), "numcodecs.shuffle", `{"elementsize":4}`, "zstd", `{"level":1,"checksum":false}`))
	add("v3/shuffle-zstd/float64", f64, shape2, chunks2, 7, 0, codecsJSON("bytes", endianCfg(f64, "little"), "numcodecs.shuffle", `{"elementsize":8}`, "zstd", `{"level":1,"checksum":false}`))
	add("v3/delta/int16", i16, shape2, chunks2, 7, 0, codecsJSON("numcodecs.delta", `{"dtype":"<i2"}`, "bytes", endianCfg(i16, "little")))
	add("v3/delta/int64", i64, shape2, chunks2, 5, 0, codecsJSON("numcodecs.delta", `{"dtype":"<i8"}`, "bytes", endianCfg(i64, "little")))
	add("v3/delta/uint32", u32, shape3, chunks3, 4, 0, codecsJSON("numcodecs.delta", `{"dtype":"<u4"}`, "bytes", endianCfg(u32, "little")))
	add("v3/separator-dot/int32", i32, shape2, chunks2, 5, 0, codecsJSON("bytes", endianCfg(i32, "little"))).Separator = "."
	b := add("v3/blosc/int32", i32, shape2, chunks2, 5, 0, codecsJSON("bytes", endianCfg(i32, "little"), "blosc", `{"cname":"lz4","clevel":5,"shuffle":"shuffle","typesize":4,"blocksize":0}`))
	b.needs = "blosc"
	b = add("v3/blosc/float64", f64, shape2, chunks2, 7, 1, codecsJSON("bytes", endianCfg(f64, "little"), "blosc", `{"cname":"zstd","clevel":3,"shuffle":"bitshuffle","typesize":8,"blocksize":0}`))
	b.needs = "blosc"
	str := dtype.Named("string")
	add("strings/json2", str, []int{6, 4}, []int{4, 3}, 3, 0, codecsJSON("numcodecs.json2", `{}`))
	arr := add("zgrp/sub/arr", i32, []int{5, 6}, []int{5, 4}, 5, 0, codecsJSON("bytes", endianCfg(i32, "little"), "zstd", `{"level":1,"checksum":false}`))
	arr.Attrs = json.RawMessage(`{"units":"m","scale":0.5,"names":["x","y"],"nested":{"deep":[1,{"k":null}]}}`)
	return cases
}

var zarritaWriteGroups = []groupCase{
	{Path: "", Attrs: json.RawMessage(`{"root":true}`)},
	{Path: "zgrp", Attrs: json.RawMessage(`{"title":"hierarchy","n":1,"nested":{"a":[1,2,3]}}`)},
	{Path: "zgrp/sub", Attrs: json.RawMessage(`{"level":2,"unicode":"é漢🙂","empty":{}}`)},
}

// TestZarrgwReadsZarrita: zarrita.js writes v3 arrays and groups with
// elements from the shared formula; zarrgw reads every element.
func TestZarrgwReadsZarrita(t *testing.T) {
	t.Parallel()
	node := requireNode(t)
	ctx := context.Background()
	dir := t.TempDir()
	cases := zarritaWriteCases()
	man := struct {
		Root   string         `json:"root"`
		Groups []groupCase    `json:"groups"`
		Arrays []foreignArray `json:"arrays"`
	}{dir, zarritaWriteGroups, cases}
	var out struct {
		Results []struct {
			Path  string `json:"path"`
			Error string `json:"error"`
		} `json:"results"`
	}
	runScript(t, node, "js/write.mjs", man, &out)
	writeErr := map[string]string{}
	for _, r := range out.Results {
		if r.Error != "" {
			writeErr[r.Path] = r.Error
		}
	}
	if len(out.Results) != len(cases)+len(zarritaWriteGroups) {
		t.Fatalf("zarrita reported %d results for %d nodes", len(out.Results), len(cases)+len(zarritaWriteGroups))
	}

	s, err := fsstore.New(dir, fsstore.WithDirSync(false))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tl := &tally{name: "zarrita-write"}
	for _, g := range zarritaWriteGroups {
		tl.run(t, "group/"+g.Path, func() error {
			if e := writeErr[g.Path]; e != "" {
				return fmt.Errorf("zarrita could not write the group: %s", e)
			}
			return checkGroup(ctx, s, g, meta.V3)
		})
	}
	for _, fa := range cases {
		tl.run(t, fa.Path, func() error {
			if e := writeErr[fa.Path]; e != "" {
				return fmt.Errorf("zarrita could not write the array: %s", e)
			}
			return fa.check(ctx, s, meta.V3)
		})
	}
	tl.summary(t, "blosc: zarrgw cannot decode it yet")
}
