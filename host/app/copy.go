package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mattn/go-isatty"

	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/size"
	"github.com/zarrgw/zarrgw/host/app/location"
	"github.com/zarrgw/zarrgw/host/commands/transfer"
	"github.com/zarrgw/zarrgw/host/commands/transfer/journal"
	"github.com/zarrgw/zarrgw/host/commands/transfer/report"
)

// CopyOptions are a copy as `zarrgw cp` states it: two locations, and the
// options as they were typed (shapes as "10,20", codecs as JSON), which
// Copy checks before it opens anything.
type CopyOptions struct {
	// Config is the configuration file whose datasets Source and
	// Destination name; "" when they are directories or URLs.
	Config              string
	Source, Destination string
	Path                string // the node copied; "" for the whole hierarchy

	// Rewrite options; with none given, keys are copied as they are.
	ToFormat                   int    // 0, 2 or 3
	Codecs                     string // a codec chain as zarr.json writes it
	Chunks, Shard, InnerChunks string // shapes, comma-separated
	ChunksPerShard             int

	Consolidate      bool
	Overwrite, Merge bool // what to do with a destination holding other data
	Jobs             int
	Memory           int64  // bytes of elements in flight; 0 for the default
	Partition        string // "I/N"; "" for the whole copy

	DryRun bool // print the plan, write nothing
	Verify bool // compare the destination with the copy, write nothing
	Fresh  bool // forget what an interrupted run completed

	// Output: JSON rather than text on Stdout; Quiet leaves out progress
	// on Stderr.
	JSON, Quiet    bool
	Stdout, Stderr io.Writer
}

// CopySummary is what a copy did.
type CopySummary = transfer.Summary

// ParseSize reads a size as --memory takes it: "64MiB", "1GB", "4096".
func ParseSize(s string) (int64, error) { return size.Parse(s) }

// Copy copies o.Source to o.Destination: it opens both sides, plans the
// copy, and prints the plan (a dry run) or makes the copy and prints its
// summary. The summary is nil when it stopped before copying began.
func Copy(ctx context.Context, set Set, o CopyOptions) (_ *CopySummary, err error) {
	opts, err := o.transferOptions()
	if err != nil {
		return nil, err
	}
	src, err := location.Resolve(ctx, set, o.Config, o.Source, o.Stderr)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	defer func() { err = src.Redact(err) }() // both sides are of one configuration
	dst, err := o.openDestination(ctx, set)
	if err != nil {
		return nil, err
	}
	defer dst.Close()
	srcEnd, dstEnd := endpoint(o.Source, src), endpoint(o.Destination, dst)
	if dst.Store == nil {
		dstEnd.Options = set.InProcess().ArrayOptions() // what the directory opens with, once made
	}
	plan, err := transfer.Prepare(ctx, srcEnd, dstEnd, opts)
	if err != nil || o.DryRun {
		if err == nil {
			err = o.printPlan(plan)
		}
		return nil, err
	}
	if dst.Store == nil {
		// checked and planned: only now is the directory made
		if dst, err = o.makeDestination(ctx, set); err != nil {
			return nil, err
		}
		defer dst.Close()
		dstEnd.Store, dstEnd.Options = dst.Store, dst.Options
	}
	return o.run(ctx, plan, dstEnd, opts, src.Redact)
}

// endpoint is a side of the copy, as transfer takes it.
func endpoint(loc string, t *location.Target) transfer.Endpoint {
	return transfer.Endpoint{Name: loc, Store: t.Store, Options: t.Options, Remote: location.Remote(loc)}
}

