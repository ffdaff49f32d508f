package conformance

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	zbinary "github.com/zarrgw/zarrgw/tests/support/binary"
	"github.com/zarrgw/zarrgw/tests/support/fixtures"
	"github.com/zarrgw/zarrgw/tests/support/pyenv"
)

// zarrMetadataTotal is how many documents and cases
// ../shared/fixtures/zarr-metadata holds (its README).
const zarrMetadataTotal = 135

// metaCase is one document or case of zarr-metadata, laid out as a store
// of its own: the files to write, the array cat reads (when it is or
// holds one) and the fill value that array declares.
type metaCase struct {
	name  string            // e.g. "v3/codec/bytes/big_endian"
	files map[string][]byte // key -> document
	array *string           // path of the array to cat; nil for groups
	rank  int
	// what the fill value is decoded from, by py/fill_values.py
	format   int
	dataType json.RawMessage
	fill     json.RawMessage
}

// TestZarrMetadataDocuments walks zarr-python's metadata conformance
// documents (../shared/fixtures/zarr-metadata): every whole document and
// every named case of one part (a chunk grid, a chunk key encoding, a
// codec, a fill value), the parts placed into a small array document built
// here. The real binary's `zarrgw inspect` must accept each, and `zarrgw
// cat` must read each array (no chunk written) as its fill value, which
// py/fill_values.py decodes from the document with numpy by the specs'
// formulas. All 135 must pass.
func TestZarrMetadataDocuments(t *testing.T) {
	py := pyenv.Python(t, "numpy")
	root := filepath.Join(fixtures.Dir(t), "zarr-metadata")
	cases := zarrMetadataCases(t, root)
	if len(cases) != zarrMetadataTotal {
		t.Errorf("found %d documents and cases in %s, want %d", len(cases), root, zarrMetadataTotal)
	}
	want := decodeFills(t, py, cases)
	bin, remove := zbinary.Build()
	t.Cleanup(remove)

	work := t.TempDir()
	start := time.Now()
	var failed []string
	for i, c := range cases {
		dir := filepath.Join(work, fmt.Sprint(i))
		if err := checkMetaCase(bin, dir, c, want[c.name]); err != nil {
			failed = append(failed, c.name)
			t.Errorf("FAIL %s: %v", c.name, err)
		}
	}
	fmt.Printf("conformance zarr-metadata: %d/%d accepted and read (%s)\n",
		len(cases)-len(failed), len(cases), time.Since(start).Round(time.Millisecond))
	if len(failed) > 0 {
		fmt.Printf("conformance zarr-metadata: refused or misread: %s\n", strings.Join(failed, ", "))
	}
}

// checkMetaCase writes a case's store, inspects it and reads its array.
func checkMetaCase(bin, dir string, c metaCase, want fillWant) error {
	for key, doc := range c.files {
		p := filepath.Join(dir, filepath.FromSlash(key))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, doc, 0o644); err != nil {
			return err
		}
	}
	if out, err := runZarrgw(bin, "inspect", dir); err != nil {
		return fmt.Errorf("inspect: %w", err)
	} else if !bytes.Contains(out, []byte("(")) {
		return fmt.Errorf("inspect printed no node: %q", out)
	}
	if c.array == nil {
		return nil
	}
	if want.Error != "" {
		return fmt.Errorf("the test could not decode the fill value %s: %s", c.fill, want.Error)
	}
	slice := strings.TrimSuffix(strings.Repeat("0:1,", c.rank), ",")
	args := []string{"cat", dir, "--path", *c.array, "--slice", slice, "--format", "raw"}
	if want.Text != nil || want.VLen {
		args[len(args)-1] = "json"
	}
	out, err := runZarrgw(bin, args...)
	if err != nil {
		return fmt.Errorf("cat: %w", err)
	}
	return compareFill(out, want)
}

// compareFill compares cat's one element (raw bytes, or a JSON document
// for variable-length types) with the decoded fill value.
func compareFill(out []byte, want fillWant) error {
	if want.Text == nil && !want.VLen {
		if got := hex.EncodeToString(out); got != want.Hex {
			return fmt.Errorf("cat read the element as bytes %s, the fill value is %s", got, want.Hex)
		}
		return nil
	}
	var doc struct{ Data []any }
	if err := json.Unmarshal(out, &doc); err != nil {
		return fmt.Errorf("cat --format json: %w: %.200s", err, out)
	}
	if len(doc.Data) != 1 {
		return fmt.Errorf("cat read %d elements, want 1", len(doc.Data))
	}
	var got string
	for len(doc.Data) > 0 {
		switch v := doc.Data[0].(type) {
		case []any:
			doc.Data = v
			continue
		case string:
			got = v
		}
		break
	}
	if want.VLen {
		if hex.EncodeToString([]byte(got)) != want.Hex {
			return fmt.Errorf("cat read bytes %x, the fill value is %s", got, want.Hex)
		}
	} else if got != *want.Text {
		return fmt.Errorf("cat read %q, the fill value is %q", got, *want.Text)
	}
	return nil
}

