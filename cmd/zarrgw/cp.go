package main

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
	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/host/app/location"
	"github.com/zarrgw/zarrgw/host/commands/transfer"
	"github.com/zarrgw/zarrgw/host/commands/transfer/journal"
	"github.com/zarrgw/zarrgw/host/commands/transfer/report"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
)

// cpFlags are the options of zarrgw cp as given.
type cpFlags struct {
	config, path, codecs, chunks, shard, inner string
	partition                                  string
	toFormat, jobs, perShard                   int
	consolidate, dryRun, quiet, fresh, asJSON  bool
	overwrite, merge, verify                   bool
	memory                                     memoryFlag
}

const cpLong = `Copy a Zarr hierarchy (or the node --path) from SRC to DST, each a
directory, a URL (s3://, az://, http(s):// for sources) or, with --config,
a dataset. Without rewrite options keys are copied byte for byte, in
parallel, each checked at the destination. With --to-format 3, --codecs,
--chunks, --shard, --inner-chunks or --chunks-per-shard arrays are
rewritten through the engine, streamed in bounded memory (--memory).

Before writing anything, cp checks every flag, reads the source, builds
every array's new layout and lists the destination: a mistake in any of
them leaves no destination behind, not even a directory.

DST may hold nothing, or what this same copy writes (an earlier run of
it, interrupted: the run goes on). Anything else is refused, and DST is
left as it is: keys this copy would not write, or metadata documents it
would write that say something else there (another hierarchy). With a
--path, what counts is what DST holds below that node; the groups above
it are created where missing and never changed.
  --overwrite  erases what DST holds below the node first, then copies:
               the result is what a copy into an empty DST makes.
  --merge      keeps what DST holds and adds the copy to it. A node both
               hold gets the copy's metadata with the attributes of both
               (the copy's value where both name one); a group keeps its
               members; consolidated metadata is rebuilt over both. An
               array and a group, two formats, or two arrays of other
               shapes, types, chunks or codecs cannot be merged: refused.

A failure of a store itself (no such bucket or container, an invalid
bucket name, access denied, a full disk) stops the copy at once, with one
error. A failure of one key alone is counted and the others go on; an
array is written chunks first and metadata last, so an array one of whose
chunks failed is left without metadata (no reader takes what it lacks for
fill values) until a rerun completes it. A rewrite tries each array's new
codec chain on a chunk of fill values before anything is written.

Ctrl-C (SIGINT) or SIGTERM stops the copy cleanly: no new key starts,
those in flight end, the journal is kept, and cp exits 130 (SIGINT) or 143
(SIGTERM) with the command that resumes it. A copy run again with the
same arguments skips what it completed (a journal under the user's cache
directory records it; --fresh starts over).

--partition I/N does the I-th of N disjoint parts of the copy (counted
from 0), so that N processes, on one machine or many, make it together
with nothing exchanged between them: each computes the same split from
the source. The parts are whole objects of DST (keys of a byte copy,
chunks of the new grid of a rewrite: whole shards when sharded), never
one object in two parts, cut in one order into runs of about equal
bytes (the source's stored sizes; elements where it cannot list them).
Partition 0 also writes every metadata document, the groups above --path
and the consolidated metadata, so the partitions may run in any order,
at once or one after another; a part with no objects says so and ends.
Each partition has its own journal and resumes alone; the same partition
started twice on one machine waits for the first, then skips what it
did (on two machines both write the same bytes). --partition cannot be
given with --overwrite: empty DST first.

--verify writes nothing: it compares DST with what this copy (the same
SRC, DST and flags) makes there and lists what is missing or different,
one per line, exiting 1 if anything is: the metadata documents (as JSON;
byte for byte for a byte copy), the consolidated metadata against the
documents below it, a byte copy's keys byte for byte, and a rewrite's
arrays chunk by chunk of the new grid, their decoded values against the
source's, in bounded memory (--memory). Run it once all partitions have
ended; with --partition it checks that partition's objects only.
--json prints {"checked", "missing", "different", "failed", "problems",
"foreign_keys", "partition"}.

--dry-run writes nothing and prints the plan: what DST holds and what the
copy does with it, then per array its format, data type, shape, chunk and
shard shapes and codecs (before -> after), the keys written and the
stored bytes read, then the totals. --json prints it as one JSON object:
  {"source", "destination", "path", "mode": "copy"|"rewrite",
   "destination_state": {"state": "new"|"empty"|"same_copy"|"overwrite"|"merge",
     "keys", "foreign_keys", "differing_metadata", "erase_keys",
     "created_groups_above": [paths], "merged_nodes": [paths]},
   "arrays": [{"path", "keys", "bytes",
     "before": {"format", "data_type", "shape", "chunk_shape", "shard_shape", "codecs"},
     "after": {...the same}}],
   "groups": [{"path", "format", "keys", "bytes", "created"}],
   "other_keys": {"keys", "bytes"}, "notes": [...],
   "totals": {"arrays", "groups", "keys", "bytes"},
   "partition": {"index", "count", "metadata", "objects", "estimated_bytes",
     "copy_objects", "copy_estimated_bytes", "keys": [its objects]}}
("partition" with --partition only.)
"bytes" is null where the source cannot list sizes. For a rewrite, "keys"
counts the chunks (shards) of the new grid that hold stored source values;
one whose every element is the fill value is not stored, so the run may
write fewer, never more. Without --dry-run, --json prints the summary:
{"copied", "skipped", "failed", "bytes", "seconds", "failures"}.`

