package interop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
)

// v2Types are the fixed-size numeric types numpy (and so zarr-python 2) has.
var v2Types = []string{"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64", "bool"}

// v2Compressor is a compressor as a v3 codec and the numcodecs id
// zarr-python must report.
type v2Compressor struct {
	name string
	ext  *meta.Extension
	id   string
}

func extp(name, config string) *meta.Extension {
	e := ext(name, config)
	return &e
}

var v2Compressors = []v2Compressor{
	{"zlib", extp("numcodecs.zlib", `{"level":1}`), "zlib"},
	{"gzip", extp("numcodecs.gzip", `{"level":5}`), "gzip"},
	{"zstd-0", extp("numcodecs.zstd", `{"level":0}`), "zstd"},
	{"zstd-5", extp("numcodecs.zstd", `{"level":5}`), "zstd"},
	{"lz4", extp("numcodecs.lz4", `{"acceleration":1}`), "lz4"},
	{"bz2", extp("numcodecs.bz2", `{"level":9}`), "bz2"},
	{"none", nil, ""},
}

// v2 builds an outCase for a v2 array with the expectations zarr-python
// must report.
func v2(path string, dt dtype.DataType, shape, chunks []int, codecs []meta.Extension, v2dtype, order, compressor string, filters ...string) *outCase {
	fill := fillValue(dt, 0)
	switch dt.Kind { // non-ASCII metadata is exercised apart (zarrPythonUnicodeTree)
	case dtype.String:
		fill = "fill"
	case dtype.FixedUnicode:
		fill = "fx"[:min(2, dt.Size/4)]
	}
	// Cases alternate (by path) between the two numeric fill values.
	if len(path)%2 == 1 && (dt.Kind == dtype.Float || dt.Kind == dtype.Int || dt.Kind == dtype.Uint) {
		fill = fillValue(dt, 1)
	}
	return &outCase{path: path, dt: dt, shape: shape, chunks: chunks, codecs: codecs, fill: scalarBytes(dt, fill),
		missing: true, v2dtype: v2dtype, order: order, compressor: compressor, filters: filters}
}