func runZarrgw(bin string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%w: %s", err, strings.TrimSpace(errOut.String()))
	}
	return out.Bytes(), nil
}

// fillWant is what py/fill_values.py says a fill value is.
type fillWant struct {
	Hex   string  `json:"hex"`
	Text  *string `json:"text"`
	VLen  bool    `json:"vlen"` // variable-length bytes, in Hex
	Error string  `json:"error"`
}

// decodeFills runs py/fill_values.py once over every array case.
func decodeFills(t *testing.T, py string, cases []metaCase) map[string]fillWant {
	type input struct {
		ID         string          `json:"id"`
		ZarrFormat int             `json:"zarr_format"`
		DataType   json.RawMessage `json:"data_type"`
		FillValue  json.RawMessage `json:"fill_value"`
	}
	var in []input
	for _, c := range cases {
		if c.array != nil {
			in = append(in, input{c.name, c.format, c.dataType, c.fill})
		}
	}
	doc, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, "py/fill_values.py")
	cmd.Stdin = bytes.NewReader(doc)
	out, errOut, code := zbinary.Run(t, cmd)
	if code != 0 {
		t.Fatalf("py/fill_values.py: exit %d\n%s", code, errOut)
	}
	want := map[string]fillWant{}
	if err := json.Unmarshal([]byte(out), &want); err != nil {
		t.Fatalf("py/fill_values.py: %v\n%.2000s", err, out)
	}
	return want
}

// zarrMetadataCases lists every document and case, sorted by name.
func zarrMetadataCases(t *testing.T, root string) []metaCase {
	var cases []metaCase
	add := func(c metaCase, err error) {
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		cases = append(cases, c)
	}
	for _, p := range globJSON(t, root, "v2/array/*.json") {
		add(v2ArrayCase(root, p))
	}
	for _, p := range globJSON(t, root, "v2/group/*.json") {
		add(groupCase(root, p, ".zgroup"))
	}
	for _, p := range globJSON(t, root, "v2/consolidated/*.json") {
		add(v2ConsolidatedCase(root, p))
	}
	for _, p := range globJSON(t, root, "v3/array/*.json") {
		add(v3ArrayCase(root, p))
	}
	for _, p := range globJSON(t, root, "v3/group/*.json") {
		add(groupCase(root, p, "zarr.json"))
	}
	for _, p := range globJSON(t, root, "v3/consolidated/*.json") {
		add(v3ConsolidatedCase(root, p))
	}
	for _, part := range []string{"chunk_grid", "chunk_key_encoding", "codec"} {
		for _, p := range globJSON(t, root, "v3/"+part+"/*/cases.json") {
			kind := filepath.Base(filepath.Dir(p))
			for name, raw := range namedCases(t, p) {
				c := metaCase{name: "v3/" + part + "/" + kind + "/" + name}
				add(partCase(c, part, kind, raw))
			}
		}
	}
	for _, p := range globJSON(t, root, "v3/data_type/*/fill_values.json") {
		dir := filepath.Dir(p)
		for name, raw := range namedCases(t, p) {
			c := metaCase{name: "v3/data_type/" + filepath.Base(dir) + "/" + name}
			add(fillCase(c, dir, raw))
		}
	}
	sort.Slice(cases, func(i, j int) bool { return cases[i].name < cases[j].name })
	return cases
}

func globJSON(t *testing.T, root, pattern string) []string {
	paths, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(pattern)))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no %s under %s (%v)", pattern, root, err)
	}
	return paths
}