const cpExamples = `  # a copy byte for byte, checked, resumable
  zarrgw cp path/to/data.zarr s3://bucket/data.zarr

  # what a rewrite to sharded v3 would write, for a script
  zarrgw cp --dry-run --json old_v2.zarr new.zarr --to-format 3 --chunks-per-shard 8

  # rewritten: v3, 8 chunks per shard along each dimension
  zarrgw cp old_v2.zarr new.zarr --to-format 3 --chunks-per-shard 8

  # one array into an existing hierarchy, its attributes merged
  zarrgw cp --path t2m --merge era5.zarr s3://bucket/climate.zarr

  # replace what a destination holds
  zarrgw cp --overwrite data.zarr s3://bucket/data.zarr

  # a rewrite in four parts, one per machine (or pod), then checked whole
  zarrgw cp --partition 2/4 --chunks-per-shard 8 --to-format 3 old.zarr s3://bucket/new.zarr
  zarrgw cp --verify --chunks-per-shard 8 --to-format 3 old.zarr s3://bucket/new.zarr`

func newCp(set registry.Set) *cobra.Command {
	var f cpFlags
	cmd := &cobra.Command{
		Use:     "cp SRC DST",
		Short:   "Copy a hierarchy or node between locations, as it is or rewritten (v3, chunks, codecs, shards), resumably",
		Long:    cpLong,
		Example: cpExamples,
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			err := runCp(cmd, set, args[0], args[1], f)
			var stop *interruption
			if errors.As(err, &stop) {
				// said in cp's own words (how to resume); main exits 130/143
				fmt.Fprintln(cmd.ErrOrStderr(), stop.Error())
				return exitCode{stop.ExitCode()}
			}
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.config, "config", "c", "", "configuration file (HCL); SRC and DST may then be its datasets")
	fl.StringVar(&f.path, "path", "", "the node to copy (default: the whole hierarchy)")
	fl.IntVar(&f.toFormat, "to-format", 0, "rewrite metadata as this Zarr format: 3, or 2 (dimension names become xarray's _ARRAY_DIMENSIONS; arrays v2 cannot hold, such as sharded ones, are refused)")
	fl.StringVar(&f.codecs, "codecs", "", `new codec chain, as zarr.json writes it (e.g. '[{"name":"bytes"},{"name":"zstd"}]')`)
	fl.StringVar(&f.chunks, "chunks", "", "new chunk shape, e.g. 100,100")
	fl.StringVar(&f.shard, "shard", "", "shard shape: shards of this shape holding the (new) chunks")
	fl.StringVar(&f.inner, "inner-chunks", "", "inner chunk shape of the shards")
	fl.IntVar(&f.perShard, "chunks-per-shard", 0, "shard every array, of any rank: N chunks along each dimension per shard")
	fl.BoolVar(&f.consolidate, "consolidate", false, "write consolidated metadata at the destination")
	fl.BoolVar(&f.overwrite, "overwrite", false, "erase what DST holds below the node first, if it holds anything but this copy's keys")
	fl.BoolVar(&f.merge, "merge", false, "keep what DST holds and add the copy, merging the metadata of nodes both hold")
	fl.IntVar(&f.jobs, "jobs", 0, "keys in flight at once (default 16; 64 when either side is in the cloud)")
	addMemoryFlag(cmd, &f.memory)
	fl.BoolVar(&f.dryRun, "dry-run", false, "print the plan (arrays, layouts, keys, bytes) and write nothing")
	fl.BoolVar(&f.asJSON, "json", false, "print the plan (--dry-run) or the summary as JSON")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no progress output")
	fl.BoolVar(&f.fresh, "fresh", false, "ignore what an interrupted run of the same copy completed")
	fl.StringVar(&f.partition, "partition", "", "do the I-th of N disjoint parts of the copy, e.g. 0/4 (partition 0 also writes the metadata)")
	fl.BoolVar(&f.verify, "verify", false, "write nothing: compare DST with what this copy makes there, listing what is missing or different")
	return cmd
}