// zarrPythonReadCases are the v2 arrays zarrgw writes for zarr-python 2.
func zarrPythonReadCases() []*outCase {
	var cases []*outCase
	add := func(c *outCase) *outCase { cases = append(cases, c); return c }
	for _, comp := range v2Compressors {
		for _, name := range v2Types {
			dt := dtype.Named(name)
			chain := []meta.Extension{bytesCodec(dt, "little")}
			if comp.ext != nil {
				chain = append(chain, *comp.ext)
			}
			add(v2("v2/"+comp.name+"/"+name, dt, shape2, chunks2, chain, dt.V2String(dtype.Little), "C", comp.id))
		}
	}
	i16, i32, i64, u16 := dtype.Named("int16"), dtype.Named("int32"), dtype.Named("int64"), dtype.Named("uint16")
	f32, f64 := dtype.Named("float32"), dtype.Named("float64")
	zlib := ext("numcodecs.zlib", `{"level":1}`)

	// zstd with chunks of at least 256 bytes.
	add(v2("v2/zstd-large-chunks/float64", f64, []int{40, 30}, []int{16, 16}, after(ext("numcodecs.zstd", `{"level":0}`))(f64), "<f8", "C", "zstd"))

	// v3 codec names on a v2 array.
	add(v2("v3names/gzip", i32, shape2, chunks2, after(ext("gzip", `{"level":5}`))(i32), "<i4", "C", "gzip"))
	add(v2("v3names/zstd", i32, shape2, chunks2, after(ext("zstd", `{"level":3}`))(i32), "<i4", "C", "zstd"))
	add(v2("v3names/zstd-checksum-false", i32, shape2, chunks2, after(ext("zstd", `{"level":0,"checksum":false}`))(i32), "<i4", "C", "zstd"))

	// Filters.
	for _, name := range []string{"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"} {
		dt := dtype.Named(name)
		t := dt.V2String(dtype.Little)
		add(v2("filters/delta/"+name, dt, shape2, chunks2, []meta.Extension{
			ext("numcodecs.delta", fmt.Sprintf(`{"dtype":%q,"astype":%q}`, t, t)), bytesCodec(dt, "little"), zlib}, t, "C", "zlib", "delta"))
	}
	for _, dt := range []dtype.DataType{i32, f64, u16} {
		add(v2("filters/shuffle/"+dt.Name, dt, shape2, chunks2, after(ext("numcodecs.shuffle", fmt.Sprintf(`{"elementsize":%d}`, dt.Size)), zlib)(dt),
			dt.V2String(dtype.Little), "C", "zlib", "shuffle"))
	}
	// fixedscaleoffset: floats on a quarter grid stored as int16, and
	// int64 values near 1000 stored as int8; both decode exactly.
	fso := add(v2("filters/fixedscaleoffset/float64", f64, shape2, chunks2, []meta.Extension{
		ext("numcodecs.fixedscaleoffset", `{"offset":100,"scale":4,"dtype":"<f8","astype":"<i2"}`), bytesCodec(i16, "little"), zlib},
		"<f8", "C", "zlib", "fixedscaleoffset"))
	fso.fill = scalarBytes(f64, 100.0)
	fso.data = func(i int) any { return formula{Kind: "float", Bits: 15, Div: 4, Offset: 100}.value(i) }
	fso = add(v2("filters/fixedscaleoffset/int64", i64, shape2, chunks2, []meta.Extension{
		ext("numcodecs.fixedscaleoffset", `{"offset":1000,"scale":1,"dtype":"<i8","astype":"|i1"}`), bytesCodec(dtype.Named("int8"), "little"), zlib},
		"<i8", "C", "zlib", "fixedscaleoffset"))
	fso.fill = scalarBytes(i64, int64(1000))
	fso.data = func(i int) any { return formula{Kind: "int", Bits: 8, Offset: 1000}.value(i) }

	// Order F: a transpose reversing the dimensions.
	add(v2("order-f/int32", i32, shape2, chunks2, []meta.Extension{ext("transpose", `{"order":[1,0]}`), bytesCodec(i32, "little"), zlib}, "<i4", "F", "zlib"))
	add(v2("order-f/float32", f32, shape2, chunks2, []meta.Extension{ext("transpose", `{"order":[1,0]}`), bytesCodec(f32, "big")}, ">f4", "F", ""))
	add(v2("order-f/uint16", u16, shape3, chunks3, []meta.Extension{ext("transpose", `{"order":[2,1,0]}`), bytesCodec(u16, "little"),
		ext("numcodecs.zstd", `{"level":1}`)}, "<u2", "F", "zstd"))

	// Big-endian types.
	for _, name := range []string{"int16", "int32", "int64", "uint16", "uint32", "uint64", "float16", "float32", "float64"} {
		dt := dtype.Named(name)
		add(v2("big-endian/"+name, dt, shape2, chunks2, []meta.Extension{bytesCodec(dt, "big"), zlib}, dt.V2String(dtype.Big), "C", "zlib"))
	}

	// Fixed-width bytes and unicode, and object strings.
	for _, ts := range []struct{ typestr, endian, comp string }{{"|S5", "little", "zlib"}, {"<U3", "little", "zlib"}, {">U2", "big", ""}} {
		dt, _, err := dtype.ParseV2(ts.typestr)
		if err != nil {
			panic(err)
		}
		chain := []meta.Extension{bytesCodec(dt, ts.endian)}
		if ts.comp != "" {
			chain = append(chain, zlib)
		}
		add(v2("fixed/"+strings.NewReplacer("|", "", "<", "le", ">", "be").Replace(ts.typestr), dt, shape2, chunks2, chain, ts.typestr, "C", ts.comp))
	}
	obj, _, err := dtype.ParseV2("|O")
	if err != nil {
		panic(err)
	}
	add(v2("object/vlen-utf8", obj, []int{6, 4}, []int{4, 3}, []meta.Extension{ext("vlen-utf8", "")}, "|O", "C", "", "vlen-utf8")).consolidated = true
	add(v2("object/vlen-utf8-zlib", obj, []int{9}, []int{4}, []meta.Extension{ext("vlen-utf8", ""), zlib}, "|O", "C", "zlib", "vlen-utf8"))

	// Chunk keys with "/" (nested directories) and ".".
	add(v2("separator/slash", i32, shape3, chunks3, after(zlib)(i32), "<i4", "C", "zlib")).sep = "/"
	add(v2("separator/dot", i32, shape3, chunks3, after(zlib)(i32), "<i4", "C", "zlib")).sep = "."

	// A nested hierarchy with attributes, also read through consolidated
	// metadata.
	arr := add(v2("grp/sub/arr", f64, []int{5, 6}, []int{5, 4}, after(zlib)(f64), "<f8", "C", "zlib"))
	arr.attrs = `{"units":"m","scale":0.5,"names":["x","y"],"nested":{"deep":[1,{"k":null}]}}`
	arr.consolidated = true
	for _, c := range cases {
		if c.path == "v2/zlib/int32" || c.path == "order-f/int32" || c.path == "fixed/leU3" || c.path == "separator/slash" {
			c.consolidated = true
		}
	}
	return cases
}

