package transfer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/host/commands/transfer/journal"
	"github.com/zarrgw/zarrgw/host/commands/transfer/report"
)

// Plan is what a copy will do, found out before it writes anything: the
// source is listed and read, every array's new layout is built and
// checked, and the destination is examined. Its report is what a dry run
// prints (zarrgw cp --dry-run --json).
type Plan struct {
	report.Plan

	src   Endpoint
	opts  Options
	scope string          // the key prefix of the copied node
	root  *hierarchy.Node // the node at Path in the source; nil when there is none (a directory of hierarchies)
	// keys are the keys a byte copy writes, sorted: the source's, and
	// those of merged metadata.
	keys []string
	// nodes are a rewrite's nodes, parents first, each with what it
	// becomes.
	nodes []*outNode
	// docs are metadata documents written as given rather than copied:
	// every rewritten node's, and those of nodes merged.
	docs map[string][]byte
	// ancestors are the group documents created above Path.
	ancestors []array.Doc
	// erase: Overwrite found other data, removed before the copy.
	erase bool
	// consolidate: where metadata is consolidated at the end (nil: not).
	consolidate *string
	// mergeConsolidated: a merge into a group whose metadata the
	// destination or the source had consolidated.
	mergeConsolidated bool
	// sz are the source's sizes once listed (sized), nil when it
	// cannot list them.
	sz    sizes
	sized bool
	// objs are the destination objects partitions are cut from, once
	// listed.
	objs *objects
	// share is what this partition writes (--partition); nil for the
	// whole copy.
	share *share
}

// outNode is a node of the source and what a rewrite writes for it.
type outNode struct {
	src  hierarchy.Node
	out  hierarchy.Node // the node as written: its new layout, its converted format
	docs []array.Doc
}

