package transfer

import (
	"context"
	"fmt"
	"strconv"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/commands/transfer/report"
)

// rewrite copies the plan's nodes through the engine, parents first:
// groups get their metadata (converted), arrays are created with their
// new layout and filled slab by slab from the source. An array that
// fails is counted and the next one copied, unless the failure is the
// store's own (a StoreFault) or the copy was stopped: then nothing more
// is tried.
func (p *Plan) rewrite(ctx context.Context, src, dst Endpoint, opts Options) (Summary, error) {
	var total int64
	for _, n := range p.nodes {
		if n.out.Array != nil {
			total += int64(ndarray.NumElements(n.out.Array.Shape))
		}
	}
	var s Summary
	progress := opts.progress()
	progress.Start("elements", total)
	defer progress.Finish()
	for _, n := range p.nodes {
		if err := ctx.Err(); err != nil {
			return s, err
		}
		err := p.rewriteNode(ctx, src, dst, n, opts, &s)
		if err != nil {
			if err := s.failure(ctx, err); err != nil {
				return s, err
			}
		}
	}
	return s, nil
}

// rewriteNode writes a group's metadata, or an array's chunks and then
// its metadata: an array whose copy failed is left without metadata, so
// that no reader takes the chunks it lacks for fill values (a rerun
// resumes it, and writes the metadata once every chunk is there).
func (p *Plan) rewriteNode(ctx context.Context, src, dst Endpoint, n *outNode, opts Options, s *Summary) error {
	if n.out.Group != nil {
		return writeDocs(ctx, dst, "g "+n.out.Path, opts, s, n.docs)
	}
	from, err := array.New(ctx, src.Store, n.src.Path, n.src.Array, src.Options)
	if err != nil {
		return fmt.Errorf("%s: %w", src.Name, err)
	}
	to, err := array.New(ctx, dst.Store, n.out.Path, n.out.Array, dst.Options)
	if err != nil {
		return fmt.Errorf("%s: %w", dst.Name, err)
	}
	if err := copyArray(ctx, from, to, opts, s); err != nil {
		return withheld(n, err)
	}
	if err := writeDocs(ctx, dst, "m "+n.out.Path, opts, s, n.docs); err != nil {
		return fmt.Errorf("array %s: %w", n.out.Name(), err)
	}
	return nil
}

// withheld says that an array's metadata was not written, as its copy
// failed with err.
func withheld(n *outNode, err error) error {
	return fmt.Errorf("%w (array %s is left without metadata until a rerun completes its copy)", err, n.out.Name())
}

// copyArray fills to from from, skipping the slabs the journal has.
func copyArray(ctx context.Context, from, to *array.Array, opts Options, s *Summary) error {
	elem := int64(max(to.Meta().DataType.Size, 1))
	slabKey := func(i int) string { return "s " + to.Path() + " " + strconv.Itoa(i) }
	co := array.CopyOptions{
		Stream: opts.Stream,
		Done: func(i int, n int64) error {
			s.Copied++
			s.Bytes += n * elem
			opts.progress().Add(n, n*elem)
			if opts.Journal != nil {
				return opts.Journal.Record(slabKey(i), strconv.FormatInt(n, 10))
			}
			return nil
		},
	}
	if opts.Journal != nil {
		co.Skip = func(i int) bool {
			d, ok := opts.Journal.Done(slabKey(i))
			if ok {
				s.Skipped++
				n, _ := strconv.ParseInt(d, 10, 64)
				opts.progress().Add(n, 0)
			}
			return ok
		}
	}
	return to.CopyFrom(ctx, from, co)
}

func (o Options) progress() report.Progress {
	if o.Progress == nil {
		return report.NewProgress(nil, false, true)
	}
	return o.Progress
}

// writeDocs stores metadata documents, once per copy (the journal says
// whether an earlier run did).
func writeDocs(ctx context.Context, dst Endpoint, entry string, opts Options, s *Summary, docs []array.Doc) error {
	if opts.Journal != nil {
		if _, ok := opts.Journal.Done(entry); ok {
			s.Skipped++
			return nil
		}
	}
	for _, d := range docs {
		if _, err := dst.Store.Set(ctx, d.Key, d.Value, store.Condition{}); err != nil {
			return fmt.Errorf("%s: write %s: %w", dst.Name, d.Key, err)
		}
	}
	s.Copied++
	if opts.Journal != nil {
		return opts.Journal.Record(entry, "-")
	}
	return nil
}