var zarrPythonReadGroups = []groupCase{
	{Path: "grp", Attrs: json.RawMessage(`{"title":"hierarchy","n":1,"nested":{"a":[1,2,3]}}`)},
	{Path: "grp/sub", Attrs: json.RawMessage(`{"level":2,"list":["a","b"],"empty":{}}`)},
}

// v2Tree is one store of v2 nodes zarrgw writes for zarr-python, with
// consolidated metadata at its root.
type v2Tree struct {
	prefix    string // subtest name prefix
	groups    []groupCase
	cases     []*outCase
	dir       string
	groupErrs map[string]error
	consErr   error
}

// zarrPythonUnicodeTree holds metadata with non-ASCII text (attributes,
// fill values), apart from the other nodes so that its outcome does not
// decide theirs.
func zarrPythonUnicodeTree() *v2Tree {
	i32 := dtype.Named("int32")
	u3, _, err := dtype.ParseV2("<U3")
	if err != nil {
		panic(err)
	}
	obj, _, err := dtype.ParseV2("|O")
	if err != nil {
		panic(err)
	}
	attrs := v2("ugrp/attrs", i32, shape2, chunks2, after(ext("numcodecs.zlib", `{"level":1}`))(i32), "<i4", "C", "zlib")
	attrs.attrs = `{"unit":"°C","names":["é","漢字","🙂"]}`
	u := v2("ugrp/fill-U3", u3, shape2, chunks2, []meta.Extension{bytesCodec(u3, "little")}, "<U3", "C", "")
	u.fill = scalarBytes(u3, fillValue(u3, 0))
	o := v2("ugrp/fill-object", obj, []int{6, 4}, []int{4, 3}, []meta.Extension{ext("vlen-utf8", "")}, "|O", "C", "", "vlen-utf8")
	o.fill = scalarBytes(obj, fillValue(obj, 0))
	cases := []*outCase{attrs, u, o}
	for _, c := range cases {
		c.consolidated = true
	}
	return &v2Tree{
		prefix: "unicode/",
		groups: []groupCase{{Path: "ugrp", Attrs: json.RawMessage(`{"title":"é漢🙂","empty":{}}`)}},
		cases:  cases,
	}
}

// write writes the tree's groups and arrays with zarrgw and consolidates
// the root's metadata.
func (tr *v2Tree) write(ctx context.Context, t *testing.T, seed int64) {
	tr.dir = t.TempDir()
	s, err := fsstore.New(tr.dir, fsstore.WithDirSync(false))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tr.groupErrs = map[string]error{}
	for _, g := range tr.groups {
		_, tr.groupErrs[g.Path] = hierarchy.CreateGroup(ctx, s, g.Path, meta.V2, g.Attrs)
	}
	for i, c := range tr.cases {
		c.werr = c.write(ctx, s, tr.dir, meta.V2, seed+int64(i))
	}
	tr.consErr = hierarchy.Consolidate(ctx, s, "")
}

// nodes lists what zarr-python reads: every group and array directly,
// the groups, the root and some arrays again through consolidated metadata.
func (tr *v2Tree) nodes() []manifestNode {
	var nodes []manifestNode
	for _, g := range tr.groups {
		nodes = append(nodes, manifestNode{Root: tr.dir, Path: g.Path, Kind: "group"}, manifestNode{Root: tr.dir, Path: g.Path, Kind: "group", Consolidated: true})
	}
	nodes = append(nodes, manifestNode{Root: tr.dir, Path: "", Kind: "group", Consolidated: true})
	for _, c := range tr.cases {
		if c.werr == nil {
			nodes = append(nodes, manifestNode{Root: tr.dir, Path: c.path, Kind: "array"})
			if c.consolidated {
				nodes = append(nodes, manifestNode{Root: tr.dir, Path: c.path, Kind: "array", Consolidated: true})
			}
		}
	}
	return nodes
}