// run makes the copy the plan describes, with its journal, and prints its
// summary, each failure through redact.
func (o CopyOptions) run(ctx context.Context, plan *transfer.Plan, dst transfer.Endpoint, opts transfer.Options,
	redact func(error) error) (*CopySummary, error) {
	waiting := func(path string) {
		// said even when quiet: a run that seems to hang says why
		fmt.Fprintf(o.Stderr, "cp: another run of this copy holds its journal (%s): waiting for it to end, to go on from what it did\n", path)
	}
	// a destination erased first holds nothing the journal could vouch for
	fresh := o.Fresh || plan.ErasesDestination()
	j, err := journal.Resume(ctx, transfer.CopyID(o.Config, o.Source, o.Destination, opts), fresh, waiting)
	if err != nil {
		return nil, err // interrupted while waiting: the caller says so
	}
	if p := plan.Partition; p != nil && (!o.Quiet || p.Objects == 0) {
		// an empty part is said even when quiet: it is the run's result
		fmt.Fprintf(o.Stderr, "cp: %s\n", p.Describe())
	}
	defer j.Close()
	if n := j.Resumed(); n > 0 && !o.Quiet {
		fmt.Fprintf(o.Stderr, "cp: resuming: %d entries done before (%s)\n", n, j.Path())
	}
	if n := j.Count(transfer.SlabEntry); n > 0 {
		// said even when quiet: the rerun takes longer than the user expects
		fmt.Fprintf(o.Stderr, "cp: the journal holds %d slabs of a rewrite by an older zarrgw, which copied arrays slab by slab: "+
			"they are set aside, and the arrays' chunks are copied again whole\n", n)
	}
	plan.SetJournal(j)
	if opts.Rewrites() {
		budget := opts.Stream.MemoryBudget
		if budget <= 0 {
			budget = transfer.DefaultMemoryBudget
		}
		defer limitHeap(budget)()
	}
	plan.SetProgress(report.NewProgress(o.Stderr, isTerminal(o.Stderr), o.Quiet))
	s, err := plan.Run(ctx, dst)
	if err != nil && ctx.Err() != nil {
		return &s, err // interrupted: the caller says so
	}
	if err2 := o.printSummary(s, opts.Partition); err == nil {
		err = err2
	}
	for _, msg := range s.Failures {
		fmt.Fprintf(o.Stderr, "cp: %s\n", redact(errors.New(msg)))
	}
	return &s, err
}

func isTerminal(w io.Writer) bool {
	file, ok := w.(*os.File)
	return ok && isatty.IsTerminal(file.Fd())
}

// localDir reports a location that is a directory path (not a URL nor a
// dataset), and its path.
func (o CopyOptions) localDir(loc string) (string, bool) {
	if o.Config != "" {
		return "", false
	}
	if dir, ok := strings.CutPrefix(loc, "file://"); ok {
		return dir, true
	}
	return loc, !strings.Contains(loc, "://")
}

// openDestination opens the destination. A directory that does not exist
// yet is returned without a store: the copy is planned against an empty
// destination, and the directory made only once the plan stands.
func (o CopyOptions) openDestination(ctx context.Context, set Set) (*location.Target, error) {
	if dir, ok := o.localDir(o.Destination); ok {
		if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			return &location.Target{}, nil
		}
	}
	return location.Resolve(ctx, set, o.Config, o.Destination, o.Stderr)
}

// makeDestination makes the directory the destination names and opens it.
func (o CopyOptions) makeDestination(ctx context.Context, set Set) (*location.Target, error) {
	dir, _ := o.localDir(o.Destination)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("destination %q: %w", o.Destination, err)
	}
	return location.Resolve(ctx, set, o.Config, o.Destination, o.Stderr)
}

// checkLocations refuses, for directories, a copy onto itself or into
// itself: the destination would be (or hold) the source it reads.
func (o CopyOptions) checkLocations() error {
	src, srcOK := o.localDir(o.Source)
	dst, dstOK := o.localDir(o.Destination)
	if !srcOK || !dstOK {
		return nil
	}
	src, _ = filepath.Abs(src)
	dst, _ = filepath.Abs(dst)
	for _, pair := range [][2]string{{src, dst}, {dst, src}} {
		if rel, err := filepath.Rel(pair[0], pair[1]); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return fmt.Errorf("SRC %q and DST %q are the same directory, or one holds the other: copy into another directory", o.Source, o.Destination)
		}
	}
	return nil
}

