package transfer

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/host/commands/transfer/report"
)

// mergeNodes decides what a merge writes for each node the copy writes
// that the destination holds already (in any format): the copy's
// metadata with the attributes of both (the copy's win where both name
// one). It also notes whether consolidated metadata at the copied node
// must be rebuilt.
func (p *Plan) mergeNodes(ctx context.Context, dst Endpoint, held map[string]bool) error {
	var paths []string
	for n := range p.writtenNodes() {
		if held[n] {
			paths = append(paths, n)
		}
	}
	sort.Strings(paths)
	for _, path := range paths {
		if err := p.mergeNode(ctx, dst, path); err != nil {
			return err
		}
	}
	have, err := openNode(ctx, dst, p.Path)
	if err != nil {
		return err
	}
	// both sides' members are the merged group's: what either side had
	// consolidated must list them all
	dstConsolidated := have != nil && have.Group != nil && have.Group.Consolidated != nil
	srcConsolidated := p.Mode == report.ModeCopy && p.root != nil && p.root.Group != nil && p.root.Group.Consolidated != nil
	p.mergeConsolidated = dstConsolidated || srcConsolidated
	return nil
}

// writtenNodes are the paths of the nodes the copy writes metadata for.
func (p *Plan) writtenNodes() map[string]bool {
	out := map[string]bool{}
	for _, n := range p.nodes {
		out[n.out.Path] = true
	}
	for _, key := range p.keys {
		if isMetadataKey(key) {
			out[nodeOfDoc(key)] = true
		}
	}
	return out
}

// mergeNode merges the metadata of the node at path.
func (p *Plan) mergeNode(ctx context.Context, dst Endpoint, path string) error {
	have, err := openNode(ctx, dst, path)
	if err != nil || have == nil {
		return err // documents of no node: the copy's replace them
	}
	want, err := p.wantNode(ctx, path)
	if err != nil || want == nil {
		return err
	}
	docs, reason, err := mergedDocs(*have, *want)
	if err != nil {
		return fmt.Errorf("--merge: /%s: %w", path, err)
	}
	if reason != "" {
		return &MergeError{Destination: dst.Name, Node: path, Reason: reason}
	}
	p.setNodeDocs(path, docs)
	p.Target.Merged = append(p.Target.Merged, "/"+path)
	return nil
}

// wantNode is the node at path as the copy writes it.
func (p *Plan) wantNode(ctx context.Context, path string) (*hierarchy.Node, error) {
	for _, n := range p.nodes {
		if n.out.Path == path {
			return &n.out, nil
		}
	}
	if p.Mode == report.ModeRewrite {
		return nil, nil
	}
	return openNode(ctx, p.src, path)
}

// mergedDocs are the documents of want with the attributes of have and
// want merged, or the reason the two cannot be merged.
func mergedDocs(have, want hierarchy.Node) (docs []array.Doc, reason string, err error) {
	switch {
	case have.Format() != want.Format():
		return nil, fmt.Sprintf("it is %s there, %s in the copy", have.Format(), want.Format()), nil
	case (have.Array != nil) != (want.Array != nil):
		return nil, fmt.Sprintf("it is %s there, %s in the copy", kind(have), kind(want)), nil
	case want.Format() == meta.V3Draft:
		return nil, "draft v3 metadata cannot be written", nil
	}
	attrs, err := mergeAttributes(have.Attributes(), want.Attributes())
	if err != nil {
		return nil, "", err
	}
	if want.Group != nil {
		g := *want.Group
		g.Attributes, g.Consolidated = attrs, nil // rebuilt at the end if either side had it
		docs, err = hierarchy.GroupDocs(&g, want.Path)
		return docs, "", err
	}
	if same, err := sameLayout(have.Array, want.Array, want.Path); err != nil || !same {
		return nil, "two arrays of other shapes, data types, chunks or codecs: their chunks would mix", err
	}
	m := *want.Array
	m.Attributes = attrs
	docs, err = array.MetadataDocs(&m, want.Path)
	return docs, "", err
}

func kind(n hierarchy.Node) string {
	if n.Array != nil {
		return "an array"
	}
	return "a group"
}

// sameLayout reports two arrays that differ at most in attributes.
func sameLayout(a, b *meta.ArrayMeta, path string) (bool, error) {
	render := func(m *meta.ArrayMeta) ([]array.Doc, error) {
		c := *m
		c.Attributes = json.RawMessage("{}")
		return array.MetadataDocs(&c, path)
	}
	da, err := render(a)
	if err != nil {
		return false, err
	}
	db, err := render(b)
	if err != nil || len(da) != len(db) {
		return false, err
	}
	for i := range da {
		if da[i].Key != db[i].Key || !sameDoc(da[i].Value, db[i].Value) {
			return false, nil
		}
	}
	return true, nil
}

// mergeAttributes is have's attributes with want's added over them.
func mergeAttributes(have, want json.RawMessage) (json.RawMessage, error) {
	merged := map[string]json.RawMessage{}
	for _, attrs := range []json.RawMessage{have, want} {
		if len(attrs) == 0 {
			continue
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(attrs, &m); err != nil {
			return nil, fmt.Errorf("attributes: %w", err)
		}
		for k, v := range m {
			merged[k] = v
		}
	}
	return json.Marshal(merged) // keys sorted: the same merge writes the same bytes
}

// setNodeDocs makes docs the documents written for the node at path.
func (p *Plan) setNodeDocs(path string, docs []array.Doc) {
	for _, n := range p.nodes {
		if n.out.Path == path {
			for _, d := range n.docs {
				delete(p.docs, d.Key)
			}
			n.docs = docs
		}
	}
	for _, d := range docs {
		p.docs[d.Key] = d.Value
		if p.Mode == report.ModeCopy && !p.writes(d.Key) {
			i := sort.SearchStrings(p.keys, d.Key)
			p.keys = append(p.keys[:i], append([]string{d.Key}, p.keys[i:]...)...)
		}
	}
}