// TestZarrPythonReadsZarrgw: zarrgw writes v2 arrays, groups and
// consolidated metadata; zarr-python 2 reads every element back.
func TestZarrPythonReadsZarrgw(t *testing.T) {
	t.Parallel()
	requirePython(t)
	ctx := context.Background()
	trees := []*v2Tree{{groups: zarrPythonReadGroups, cases: zarrPythonReadCases()}, zarrPythonUnicodeTree()}
	man := readManifest{}
	for k, tr := range trees {
		tr.write(ctx, t, int64(2000+1000*k))
		man.Nodes = append(man.Nodes, tr.nodes()...)
	}
	var out struct {
		Zarr      string        `json:"zarr"`
		Numcodecs string        `json:"numcodecs"`
		Results   []foreignNode `json:"results"`
	}
	runScript(t, python, "py/read_v2.py", man, &out)
	t.Logf("zarr-python %s, numcodecs %s", out.Zarr, out.Numcodecs)
	type key struct {
		root, path string
		cons       bool
	}
	got := map[key]foreignNode{}
	for _, r := range out.Results {
		got[key{r.Root, r.Path, r.Consolidated}] = r
	}

	tl := &tally{name: "zarr-python-read"}
	for _, tr := range trees {
		lookup := func(path string, cons bool) (foreignNode, error) {
			if cons && tr.consErr != nil {
				return foreignNode{}, fmt.Errorf("consolidate: %w", tr.consErr)
			}
			r, ok := got[key{tr.dir, path, cons}]
			switch {
			case !ok:
				return r, fmt.Errorf("zarr-python reported nothing for %q", path)
			case r.Error != "":
				return r, fmt.Errorf("zarr-python: %s", r.Error)
			}
			return r, nil
		}
		for _, g := range tr.groups {
			for _, cons := range []bool{false, true} {
				tl.run(t, fmt.Sprintf("%sgroup/%s/consolidated=%v", tr.prefix, g.Path, cons), func() error {
					if err := tr.groupErrs[g.Path]; err != nil {
						return fmt.Errorf("create: %w", err)
					}
					r, err := lookup(g.Path, cons)
					if err != nil {
						return err
					}
					if !jsonEqual(r.Attrs, g.Attrs) {
						return fmt.Errorf("zarr-python read attributes %s, want %s", r.Attrs, g.Attrs)
					}
					return nil
				})
			}
		}
		tl.run(t, tr.prefix+"consolidated-root", func() error {
			r, err := lookup("", true)
			if err != nil {
				return err
			}
			want := topLevelNames(tr.cases)
			slices.Sort(r.Members)
			if !slices.Equal(r.Members, want) {
				return fmt.Errorf("zarr-python lists the root's members as %v through consolidated metadata, want %v", r.Members, want)
			}
			return nil
		})
		for _, c := range tr.cases {
			for _, cons := range []bool{false, true} {
				if cons && !c.consolidated {
					continue
				}
				name := tr.prefix + c.path
				if cons {
					name += "/consolidated"
				}
				tl.run(t, name, func() error {
					if c.werr != nil {
						return c.werr
					}
					r, err := lookup(c.path, cons)
					if err != nil {
						return err
					}
					if err := c.compareZarrPython(r); err != nil {
						return err
					}
					return c.checkLayout(tr.dir)
				})
			}
		}
	}
	tl.summary(t, "")
}

// topLevelNames are the root's children: "grp" and the first segment of
// every array path.
func topLevelNames(cases []*outCase) []string {
	var names []string
	for _, c := range cases {
		first, _, _ := strings.Cut(c.path, "/")
		if !slices.Contains(names, first) {
			names = append(names, first)
		}
	}
	slices.Sort(names)
	return names
}

