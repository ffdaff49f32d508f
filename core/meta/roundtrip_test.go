package meta

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// normalizeDoc decodes a metadata document for semantic comparison:
// numbers by value, and the fields whose absence means the same as their
// default value removed (attributes {}, storage_transformers [],
// dimension_names null, consolidated_metadata null).
func normalizeDoc(t *testing.T, doc []byte) map[string]any {
	t.Helper()
	var v any
	if err := decodeNumbers(lenient(doc), &v); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, doc)
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("not an object: %s", doc)
	}
	defaults := map[string]string{
		"attributes": "{}", "storage_transformers": "[]",
		"dimension_names": "null", "consolidated_metadata": "null",
	}
	for k, def := range defaults {
		if val, ok := m[k]; ok {
			b, _ := json.Marshal(val)
			if string(b) == def {
				delete(m, k)
			}
		}
	}
	return m
}

func assertSameDoc(t *testing.T, got, want []byte) {
	t.Helper()
	if !deepEqualJSON(normalizeDoc(t, got), normalizeDoc(t, want)) {
		t.Errorf("documents differ\n got: %s\nwant: %s", got, want)
	}
}

// Every fixture zarr.json survives parse -> MarshalV3 with every field
// intact, and parsing the output gives the same metadata again.
func TestFixtureV3RoundTrip(t *testing.T) {
	dir := fixturesDir(t)
	for _, p := range metadataFiles(t, dir)["zarr.json"] {
		t.Run(rel(dir, p), func(t *testing.T) {
			doc := readFile(t, p)
			a, g, err := ParseV3(doc)
			if err != nil {
				t.Fatal(err)
			}
			out, err := marshalNode(a, g)
			if err != nil {
				t.Fatal(err)
			}
			assertSameDoc(t, out, doc)
			a2, g2, err := ParseV3(out)
			if err != nil {
				t.Fatalf("reparse: %v\n%s", err, out)
			}
			if !reflect.DeepEqual(a, a2) || !reflect.DeepEqual(g, g2) {
				t.Errorf("reparsed metadata differs:\n%+v\n%+v", a, a2)
			}
			if strings.Contains(string(out), "\n") && !strings.HasPrefix(string(out), "{\n  \"") {
				t.Errorf("not indented by 2: %.40s", out)
			}
		})
	}
}

func marshalNode(a *ArrayMeta, g *GroupMeta) ([]byte, error) {
	if a != nil {
		return a.MarshalV3()
	}
	return g.MarshalV3()
}

func rel(dir, p string) string {
	r, err := filepath.Rel(dir, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}

// Every fixture .zarray survives parse -> MarshalV2 unchanged in meaning
// (including keys the spec does not define, like zarrs' node_type).
func TestFixtureV2ArrayRoundTrip(t *testing.T) {
	dir := fixturesDir(t)
	for _, p := range metadataFiles(t, dir)[".zarray"] {
		t.Run(rel(dir, p), func(t *testing.T) {
			doc := readFile(t, p)
			attrs := readOptional(t, filepath.Join(filepath.Dir(p), ".zattrs"))
			a, err := ParseV2Array(doc, attrs)
			if err != nil {
				t.Fatal(err)
			}
			zarray, zattrs, err := a.MarshalV2()
			if err != nil {
				t.Fatal(err)
			}
			assertSameDoc(t, zarray, doc)
			if attrs != nil {
				assertSameDoc(t, zattrs, attrs)
			}
			a2, err := ParseV2Array(zarray, zattrs)
			if err != nil {
				t.Fatalf("reparse: %v\n%s", err, zarray)
			}
			if !reflect.DeepEqual(a, a2) {
				t.Errorf("reparsed metadata differs:\n%+v\n%+v", a, a2)
			}
			if !strings.HasPrefix(string(zarray), "{\n    \"chunks\"") {
				t.Errorf("keys not sorted or not indented by 4: %.40s", zarray)
			}
		})
	}
}

// A v2 array can also be written as v3 (the derived chain) and read back.
func TestFixtureV2AsV3(t *testing.T) {
	dir := fixturesDir(t)
	for _, p := range metadataFiles(t, dir)[".zarray"] {
		a, err := ParseV2Array(readFile(t, p), nil)
		if err != nil {
			t.Fatal(err)
		}
		out, err := a.MarshalV3()
		if err != nil {
			t.Errorf("%s: %v", rel(dir, p), err)
			continue
		}
		b, _, err := ParseV3(out)
		if err != nil {
			t.Errorf("%s: reparse: %v\n%s", rel(dir, p), err, out)
			continue
		}
		if !reflect.DeepEqual(b.Codecs, a.Codecs) || !reflect.DeepEqual(b.Shape, a.Shape) || !b.DataType.Equal(a.DataType) {
			t.Errorf("%s: v3 form differs: %+v vs %+v", rel(dir, p), b, a)
		}
	}
}

func TestFixtureV2ConsolidatedRoundTrip(t *testing.T) {
	dir := fixturesDir(t)
	for _, p := range metadataFiles(t, dir)[".zmetadata"] {
		doc := readFile(t, p)
		c, err := ParseV2Consolidated(doc)
		if err != nil {
			t.Fatal(err)
		}
		root := c.Groups[""]
		if root == nil || !jsonEqual(root.Attributes, json.RawMessage(`{"answer":42}`)) {
			t.Fatalf("root group %+v", root)
		}
		checkV2Keys(t, c, doc)
		out, err := MarshalV2Consolidated(nil, c)
		if err != nil {
			t.Fatal(err)
		}
		c2, err := ParseV2Consolidated(out)
		if err != nil {
			t.Fatalf("reparse: %v", err)
		}
		if !reflect.DeepEqual(c, c2) {
			t.Errorf("reparsed consolidated metadata differs")
		}
		// The written entries are the original ones, plus a .zattrs {} for
		// the nodes that had none.
		var in, got struct{ Metadata map[string]json.RawMessage }
		_ = json.Unmarshal(doc, &in)
		_ = json.Unmarshal(out, &got)
		for k, v := range got.Metadata {
			if orig, ok := in.Metadata[k]; ok {
				assertSameDoc(t, v, orig)
			} else if !strings.HasSuffix(k, ".zattrs") || string(compact(v)) != "{}" {
				t.Errorf("unexpected entry %s: %s", k, v)
			}
		}
		if len(in.Metadata) > len(got.Metadata) {
			t.Errorf("entries lost: %d written, %d read", len(got.Metadata), len(in.Metadata))
		}
	}
}

// checkV2Keys checks that every .zarray/.zgroup entry became a node.
func checkV2Keys(t *testing.T, c *Consolidated, doc []byte) {
	t.Helper()
	var in struct{ Metadata map[string]json.RawMessage }
	if err := json.Unmarshal(doc, &in); err != nil {
		t.Fatal(err)
	}
	for k := range in.Metadata {
		dir := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(k, ".zarray"), ".zgroup"), "/")
		switch {
		case strings.HasSuffix(k, ".zarray") && c.Arrays[dir] == nil:
			t.Errorf("array %q missing", dir)
		case strings.HasSuffix(k, ".zgroup") && c.Groups[dir] == nil:
			t.Errorf("group %q missing", dir)
		}
	}
	if a := c.Arrays["3d.chunked.mixed.i2.F"]; a == nil || a.Codecs[0].Name != "transpose" {
		t.Errorf("order F array not derived with transpose: %+v", a)
	}
}
