package meta

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

func parseV3Group(f fields) (*GroupMeta, error) {
	g := &GroupMeta{Format: V3}
	raw, ok := f.take("attributes")
	var err error
	if g.Attributes, err = parseAttributes(raw, ok); err != nil {
		return nil, err
	}
	if raw, ok := f.takeNonNull("consolidated_metadata"); ok {
		c, keep, err := parseInlineConsolidated(raw)
		if err != nil {
			return nil, fmt.Errorf("consolidated_metadata: %w", err)
		}
		g.Consolidated = c
		if keep {
			f["consolidated_metadata"] = raw // unknown kind: kept as an extra
		}
	}
	if g.Extra, err = f.extras(); err != nil {
		return nil, err
	}
	return g, nil
}

// parseInlineConsolidated reads zarr-python's inline consolidated metadata:
// {"kind": "inline", "must_understand": false, "metadata": {path: doc}}
// with a flat map of relative paths to complete zarr.json documents. Any
// other kind is not understood; keep reports that it should be kept as an
// unknown must_understand:false field.
func parseInlineConsolidated(raw json.RawMessage) (c *Consolidated, keep bool, err error) {
	f, err := decodeObject(raw)
	if err != nil {
		return nil, false, err
	}
	kindRaw, _ := f.take("kind")
	if kind, err := parseString(kindRaw); err != nil || kind != "inline" {
		return nil, true, nil
	}
	f.take("must_understand")
	metaRaw, _ := f.takeNonNull("metadata")
	if len(f) > 0 {
		return nil, false, fmt.Errorf("unknown field %q", f.sortedKeys()[0])
	}
	c = &Consolidated{Arrays: map[string]*ArrayMeta{}, Groups: map[string]*GroupMeta{}}
	if metaRaw == nil {
		return c, false, nil
	}
	docs, err := decodeObject(metaRaw)
	if err != nil {
		return nil, false, fmt.Errorf("metadata: %w", err)
	}
	for _, p := range docs.sortedKeys() {
		if err := addConsolidatedV3(c, p, docs[p]); err != nil {
			return nil, false, fmt.Errorf("metadata %q: %w", p, err)
		}
	}
	return c, false, nil
}

func addConsolidatedV3(c *Consolidated, p string, doc json.RawMessage) error {
	if err := validateRelPath(p); err != nil {
		return err
	}
	a, g, err := parseV3(doc)
	if err != nil {
		return err
	}
	if a != nil {
		c.Arrays[p] = a
	} else {
		c.Groups[p] = g
	}
	return nil
}

// validateRelPath checks a node path relative to a group ("a/b"): no
// leading or trailing slash, no empty, "." or ".." segments (which could
// escape the group). It is deliberately laxer than ValidateNodeName so that
// hierarchies with non-recommended names still open.
func validateRelPath(p string) error {
	if p == "" {
		return errors.New("empty path")
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("invalid path %q", p)
		}
	}
	return nil
}

// marshalInlineConsolidated writes consolidated metadata the way
// zarr-python does, members ordered by depth, then path.
func marshalInlineConsolidated(c *Consolidated) ([]byte, error) {
	docs := newObject()
	for _, p := range consolidatedPaths(c) {
		if err := validateRelPath(p); err != nil {
			return nil, fmt.Errorf("metadata: %w", err)
		}
		var doc []byte
		var err error
		if a := c.Arrays[p]; a != nil {
			doc, err = a.marshalV3Compact()
		} else {
			doc, err = c.Groups[p].marshalV3Compact()
		}
		if err != nil {
			return nil, fmt.Errorf("metadata %q: %w", p, err)
		}
		docs.add(p, doc)
	}
	o := newObject()
	o.add("kind", quote("inline"))
	o.add("must_understand", []byte("false"))
	o.add("metadata", docs.bytes())
	return o.bytes(), nil
}

func consolidatedPaths(c *Consolidated) []string {
	// "" is the consolidating group itself (ParseV2Consolidated keys the
	// root so): it is the document being written, not a member.
	var paths []string
	for p, a := range c.Arrays {
		if a != nil && p != "" {
			paths = append(paths, p)
		}
	}
	for p, g := range c.Groups {
		if g != nil && p != "" && c.Arrays[p] == nil {
			paths = append(paths, p)
		}
	}
	sort.Slice(paths, func(i, j int) bool {
		di, dj := strings.Count(paths[i], "/"), strings.Count(paths[j], "/")
		if di != dj {
			return di < dj
		}
		return paths[i] < paths[j]
	})
	return paths
}