// compareZarrPython checks what zarr-python read against what zarrgw wrote.
func (c *outCase) compareZarrPython(r foreignNode) error {
	order := c.order
	if order == "" {
		order = "C"
	}
	switch {
	case !sameInts(r.Shape, c.shape):
		return fmt.Errorf("zarr-python read shape %v, want %v", r.Shape, c.shape)
	case !sameInts(r.Chunks, c.chunks):
		return fmt.Errorf("zarr-python read chunks %v, want %v", r.Chunks, c.chunks)
	case r.DType != c.v2dtype:
		return fmt.Errorf("zarr-python read dtype %q, want %q", r.DType, c.v2dtype)
	case r.Order != order:
		return fmt.Errorf("zarr-python read order %q, want %q", r.Order, order)
	}
	comp, err := codecID(r.Compressor)
	if err != nil {
		return err
	}
	if comp != c.compressor {
		return fmt.Errorf("zarr-python read compressor %s, want id %q", r.Compressor, c.compressor)
	}
	var filters []string
	for _, f := range r.Filters {
		id, err := codecID(f)
		if err != nil {
			return err
		}
		filters = append(filters, id)
	}
	if !slices.Equal(filters, c.filters) {
		return fmt.Errorf("zarr-python read filters %v, want %v", filters, c.filters)
	}
	attrs := c.attrs
	if attrs == "" {
		attrs = "{}"
	}
	if !jsonEqual(r.Attrs, []byte(attrs)) {
		return fmt.Errorf("zarr-python read attributes %s, want %s", r.Attrs, attrs)
	}
	fill, err := parseForeign(c.dt, r.FillValue)
	if err != nil {
		return fmt.Errorf("fill value: %v", err)
	}
	if want := fillElement(c.dt, c.fill); !sameValue(want, fill) {
		return fmt.Errorf("zarr-python read fill value %#v, want %#v", fill, want)
	}
	return compareElements(c.dt, c.written.Len(), c.written.At, r.Values)
}

// codecID is the "id" of a numcodecs configuration ("" for null).
func codecID(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var cfg struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return "", fmt.Errorf("codec configuration %s: %v", raw, err)
	}
	return cfg.ID, nil
}

// checkLayout verifies the chunk files of arrays with a "/" separator sit
// in nested directories, and those with "." in one flat directory.
func (c *outCase) checkLayout(dir string) error {
	if c.sep == "" {
		return nil
	}
	sep := c.sep
	last := make([]string, len(c.shape))
	for d := range c.shape {
		last[d] = fmt.Sprint((c.shape[d] - 1) / c.chunks[d])
	}
	p := filepath.Join(dir, filepath.FromSlash(c.path), strings.Join(last, sep))
	if sep == "/" {
		p = filepath.Join(dir, filepath.FromSlash(c.path), filepath.Join(last...))
	}
	if _, err := os.Stat(p); err != nil {
		return fmt.Errorf("chunk key separator %q: %w", sep, err)
	}
	return nil
}