func runCp(cmd *cobra.Command, set registry.Set, srcLoc, dstLoc string, f cpFlags) error {
	opts, err := f.options()
	if err == nil {
		err = f.checkLocations(srcLoc, dstLoc)
	}
	if err != nil {
		return err
	}
	ctx, signals := watchSignals(cmd.Context())
	defer signals.stop()
	if f.verify {
		err := verifyWith(ctx, cmd, set, srcLoc, dstLoc, f, opts)
		if sig := signals.received(ctx); err != nil && sig != nil {
			return fmt.Errorf("cp --verify: interrupted by %s; nothing was written", signalName(sig))
		}
		return err
	}
	s, err := copyWith(ctx, cmd, set, srcLoc, dstLoc, f, opts)
	if err == nil {
		return nil // done, even if a signal came as it ended
	}
	if sig := signals.received(ctx); sig != nil {
		return newInterruption(sig, f.dryRun, s)
	}
	return err
}

// copyWith opens both sides, plans the copy, and prints the plan (dry
// run) or makes the copy and prints its summary.
func copyWith(ctx context.Context, cmd *cobra.Command, set registry.Set, srcLoc, dstLoc string, f cpFlags, opts transfer.Options) (_ *transfer.Summary, err error) {
	stderr := cmd.ErrOrStderr()
	src, err := location.Resolve(ctx, set, f.config, srcLoc, stderr)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	defer func() { err = src.Redact(err) }() // both sides are of one configuration
	srcEnd := transfer.Endpoint{Name: srcLoc, Store: src.Store, Options: src.Options, Remote: location.Remote(srcLoc)}
	dst, err := openDestination(ctx, set, f, dstLoc, stderr)
	if err != nil {
		return nil, err
	}
	defer dst.Close()
	dstEnd := transfer.Endpoint{Name: dstLoc, Store: dst.Store, Options: dst.Options, Remote: location.Remote(dstLoc)}
	if dst.Store == nil {
		dstEnd.Options = set.InProcess().ArrayOptions() // what the directory opens with, once made
	}
	plan, err := transfer.Prepare(ctx, srcEnd, dstEnd, opts)
	if err != nil || f.dryRun {
		if err == nil {
			err = printPlan(cmd.OutOrStdout(), plan, f.asJSON)
		}
		return nil, err
	}
	if dst.Store == nil {
		// checked and planned: only now is the directory made
		if dst, err = makeDestination(ctx, set, f, dstLoc, stderr); err != nil {
			return nil, err
		}
		defer dst.Close()
		dstEnd.Store, dstEnd.Options = dst.Store, dst.Options
	}
	return runPlan(ctx, cmd, plan, dstEnd, f, opts, srcLoc, dstLoc, src.Redact)
}

// runPlan makes the copy the plan describes, with its journal, and
// prints its summary, each failure through redact.
func runPlan(ctx context.Context, cmd *cobra.Command, plan *transfer.Plan, dst transfer.Endpoint, f cpFlags, opts transfer.Options, srcLoc, dstLoc string,
	redact func(error) error) (*transfer.Summary, error) {
	stderr := cmd.ErrOrStderr()
	// a destination erased first holds nothing the journal could vouch for
	fresh := f.fresh || plan.Target.State == report.StateOverwrite
	waiting := func(path string) {
		// said even when quiet: a run that seems to hang says why
		fmt.Fprintf(stderr, "cp: another run of this copy holds its journal (%s): waiting for it to end, to go on from what it did\n", path)
	}
	journal, err := journal.Resume(ctx, transfer.CopyID(f.config, srcLoc, dstLoc, opts), fresh, waiting)
	if err != nil {
		return nil, err // interrupted while waiting: runCp says so
	}
	if p := plan.Partition; p != nil && (!f.quiet || p.Objects == 0) {
		// an empty part is said even when quiet: it is the run's result
		fmt.Fprintf(stderr, "cp: %s\n", p.Describe())
	}
	defer journal.Close()
	if n := journal.Resumed(); n > 0 && !f.quiet {
		fmt.Fprintf(stderr, "cp: resuming: %d entries done before (%s)\n", n, journal.Path())
	}
	plan.SetJournal(journal)
	plan.SetProgress(report.NewProgress(stderr, isTerminal(stderr), f.quiet))
	s, err := plan.Run(ctx, dst)
	if err != nil && ctx.Err() != nil {
		return &s, err // interrupted: runCp says so
	}
	if err2 := printSummary(cmd.OutOrStdout(), s, f.asJSON, opts.Partition); err == nil {
		err = err2
	}
	for _, msg := range s.Failures {
		fmt.Fprintf(stderr, "cp: %s\n", redact(errors.New(msg)))
	}
	return &s, err
}