// Prepare plans the copy of src to dst, as opts say, and writes nothing.
// It fails on an option that cannot apply, a source that cannot be read,
// an array that cannot be converted, and a destination holding data this
// copy would not write (a ForeignError) unless opts.Existing allows it.
// A dst with no Store stands for a destination that does not exist yet.
func Prepare(ctx context.Context, src, dst Endpoint, opts Options) (*Plan, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	path, _ := hierarchy.CleanPath(opts.Path)
	opts.Path = path
	p := &Plan{Plan: report.Plan{Source: src.Name, Destination: dst.Name, Path: path, Mode: report.ModeCopy}, src: src, opts: opts,
		scope: keyPrefix(path), docs: map[string][]byte{}}
	plan := p.planCopy
	if opts.Rewrites() {
		p.Mode, plan = report.ModeRewrite, p.planRewrite
	}
	if err := plan(ctx, dst); err != nil {
		return nil, err
	}
	if err := p.checkDestination(ctx, dst); err != nil {
		return nil, err
	}
	if err := p.planConsolidation(); err != nil {
		return nil, err
	}
	if opts.Partition.set() {
		sh, err := p.shareOf(ctx, opts.Partition)
		if err != nil {
			return nil, err
		}
		p.share = sh
		part := sh.plan(p.objs, opts.DryRun) // the keys only for a dry run's report
		p.Partition = &part
	}
	if opts.DryRun {
		if err := p.measure(ctx); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// rootFormat is the format the node at Path is written in.
func (p *Plan) rootFormat() meta.Format {
	if len(p.nodes) > 0 {
		return p.nodes[0].out.Format()
	}
	return p.root.Format()
}

// rootIsGroup reports whether the copied node is a group.
func (p *Plan) rootIsGroup() bool {
	if len(p.nodes) > 0 {
		return p.nodes[0].out.Group != nil
	}
	return p.root != nil && p.root.Group != nil
}

// planConsolidation decides where metadata is consolidated at the end:
// with --consolidate, at the group copied (or, for an array, at the
// root above it); after a merge into a group whose metadata either side
// had consolidated, there, as it must then list the members of both.
func (p *Plan) planConsolidation() error {
	if !p.opts.Consolidate && !p.mergeConsolidated {
		return nil
	}
	at := p.Path
	switch {
	case p.rootIsGroup():
	case p.Path != "":
		at = "" // an array copied alone: the root above it
	case p.opts.Consolidate:
		return fmt.Errorf("--consolidate: %s has no group at / to consolidate", p.Source)
	}
	p.consolidate = &at
	return nil
}

// Run carries the plan out into dst: the destination Prepare examined,
// or, when Prepare was given one that did not exist, the one made since.
func (p *Plan) Run(ctx context.Context, dst Endpoint) (Summary, error) {
	start := time.Now()
	src, opts := p.src, p.opts
	if opts.Jobs == 0 && (src.Remote || dst.Remote) {
		opts.Jobs = remoteJobs
	}
	src.Store, dst.Store = watchFaults(src.Store), watchFaults(dst.Store)
	var s Summary
	var err error
	if p.erase {
		if err = dst.Store.ErasePrefix(ctx, p.scope); err != nil {
			return s, fmt.Errorf("%s: --overwrite: erase %q: %w", dst.Name, p.scope, err)
		}
	}
	switch {
	case p.Mode == report.ModeRewrite:
		s, err = p.rewrite(ctx, src, dst, opts)
	case p.share != nil:
		s, err = p.copyKeys(ctx, src, dst, opts, p.shareKeys(p.share))
	default:
		s, err = p.copyKeys(ctx, src, dst, opts, p.keys)
	}
	s.Took = time.Since(start)
	if isFault(err) {
		err = fmt.Errorf("copy stopped, as every other key would fail the same way (a rerun resumes): %w", err)
	}
	if err == nil && s.Failed > 0 {
		err = fmt.Errorf("%w: %d failed", ErrFailed, s.Failed)
	}
	if err == nil && (p.share == nil || p.share.metadata) {
		// a partition's documents are partition 0's: it ends them
		err = p.finish(ctx, dst)
	}
	if err == nil && opts.Journal != nil {
		err = opts.Journal.Finish()
	}
	return s, err
}

// finish gives a node copied alone the groups above it and consolidates
// metadata where the plan says.
func (p *Plan) finish(ctx context.Context, dst Endpoint) error {
	if len(p.ancestors) > 0 {
		if err := hierarchy.EnsureAncestors(ctx, dst.Store, p.Path, p.rootFormat()); err != nil {
			return fmt.Errorf("%s: the groups above /%s: %w", dst.Name, p.Path, err)
		}
	}
	if p.consolidate == nil {
		return nil
	}
	if err := hierarchy.Consolidate(ctx, dst.Store, *p.consolidate); err != nil {
		return fmt.Errorf("%s: consolidate /%s: %w", dst.Name, *p.consolidate, err)
	}
	return nil
}

// openNode returns the node at path in e, nil when there is none.
func openNode(ctx context.Context, e Endpoint, path string) (*hierarchy.Node, error) {
	n, err := hierarchy.Open(ctx, e.Store, path)
	if errors.Is(err, hierarchy.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: /%s: %w", e.Name, path, err)
	}
	return &n, nil
}

// ancestorsOf lists the paths above path, the root first.
func ancestorsOf(path string) []string {
	if path == "" {
		return nil
	}
	parts := strings.Split(path, "/")
	out := make([]string, 0, len(parts))
	for i := range parts {
		out = append(out, strings.Join(parts[:i], "/"))
	}
	return out
}

// ErasesDestination reports a plan that erases what the destination
// holds first (--overwrite over other data): nothing an earlier run
// recorded in its journal then stands.
func (p *Plan) ErasesDestination() bool { return p.erase }

// SetJournal gives the copy its journal: opened once the plan has said
// whether what an earlier run recorded still stands (not after
// --overwrite erased it).
func (p *Plan) SetJournal(j *journal.Journal) { p.opts.Journal = j }

// SetProgress gives the copy what it reports its progress to.
func (p *Plan) SetProgress(pr report.Progress) { p.opts.Progress = pr }