// zarrPythonWriteCases are the v2 arrays zarr-python 2 writes for zarrgw.
func zarrPythonWriteCases() []foreignArray {
	var cases []foreignArray
	add := func(path, typestr string, shape, chunks []int, rows, variant int, compressor string, filters ...string) *foreignArray {
		dt, _, err := dtype.ParseV2(typestr)
		if err != nil {
			panic(err)
		}
		var fill any = fillValue(dt, variant)
		fa := newForeign(path, typestr, dt, shape, chunks, fill, rows)
		if compressor != "" {
			fa.Compressor = json.RawMessage(compressor)
		}
		if len(filters) > 0 {
			fa.Filters = json.RawMessage("[" + strings.Join(filters, ",") + "]")
		}
		cases = append(cases, fa)
		return &cases[len(cases)-1]
	}
	comps := []struct{ name, cfg string }{
		{"zlib", `{"id":"zlib","level":1}`},
		{"gzip", `{"id":"gzip","level":5}`},
		{"zstd-0", `{"id":"zstd","level":0}`},
		{"zstd-7", `{"id":"zstd","level":7}`},
		{"lz4", `{"id":"lz4","acceleration":1}`},
		{"bz2", `{"id":"bz2","level":9}`},
		{"none", ""},
	}
	for k, comp := range comps {
		for _, name := range v2Types {
			dt := dtype.Named(name)
			add("v2/"+comp.name+"/"+name, dt.V2String(dtype.Little), shape2, chunks2, 5, k%2, comp.cfg)
		}
	}
	for _, cname := range []string{"lz4", "zstd", "blosclz", "zlib"} {
		for shuffle := range 3 {
			for _, typestr := range []string{"<i4", "<f8"} {
				fa := add(fmt.Sprintf("blosc/%s-%d/%s", cname, shuffle, typestr[1:]), typestr, shape2, chunks2, 5, shuffle%2,
					fmt.Sprintf(`{"id":"blosc","cname":%q,"clevel":5,"shuffle":%d,"blocksize":0}`, cname, shuffle))
				fa.needs = "blosc"
			}
		}
	}
	zlib := `{"id":"zlib","level":1}`
	for _, name := range []string{"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"} {
		t := dtype.Named(name).V2String(dtype.Little)
		add("filters/delta/"+name, t, shape2, chunks2, 5, 1, zlib, fmt.Sprintf(`{"id":"delta","dtype":%q}`, t))
	}
	fso := add("filters/fixedscaleoffset/float64", "<f8", shape2, chunks2, 5, 0, zlib,
		`{"id":"fixedscaleoffset","offset":100,"scale":4,"dtype":"<f8","astype":"<i2"}`)
	fso.Formula = formula{Kind: "float", Bits: 15, Div: 4, Offset: 100}
	fso = add("filters/fixedscaleoffset/int64", "<i8", shape2, chunks2, 5, 0, zlib,
		`{"id":"fixedscaleoffset","offset":1000,"scale":1,"dtype":"<i8","astype":"|i1"}`)
	fso.Formula = formula{Kind: "int", Bits: 8, Offset: 1000}
	fso.FillValue, fso.fill = 1005, int64(1005) // the fill must survive the int8 encoding too
	// quantize keeps values on a 1/16 grid as they are (digits=1 rounds
	// to multiples of 1/16), so eighths pass unchanged.
	for _, typestr := range []string{"<f4", "<f8"} {
		q := add("filters/quantize/"+typestr[1:], typestr, shape2, chunks2, 5, 0, zlib, fmt.Sprintf(`{"id":"quantize","digits":1,"dtype":%q}`, typestr))
		q.Formula = formula{Kind: "float", Bits: 12, Div: 8}
	}
	add("filters/shuffle/int32", "<i4", shape2, chunks2, 5, 0, zlib, `{"id":"shuffle","elementsize":4}`)
	add("filters/shuffle/float64", "<f8", shape2, chunks2, 5, 1, zlib, `{"id":"shuffle","elementsize":8}`)
	add("filters/delta-shuffle/int16", "<i2", shape2, chunks2, 7, 0, `{"id":"zstd","level":1}`, `{"id":"delta","dtype":"<i2"}`, `{"id":"shuffle","elementsize":2}`)

	add("order-f/int32", "<i4", shape2, chunks2, 5, 0, zlib).Order = "F"
	add("order-f/float32", ">f4", shape2, chunks2, 6, 1, "").Order = "F"
	add("order-f/uint16", "<u2", shape3, chunks3, 2, 0, `{"id":"zstd","level":1}`).Order = "F"
	for _, typestr := range []string{">i2", ">i8", ">u4", ">u8", ">f2", ">f4", ">f8"} {
		add("big-endian/"+typestr[1:], typestr, shape2, chunks2, 5, 1, zlib)
	}
	add("fixed/S5", "|S5", shape2, chunks2, 5, 0, zlib)
	add("fixed/leU4", "<U4", shape2, chunks2, 5, 0, zlib)
	add("fixed/beU3", ">U3", shape2, chunks2, 5, 0, "")
	for _, comp := range []string{zlib, ""} {
		name := "object/vlen-utf8"
		if comp != "" {
			name += "-zlib"
		}
		o := add(name, "|O", []int{6, 4}, []int{4, 3}, 3, 0, comp)
		o.ObjectCodec = json.RawMessage(`{"id":"vlen-utf8"}`)
		o.FillValue, o.fill = "", ""
	}
	add("separator/slash", "<i2", shape3, chunks3, 3, 0, zlib).DimensionSeparator = "/"
	add("separator/dot", "<i2", shape3, chunks3, 3, 0, zlib).DimensionSeparator = "."
	arr := add("pgrp/sub/arr", "<f8", []int{5, 6}, []int{5, 4}, 5, 0, zlib)
	arr.Attrs = json.RawMessage(`{"units":"m","scale":0.5,"names":["x","y"],"nested":{"deep":[1,{"k":null}]}}`)
	return cases
}

