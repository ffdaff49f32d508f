package transfer

import (
	"context"
	"fmt"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/commands/transfer/report"
)

// SlabEntry begins the journal entries of the slabs an older version
// rewrote arrays in (slab by slab, each slab a partial write of the
// chunks it crossed). A rewrite now writes whole chunks and records them
// as chunks: it ignores slab entries, and copies the chunks the slabs
// wrote again, whole, which is never wrong, as every chunk is then
// written from the source alone. The documents such a run recorded stand.
const SlabEntry = "s "

// rewrite makes a rewrite, or a partition's part of it, chunk by chunk
// of the new grid (see rewriteShare).
func (p *Plan) rewrite(ctx context.Context, src, dst Endpoint, opts Options) (Summary, error) {
	sh := p.share
	if sh == nil {
		var err error
		if sh, err = p.whole(ctx); err != nil {
			return Summary{}, err
		}
	}
	return p.rewriteShare(ctx, src, dst, opts, sh)
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