func namedCases(t *testing.T, path string) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(readFile(t, path), &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

func readFile(t *testing.T, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func caseName(root, path string) string {
	rel, _ := filepath.Rel(root, path)
	return strings.TrimSuffix(filepath.ToSlash(rel), ".json")
}

// atRoot is the path of a store's root array.
func atRoot() *string { s := ""; return &s }

// arrayFields reads what the test needs of an array document.
func arrayFields(doc []byte, c *metaCase) error {
	var a struct {
		Shape    []int           `json:"shape"`
		DataType json.RawMessage `json:"data_type"`
		DType    json.RawMessage `json:"dtype"`
		Fill     json.RawMessage `json:"fill_value"`
		Format   int             `json:"zarr_format"`
	}
	if err := json.Unmarshal(doc, &a); err != nil {
		return err
	}
	c.rank, c.format, c.fill = len(a.Shape), a.Format, a.Fill
	c.dataType = a.DataType
	if a.Format == 2 {
		c.dataType = a.DType
	}
	return nil
}

func v2ArrayCase(root, p string) (metaCase, error) {
	c := metaCase{name: caseName(root, p), array: atRoot()}
	doc, err := os.ReadFile(p)
	if err != nil {
		return c, err
	}
	c.files = map[string][]byte{".zarray": doc}
	return c, arrayFields(doc, &c)
}

func groupCase(root, p, key string) (metaCase, error) {
	doc, err := os.ReadFile(p)
	return metaCase{name: caseName(root, p), files: map[string][]byte{key: doc}}, err
}

// consolidated reads a consolidated metadata document and its members.
func consolidated(p string) ([]byte, map[string]json.RawMessage, error) {
	doc, err := os.ReadFile(p)
	if err != nil {
		return nil, nil, err
	}
	var z struct {
		Metadata map[string]json.RawMessage `json:"metadata"`
	}
	err = json.Unmarshal(doc, &z)
	return doc, z.Metadata, err
}

// v2ConsolidatedCase writes a .zmetadata and, as a store holds them, the
// documents it consolidates; the first array among them is read.
func v2ConsolidatedCase(root, p string) (metaCase, error) {
	c := metaCase{name: caseName(root, p)}
	doc, members, err := consolidated(p)
	if err != nil {
		return c, err
	}
	c.files = map[string][]byte{".zmetadata": doc, ".zgroup": []byte(`{"zarr_format": 2}`)}
	for _, key := range sortedKeys(members) {
		c.files[key] = members[key]
		if path, ok := strings.CutSuffix(key, "/.zarray"); ok && c.array == nil {
			c.array = &path
			if err := arrayFields(members[key], &c); err != nil {
				return c, err
			}
		}
	}
	return c, nil
}

func v3ArrayCase(root, p string) (metaCase, error) {
	c := metaCase{name: caseName(root, p), array: atRoot()}
	doc, err := os.ReadFile(p)
	if err != nil {
		return c, err
	}
	c.files = map[string][]byte{"zarr.json": doc}
	return c, arrayFields(doc, &c)
}

// v3ConsolidatedCase puts the document into a root group's
// consolidated_metadata and writes the documents it holds beside it.
func v3ConsolidatedCase(root, p string) (metaCase, error) {
	c := metaCase{name: caseName(root, p)}
	doc, members, err := consolidated(p)
	if err != nil {
		return c, err
	}
	c.files = map[string][]byte{"zarr.json": []byte(`{"zarr_format": 3, "node_type": "group", "consolidated_metadata": ` + string(doc) + `}`)}
	for _, path := range sortedKeys(members) {
		c.files[path+"/zarr.json"] = members[path]
		if bytes.Contains(members[path], []byte(`"array"`)) && c.array == nil {
			c.array = &path
			if err := arrayFields(members[path], &c); err != nil {
				return c, err
			}
		}
	}
	return c, nil
}

// partCase builds an array around one chunk grid, chunk key encoding or
// codec. Each array has a fill value of its own (not 0), so that reading
// zeros instead would fail.
func partCase(c metaCase, part, kind string, raw json.RawMessage) (metaCase, error) {
	doc := map[string]any{
		"zarr_format": 3, "node_type": "array",
		"shape": []int{5, 6}, "data_type": "int32",
		"chunk_grid":         map[string]any{"name": "regular", "configuration": map[string]any{"chunk_shape": []int{2, 4}}},
		"chunk_key_encoding": "default",
		"fill_value":         -7,
		"codecs":             []any{map[string]any{"name": "bytes", "configuration": map[string]any{"endian": "little"}}},
	}
	var err error
	switch part {
	case "chunk_grid":
		doc["chunk_grid"] = raw
		doc["shape"], err = shapeForGrid(raw)
	case "chunk_key_encoding":
		doc["chunk_key_encoding"] = raw
	case "codec":
		err = placeCodec(doc, kind, raw)
	}
	if err != nil {
		return c, err
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return c, err
	}
	c.files = map[string][]byte{"zarr.json": b}
	c.array = atRoot()
	return c, arrayFields(b, &c)
}

// shapeForGrid is a shape a grid's chunks tile: twice the chunk shape and
// one more (an edge chunk) for a regular grid, the sum of the chunk sizes
// of a rectilinear grid (a bare size: two chunks).
func shapeForGrid(raw json.RawMessage) ([]int, error) {
	var g struct {
		Name          string
		Configuration struct {
			ChunkShape  []int             `json:"chunk_shape"`
			ChunkShapes []json.RawMessage `json:"chunk_shapes"`
		}
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		return nil, err
	}
	var shape []int
	for _, n := range g.Configuration.ChunkShape {
		shape = append(shape, 2*n+1)
	}
	for _, dim := range g.Configuration.ChunkShapes {
		var size int
		if json.Unmarshal(dim, &size) == nil {
			shape = append(shape, 2*size)
			continue
		}
		var sizes []json.RawMessage
		if err := json.Unmarshal(dim, &sizes); err != nil {
			return nil, err
		}
		total := 0
		for _, s := range sizes {
			var run [2]int // [size, count]
			if json.Unmarshal(s, &run) == nil {
				total += run[0] * run[1]
			} else if err := json.Unmarshal(s, &size); err == nil {
				total += size
			} else {
				return nil, err
			}
		}
		shape = append(shape, total)
	}
	return shape, nil
}

// placeCodec puts a codec where its kind stands in a chain: an
// array->array codec before bytes, bytes itself (over one byte elements
// when it names no byte order), sharding as the whole chain (the chunk
// a multiple of its inner chunk), a bytes->bytes codec after bytes.
func placeCodec(doc map[string]any, kind string, raw json.RawMessage) error {
	bytesLE := doc["codecs"].([]any)[0]
	switch kind {
	case "transpose":
		var cfg struct{ Configuration struct{ Order []int } }
		if err := json.Unmarshal(raw, &cfg); err != nil {
			return err
		}
		n := len(cfg.Configuration.Order)
		doc["shape"], doc["chunk_grid"] = repeat(5, n), regular(repeat(2, n))
		doc["codecs"] = []any{raw, bytesLE}
	case "cast_value", "scale_offset":
		// a fill value every case's target type holds (uint8, int8,
		// datetime64 counts ...): cast_value's spec makes a fill value
		// that does not survive the cast there and back an error
		doc["data_type"], doc["fill_value"] = "float64", 3.0
		doc["codecs"] = []any{raw, bytesLE}
	case "bytes":
		if !bytes.Contains(raw, []byte("endian")) {
			doc["data_type"], doc["fill_value"] = "uint8", 200
		}
		doc["codecs"] = []any{raw}
	case "sharding_indexed":
		var cfg struct {
			Configuration struct {
				ChunkShape []int `json:"chunk_shape"`
			}
		}
		if err := json.Unmarshal(raw, &cfg); err != nil {
			return err
		}
		inner := cfg.Configuration.ChunkShape
		outer, shape := make([]int, len(inner)), make([]int, len(inner))
		for i, n := range inner {
			outer[i], shape[i] = 2*n, 3*n
		}
		doc["shape"], doc["chunk_grid"], doc["data_type"] = shape, regular(outer), "uint16"
		doc["fill_value"] = 4000
		doc["codecs"] = []any{raw}
	default: // bytes -> bytes
		doc["codecs"] = []any{bytesLE, raw}
	}
	return nil
}

func repeat(v, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func regular(chunks []int) map[string]any {
	return map[string]any{"name": "regular", "configuration": map[string]any{"chunk_shape": chunks}}
}

// fillCase builds a 1-d array of a data type (its data_type.json, else
// the name of its directory) with one fill value: variable-length types
// through their vlen codec, raw r<N> sized from the fill value's bytes.
func fillCase(c metaCase, dir string, fill json.RawMessage) (metaCase, error) {
	kind := filepath.Base(dir)
	var dt json.RawMessage
	if b, err := os.ReadFile(filepath.Join(dir, "data_type.json")); err == nil {
		dt = b
	} else {
		name := kind
		if kind == "raw" {
			var bytes []int
			if err := json.Unmarshal(fill, &bytes); err != nil {
				return c, fmt.Errorf("raw fill value %s: %w", fill, err)
			}
			name = fmt.Sprintf("r%d", 8*len(bytes))
		}
		dt, _ = json.Marshal(name)
	}
	codecs := `[{"name": "bytes", "configuration": {"endian": "little"}}]`
	switch kind {
	case "string":
		codecs = `[{"name": "vlen-utf8"}]`
	case "bytes":
		codecs = `[{"name": "vlen-bytes"}]`
	}
	doc := fmt.Sprintf(`{"zarr_format": 3, "node_type": "array", "shape": [5], "data_type": %s,
  "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
  "chunk_key_encoding": {"name": "default"}, "fill_value": %s, "codecs": %s}`, dt, fill, codecs)
	c.files = map[string][]byte{"zarr.json": []byte(doc)}
	c.array = atRoot()
	return c, arrayFields([]byte(doc), &c)
}