// printPlan prints the dry run's plan.
func (o CopyOptions) printPlan(plan *transfer.Plan) error {
	if o.JSON {
		return plan.WriteJSON(o.Stdout)
	}
	return plan.WriteText(o.Stdout)
}

// printSummary prints what the copy did.
func (o CopyOptions) printSummary(s transfer.Summary, part transfer.Partition) error {
	if !o.JSON {
		of := ""
		if part.Count > 0 {
			of = "partition " + part.String() + ": "
		}
		_, err := fmt.Fprintf(o.Stdout, "cp: %s%s\n", of, s)
		return err
	}
	failures := s.Failures
	if failures == nil {
		failures = []string{}
	}
	out := map[string]any{"copied": s.Copied, "skipped": s.Skipped, "failed": s.Failed, "bytes": s.Bytes,
		"seconds": s.Took.Seconds(), "failures": failures}
	if part.Count > 0 {
		out["partition"] = part.String()
	}
	return writeJSON(o.Stdout, out)
}

// writeJSON prints v as an indented JSON document.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// transferOptions checks the options and turns them into transfer's, and
// refuses a copy of a directory onto or into itself.
func (o CopyOptions) transferOptions() (transfer.Options, error) {
	opts, err := o.parse()
	if err == nil {
		err = o.checkLocations()
	}
	return opts, err
}

// parse turns the options as typed into transfer's.
func (o CopyOptions) parse() (transfer.Options, error) {
	opts := transfer.Options{Path: o.Path, Jobs: o.Jobs, Consolidate: o.Consolidate, Stream: streamOptions(o.Memory), DryRun: o.DryRun}
	opts.ChunksPerShard = o.ChunksPerShard
	if o.Partition != "" {
		part, err := transfer.ParsePartition(o.Partition)
		if err != nil {
			return opts, err
		}
		opts.Partition = part
	}
	switch {
	case o.Verify && o.DryRun:
		return opts, fmt.Errorf("--verify and --dry-run: give one (--verify checks a copy made, --dry-run plans one)")
	case o.Overwrite && o.Partition != "" && !o.Verify:
		return opts, fmt.Errorf("--partition and --overwrite: each partition would erase what the others had written; " +
			"empty DST first, then run the partitions without --overwrite")
	}
	switch {
	case o.Overwrite && o.Merge:
		return opts, fmt.Errorf("--overwrite and --merge: give one (replace what DST holds, or add to it)")
	case o.Overwrite:
		opts.Existing = transfer.Overwrite
	case o.Merge:
		opts.Existing = transfer.Merge
	}
	switch o.ToFormat {
	case 0:
	case 2:
		opts.ToFormat = meta.V2
	case 3:
		opts.ToFormat = meta.V3
	default:
		return opts, fmt.Errorf("--to-format %d: give 2 or 3", o.ToFormat)
	}
	if o.Codecs != "" {
		codecs, err := meta.ParseExtensions(json.RawMessage(o.Codecs))
		if err != nil {
			return opts, fmt.Errorf("--codecs: %w", err)
		}
		opts.Codecs = codecs
	}
	var err error
	if opts.Chunks, opts.ChunkEdges, err = parseChunks("--chunks", o.Chunks); err != nil {
		return opts, err
	}
	for _, s := range []struct {
		name, text string
		dst        *[]int
	}{{"--shard", o.Shard, &opts.Shard}, {"--inner-chunks", o.InnerChunks, &opts.InnerChunks}} {
		if *s.dst, err = parseShape(s.name, s.text); err != nil {
			return opts, err
		}
	}
	return opts, nil
}

// parseShape reads "10,20" (nil for "").
func parseShape(name, s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	out, ok := commaInts(s, 1)
	if !ok {
		return nil, fmt.Errorf("%s %q: give positive whole numbers separated by commas", name, s)
	}
	return out, nil
}

// commaInts reads whole numbers separated by commas, each at least
// least.
func commaInts(s string, least int) ([]int, bool) {
	var out []int
	for _, p := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < least {
			return nil, false
		}
		out = append(out, n)
	}
	return out, true
}
