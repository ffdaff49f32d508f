package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/host/app"
)

const cpLong = `Copy a Zarr hierarchy (or the node --path) from SRC to DST, each a
directory, a URL (s3://, az://, http(s):// for sources) or, with --config,
a dataset. Without rewrite options keys are copied byte for byte, in
parallel, each checked at the destination. With --to-format 3, --codecs,
--chunks, --shard, --inner-chunks or --chunks-per-shard arrays are
rewritten through the engine: whole chunks (shards) of the new grid, in
parallel, as many at once as --memory holds (144MiB by default).

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

func newCp(set app.Set) *cobra.Command {
	var o app.CopyOptions
	memory := memoryFlag{def: "144MiB"}
	cmd := &cobra.Command{
		Use:     "cp SRC DST",
		Short:   "Copy a hierarchy or node between locations, as it is or rewritten (v3, chunks, codecs, shards), resumably",
		Long:    cpLong,
		Example: cpExamples,
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Source, o.Destination, o.Memory = args[0], args[1], memory.bytes
			o.Stdout, o.Stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
			err := runCp(cmd.Context(), set, o)
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
	fl.StringVarP(&o.Config, "config", "c", "", "configuration file (HCL); SRC and DST may then be its datasets")
	fl.StringVar(&o.Path, "path", "", "the node to copy (default: the whole hierarchy)")
	fl.IntVar(&o.ToFormat, "to-format", 0, "rewrite metadata as this Zarr format: 3, or 2 (dimension names become xarray's _ARRAY_DIMENSIONS; arrays v2 cannot hold, such as sharded ones, are refused)")
	fl.StringVar(&o.Codecs, "codecs", "", `new codec chain, as zarr.json writes it (e.g. '[{"name":"bytes"},{"name":"zstd"}]')`)
	fl.StringVar(&o.Chunks, "chunks", "", "new chunk shape, e.g. 100,100; a rectilinear grid: edges per dimension joined by +, LENGTH*COUNT for runs, e.g. 10*5+5+5,15+15")
	fl.StringVar(&o.Shard, "shard", "", "shard shape: shards of this shape holding the (new) chunks")
	fl.StringVar(&o.InnerChunks, "inner-chunks", "", "inner chunk shape of the shards")
	fl.IntVar(&o.ChunksPerShard, "chunks-per-shard", 0, "shard every array, of any rank: N chunks along each dimension per shard")
	fl.BoolVar(&o.Consolidate, "consolidate", false, "write consolidated metadata at the destination")
	fl.BoolVar(&o.Overwrite, "overwrite", false, "erase what DST holds below the node first, if it holds anything but this copy's keys")
	fl.BoolVar(&o.Merge, "merge", false, "keep what DST holds and add the copy, merging the metadata of nodes both hold")
	fl.IntVar(&o.Jobs, "jobs", 0, "keys in flight at once (default 16; 64 when either side is in the cloud)")
	addMemoryFlag(cmd, &memory)
	fl.BoolVar(&o.DryRun, "dry-run", false, "print the plan (arrays, layouts, keys, bytes) and write nothing")
	fl.BoolVar(&o.JSON, "json", false, "print the plan (--dry-run) or the summary as JSON")
	fl.BoolVarP(&o.Quiet, "quiet", "q", false, "no progress output")
	fl.BoolVar(&o.Fresh, "fresh", false, "ignore what an interrupted run of the same copy completed")
	fl.StringVar(&o.Partition, "partition", "", "do the I-th of N disjoint parts of the copy, e.g. 0/4 (partition 0 also writes the metadata)")
	fl.BoolVar(&o.Verify, "verify", false, "write nothing: compare DST with what this copy makes there, listing what is missing or different")
	return cmd
}

// runCp runs the copy (or its verification) until it ends or a signal
// stops it; a copy stopped so says how to resume it.
func runCp(ctx context.Context, set app.Set, o app.CopyOptions) error {
	ctx, signals := watchSignals(ctx)
	defer signals.stop()
	if o.Verify {
		err := app.VerifyCopy(ctx, set, o)
		if sig := signals.received(ctx); err != nil && sig != nil {
			return fmt.Errorf("cp --verify: interrupted by %s; nothing was written", signalName(sig))
		}
		return err
	}
	s, err := app.Copy(ctx, set, o)
	if err == nil {
		return nil // done, even if a signal came as it ended
	}
	if sig := signals.received(ctx); sig != nil {
		return newInterruption(sig, o.DryRun, s)
	}
	return err
}
