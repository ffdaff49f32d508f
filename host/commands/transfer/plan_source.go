package transfer

import (
	"context"
	"errors"
	"fmt"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/host/commands/transfer/layout"
)

// planCopy lists the keys a byte copy copies and finds the node at Path
// (needed above it and for consolidation). A --path must name a node: a
// prefix holding none would leave keys no hierarchy reaches.
func (p *Plan) planCopy(ctx context.Context, _ Endpoint) error {
	keys, err := listKeys(ctx, p.src, p.Path)
	if err != nil {
		return err
	}
	p.keys = keys
	root, err := openNode(ctx, p.src, p.Path)
	switch {
	case err != nil && p.Path != "":
		return err
	case err != nil:
		// a directory whose root document is damaged is still copied as it is
		p.Notes = append(p.Notes, fmt.Sprintf("the root metadata cannot be read (%v); its keys are copied as they are", err))
	case root == nil && p.Path != "":
		return fmt.Errorf("%s: no array or group at /%s (--path names a node of the hierarchy)", p.src.Name, p.Path)
	}
	p.root = root
	return nil
}

// maxReported bounds the arrays a refused rewrite names.
const maxReported = 5

// planRewrite reads every node below Path and builds what each becomes,
// so that an array that cannot be converted (a data type with no v3 form,
// a shape that does not divide, a codec that does not exist) is found
// before anything is written, with every such array named.
func (p *Plan) planRewrite(ctx context.Context, dst Endpoint) error {
	root, err := hierarchy.Open(ctx, p.src.Store, p.Path)
	if err != nil {
		return fmt.Errorf("%s: %w", p.src.Name, err)
	}
	p.root = &root
	if root.Array != nil && p.Path == "" && p.opts.Consolidate {
		return fmt.Errorf("--consolidate: the root of %s is an array, not a group", p.src.Name)
	}
	var errs []error
	failed := 0
	err = hierarchy.Walk(ctx, p.src.Store, root, func(n hierarchy.Node) error {
		o, err := p.outNode(ctx, n, dst)
		if err != nil {
			if failed++; failed <= maxReported {
				errs = append(errs, err)
			}
			return nil
		}
		p.nodes = append(p.nodes, o)
		for _, d := range o.docs {
			p.docs[d.Key] = d.Value
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", p.src.Name, err)
	}
	if failed > maxReported {
		errs = append(errs, fmt.Errorf("and %d more arrays", failed-maxReported))
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s: nothing was written, as %d of its nodes cannot be rewritten so:\n%w", p.src.Name, failed, errors.Join(errs...))
	}
	return nil
}

// outNode is what n becomes: groups in the output format, arrays in
// their new layout, opened on an empty store with the destination's
// codecs so that every codec is known to exist and be configured right.
func (p *Plan) outNode(ctx context.Context, n hierarchy.Node, dst Endpoint) (*outNode, error) {
	if n.Group != nil {
		g := layout.Group(n.Group, p.opts.ToFormat)
		docs, err := hierarchy.GroupDocs(g, n.Path)
		if err != nil {
			return nil, fmt.Errorf("group %s: %w", n.Name(), err)
		}
		return &outNode{src: n, out: hierarchy.Node{Path: n.Path, Group: g}, docs: docs}, nil
	}
	m, err := layout.New(ctx, n.Array, p.opts.Spec, p.src.Options.Codecs)
	if err != nil {
		return nil, fmt.Errorf("array %s: %w", n.Name(), err)
	}
	opts := dst.Options
	if opts.Codecs == nil {
		opts = p.src.Options
	}
	// one chunk of fill values through the new codec chain and back: a
	// chain that cannot store this array's chunks is refused now, before
	// any metadata document says they are there. One that gives back
	// other values is refused only when --codecs chose it: the source's
	// own chain loses its fill value in the source already
	err = array.Probe(ctx, n.Path, m, opts, probeBytes(p.opts.Stream))
	if err != nil && (p.opts.Codecs != nil || !errors.Is(err, codec.ErrFillChanged)) {
		return nil, fmt.Errorf("the new layout of %w", err)
	}
	docs, err := array.MetadataDocs(m, n.Path)
	if err != nil {
		return nil, fmt.Errorf("array %s: %w", n.Name(), err)
	}
	return &outNode{src: n, out: hierarchy.Node{Path: n.Path, Array: m}, docs: docs}, nil
}

// probeBytes bounds the chunk a probe of a new layout encodes: half the
// copy's memory budget, at most codec.DefaultProbeBytes.
func probeBytes(o array.StreamOptions) int64 {
	if o.MemoryBudget > 0 {
		return max(min(o.MemoryBudget/2, codec.DefaultProbeBytes), 1)
	}
	return codec.DefaultProbeBytes
}