var zarrPythonWriteGroups = []groupCase{
	{Path: "pgrp", Attrs: json.RawMessage(`{"title":"hierarchy","n":1,"nested":{"a":[1,2,3]}}`)},
	{Path: "pgrp/sub", Attrs: json.RawMessage(`{"level":2,"unicode":"é漢🙂","empty":{}}`)},
}

// TestZarrgwReadsZarrPython: zarr-python 2 writes v2 arrays, groups and
// consolidated metadata with elements from the shared formula; zarrgw
// reads every element.
func TestZarrgwReadsZarrPython(t *testing.T) {
	t.Parallel()
	requirePython(t)
	ctx := context.Background()
	dir := t.TempDir()
	cases := zarrPythonWriteCases()
	man := struct {
		Root        string         `json:"root"`
		Groups      []groupCase    `json:"groups"`
		Arrays      []foreignArray `json:"arrays"`
		Consolidate bool           `json:"consolidate"`
	}{dir, zarrPythonWriteGroups, cases, true}
	var out struct {
		Zarr    string `json:"zarr"`
		Results []struct {
			Path  string `json:"path"`
			Error string `json:"error"`
		} `json:"results"`
		ConsolidateError string `json:"consolidate_error"`
	}
	runScript(t, python, "py/write_v2.py", man, &out)
	if len(out.Results) != len(cases)+len(zarrPythonWriteGroups) {
		t.Fatalf("zarr-python reported %d results for %d nodes", len(out.Results), len(cases)+len(zarrPythonWriteGroups))
	}
	writeErr := map[string]string{}
	for _, r := range out.Results {
		if r.Error != "" {
			writeErr[r.Path] = r.Error
		}
	}

	s, err := fsstore.New(dir, fsstore.WithDirSync(false))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tl := &tally{name: "zarr-python-write"}
	for _, g := range zarrPythonWriteGroups {
		tl.run(t, "group/"+g.Path, func() error {
			if e := writeErr[g.Path]; e != "" {
				return fmt.Errorf("zarr-python could not write the group: %s", e)
			}
			return checkGroup(ctx, s, g, meta.V2)
		})
	}
	tl.run(t, "consolidated-root", func() error {
		if out.ConsolidateError != "" {
			return fmt.Errorf("zarr-python could not consolidate: %s", out.ConsolidateError)
		}
		n, err := hierarchy.Open(ctx, s, "")
		if err != nil {
			return err
		}
		if n.Group == nil || n.Group.Consolidated == nil {
			return errors.New("zarrgw found no consolidated metadata at the root")
		}
		for _, fa := range cases {
			am := n.Group.Consolidated.Arrays[fa.Path]
			if am == nil {
				return fmt.Errorf("consolidated metadata lacks array %s", fa.Path)
			}
			if !sameInts(am.Shape, fa.Shape) || !am.DataType.Equal(fa.dt) {
				return fmt.Errorf("consolidated metadata of %s: shape %v type %s, want %v %s", fa.Path, am.Shape, am.DataType.Name, fa.Shape, fa.dt.Name)
			}
		}
		for _, g := range zarrPythonWriteGroups {
			gm := n.Group.Consolidated.Groups[g.Path]
			if gm == nil {
				return fmt.Errorf("consolidated metadata lacks group %s", g.Path)
			}
			if !jsonEqual(gm.Attributes, g.Attrs) {
				return fmt.Errorf("consolidated attributes of %s: %s, want %s", g.Path, gm.Attributes, g.Attrs)
			}
		}
		return nil
	})
	for _, fa := range cases {
		tl.run(t, fa.Path, func() error {
			if e := writeErr[fa.Path]; e != "" {
				return fmt.Errorf("zarr-python could not write the array: %s", e)
			}
			return fa.check(ctx, s, meta.V2)
		})
	}
	tl.summary(t, "blosc: zarrgw cannot decode it yet")
}
