package meta

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// v2Docs is what .zmetadata holds for one path.
type v2Docs struct {
	zarray, zgroup, zattrs json.RawMessage
}

// ParseV2Consolidated parses a .zmetadata document (zarr_consolidated_format
// 1). Its "a/b/.zarray", "a/b/.zgroup" and "a/b/.zattrs" entries are paired
// up by path into Arrays and Groups; the consolidating node's own entries
// (".zgroup", ".zattrs") are keyed "". Other keys are ignored, and so is a
// .zattrs without a node document.
func ParseV2Consolidated(doc []byte) (*Consolidated, error) {
	c, err := parseV2Consolidated(doc)
	if err != nil {
		return nil, fmt.Errorf(".zmetadata: %w", err)
	}
	return c, nil
}

func parseV2Consolidated(doc []byte) (*Consolidated, error) {
	f, err := decodeObject(lenient(asciiJSON(doc))) // as in ParseV2Array
	if err != nil {
		return nil, err
	}
	raw, ok := f["zarr_consolidated_format"]
	if !ok {
		return nil, errors.New("missing zarr_consolidated_format")
	}
	if n, err := parseInt(raw); err != nil || n != 1 {
		return nil, fmt.Errorf("zarr_consolidated_format: unsupported value %s (want 1)", abbreviate(raw))
	}
	metaRaw, ok := f["metadata"]
	if !ok {
		return nil, errors.New("missing metadata")
	}
	entries, err := decodeObject(metaRaw)
	if err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	byPath := groupV2Entries(entries)
	c := &Consolidated{Arrays: map[string]*ArrayMeta{}, Groups: map[string]*GroupMeta{}}
	for _, p := range sortedPaths(byPath) {
		if err := addV2Node(c, p, byPath[p]); err != nil {
			return nil, fmt.Errorf("metadata %q: %w", p, err)
		}
	}
	return c, nil
}

func groupV2Entries(entries fields) map[string]*v2Docs {
	byPath := map[string]*v2Docs{}
	for key, val := range entries {
		dir, base := "", key
		if i := strings.LastIndexByte(key, '/'); i >= 0 {
			dir, base = key[:i], key[i+1:]
		}
		d := byPath[dir]
		if d == nil {
			d = &v2Docs{}
		}
		switch base {
		case ".zarray":
			d.zarray = val
		case ".zgroup":
			d.zgroup = val
		case ".zattrs":
			d.zattrs = val
		default:
			continue
		}
		byPath[dir] = d
	}
	return byPath
}

func sortedPaths(m map[string]*v2Docs) []string {
	paths := make([]string, 0, len(m))
	for p := range m {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths
}

func addV2Node(c *Consolidated, p string, d *v2Docs) error {
	if d.zarray == nil && d.zgroup == nil {
		return nil // attributes of a node that is not there
	}
	if p != "" {
		if err := validateRelPath(p); err != nil {
			return err
		}
	}
	if d.zarray != nil && d.zgroup != nil {
		return errors.New("both .zarray and .zgroup")
	}
	var attrs []byte
	if d.zattrs != nil {
		attrs = d.zattrs
	}
	if d.zarray != nil {
		a, err := ParseV2Array(d.zarray, attrs)
		if err != nil {
			return err
		}
		c.Arrays[p] = a
		return nil
	}
	g, err := ParseV2Group(d.zgroup, attrs)
	if err != nil {
		return err
	}
	c.Groups[p] = g
	return nil
}

// MarshalV2Consolidated writes a .zmetadata document for root (the
// consolidating group, written as ".zgroup" and ".zattrs") and the nodes
// below it in c. An entry of c keyed "" stands for root when root is nil.
// Every node gets its .zattrs entry, like zarr-python 3. Keys are sorted,
// indented by 4 and non-ASCII characters escaped, as zarr-python 2 writes.
func MarshalV2Consolidated(root *GroupMeta, c *Consolidated) ([]byte, error) {
	entries := map[string]json.RawMessage{}
	if root != nil {
		if err := addGroupEntries(entries, "", root); err != nil {
			return nil, err
		}
	}
	if c != nil {
		if err := addConsolidatedEntries(entries, root != nil, c); err != nil {
			return nil, err
		}
	}
	doc, err := marshalNoHTML(map[string]any{
		"metadata":                 entries,
		"zarr_consolidated_format": 1,
	})
	if err != nil {
		return nil, err
	}
	return indent(asciiJSON(doc), "    ")
}

func addConsolidatedEntries(entries map[string]json.RawMessage, haveRoot bool, c *Consolidated) error {
	for p, a := range c.Arrays {
		if a == nil || (p == "" && haveRoot) {
			continue
		}
		zarray, err := a.zarrayCompact()
		if err != nil {
			return fmt.Errorf("%q: %w", p, err)
		}
		attrs, err := a.v2Attributes()
		if err != nil {
			return fmt.Errorf("%q: %w", p, err)
		}
		entries[entryKey(p, ".zarray")] = zarray
		entries[entryKey(p, ".zattrs")] = attrs
	}
	for p, g := range c.Groups {
		if g == nil || (p == "" && haveRoot) || c.Arrays[p] != nil {
			continue
		}
		if err := addGroupEntries(entries, p, g); err != nil {
			return err
		}
	}
	return nil
}

func addGroupEntries(entries map[string]json.RawMessage, p string, g *GroupMeta) error {
	attrs, err := attributesOrEmpty(g.Attributes)
	if err != nil {
		return fmt.Errorf("%q: %w", p, err)
	}
	entries[entryKey(p, ".zgroup")] = json.RawMessage(`{"zarr_format":2}`)
	entries[entryKey(p, ".zattrs")] = attrs
	return nil
}

func entryKey(p, base string) string {
	if p == "" {
		return base
	}
	return p + "/" + base
}