func isTerminal(w io.Writer) bool {
	file, ok := w.(*os.File)
	return ok && isatty.IsTerminal(file.Fd())
}

// localDir reports a destination that is a directory path (not a URL
// nor a dataset), and its path.
func localDir(f cpFlags, loc string) (string, bool) {
	if f.config != "" {
		return "", false
	}
	if dir, ok := strings.CutPrefix(loc, "file://"); ok {
		return dir, true
	}
	return loc, !strings.Contains(loc, "://")
}

// openDestination opens DST. A directory that does not exist yet is
// returned without a store: the copy is planned against an empty
// destination, and the directory made only once the plan stands.
func openDestination(ctx context.Context, set registry.Set, f cpFlags, loc string, stderr io.Writer) (*location.Target, error) {
	if dir, ok := localDir(f, loc); ok {
		if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			return &location.Target{}, nil
		}
	}
	return location.Resolve(ctx, set, f.config, loc, stderr)
}

// makeDestination makes the directory DST names and opens it.
func makeDestination(ctx context.Context, set registry.Set, f cpFlags, loc string, stderr io.Writer) (*location.Target, error) {
	dir, _ := localDir(f, loc)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("destination %q: %w", loc, err)
	}
	return location.Resolve(ctx, set, f.config, loc, stderr)
}

// checkLocations refuses, for directories, a copy onto itself or into
// itself: the destination would be (or hold) the source it reads.
func (f cpFlags) checkLocations(srcLoc, dstLoc string) error {
	src, srcOK := localDir(f, srcLoc)
	dst, dstOK := localDir(f, dstLoc)
	if !srcOK || !dstOK {
		return nil
	}
	src, _ = filepath.Abs(src)
	dst, _ = filepath.Abs(dst)
	for _, pair := range [][2]string{{src, dst}, {dst, src}} {
		if rel, err := filepath.Rel(pair[0], pair[1]); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return fmt.Errorf("SRC %q and DST %q are the same directory, or one holds the other: copy into another directory", srcLoc, dstLoc)
		}
	}
	return nil
}

// printPlan prints the dry run's plan.
func printPlan(w io.Writer, plan *transfer.Plan, asJSON bool) error {
	if asJSON {
		return plan.WriteJSON(w)
	}
	return plan.WriteText(w)
}

// printSummary prints what the copy did.
func printSummary(w io.Writer, s transfer.Summary, asJSON bool, part transfer.Partition) error {
	if !asJSON {
		of := ""
		if part.Count > 0 {
			of = "partition " + part.String() + ": "
		}
		_, err := fmt.Fprintf(w, "cp: %s%s\n", of, s)
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
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// options turns the flags into transfer options.
func (f cpFlags) options() (transfer.Options, error) {
	opts := transfer.Options{Path: f.path, Jobs: f.jobs, Consolidate: f.consolidate, Stream: f.memory.options(),
		ChunksPerShard: f.perShard, DryRun: f.dryRun}
	if f.partition != "" {
		part, err := transfer.ParsePartition(f.partition)
		if err != nil {
			return opts, err
		}
		opts.Partition = part
	}
	switch {
	case f.verify && f.dryRun:
		return opts, fmt.Errorf("--verify and --dry-run: give one (--verify checks a copy made, --dry-run plans one)")
	case f.overwrite && f.partition != "" && !f.verify:
		return opts, fmt.Errorf("--partition and --overwrite: each partition would erase what the others had written; " +
			"empty DST first, then run the partitions without --overwrite")
	}
	switch {
	case f.overwrite && f.merge:
		return opts, fmt.Errorf("--overwrite and --merge: give one (replace what DST holds, or add to it)")
	case f.overwrite:
		opts.Existing = transfer.Overwrite
	case f.merge:
		opts.Existing = transfer.Merge
	}
	switch f.toFormat {
	case 0:
	case 2:
		opts.ToFormat = meta.V2
	case 3:
		opts.ToFormat = meta.V3
	default:
		return opts, fmt.Errorf("--to-format %d: give 2 or 3", f.toFormat)
	}
	if f.codecs != "" {
		codecs, err := meta.ParseExtensions(json.RawMessage(f.codecs))
		if err != nil {
			return opts, fmt.Errorf("--codecs: %w", err)
		}
		opts.Codecs = codecs
	}
	var err error
	for _, s := range []struct {
		name, text string
		dst        *[]int
	}{{"--chunks", f.chunks, &opts.Chunks}, {"--shard", f.shard, &opts.Shard}, {"--inner-chunks", f.inner, &opts.InnerChunks}} {
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
	var out []int
	for _, p := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%s %q: give positive whole numbers separated by commas", name, s)
		}
		out = append(out, n)
	}
	return out, nil
}
