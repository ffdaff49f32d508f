// Package transfer copies Zarr hierarchies between stores (zarrgw cp):
// keys as they are, byte for byte and in parallel, or arrays rewritten
// through the engine (to Zarr v3, other chunks, codecs or shards),
// streamed in bounded memory. A journal records what is complete, so an
// interrupted copy run again with the same arguments finishes the rest.
//
// Below it: the journal (transfer/journal), what a rewrite makes of an
// array and the arithmetic of its chunk grid (transfer/layout), and what
// a copy tells a person, its plan and its progress (transfer/report).
package transfer

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/commands/transfer/journal"
	"github.com/zarrgw/zarrgw/host/commands/transfer/layout"
	"github.com/zarrgw/zarrgw/host/commands/transfer/report"
)

// Endpoint is one side of a copy: a store and how arrays in it open.
type Endpoint struct {
	Name    string // the LOCATION as given, for messages
	Store   store.Store
	Options array.Options
	// Remote is a store across a network (S3, Azure, HTTP): its calls
	// wait on round trips, so more of them are kept in flight.
	Remote bool
}

// Existing says what a copy does with a destination that holds data it
// would not write itself (see Prepare).
type Existing int

const (
	// Refuse: such a destination is an error, found before anything is
	// written, and is left as it is.
	Refuse Existing = iota
	// Overwrite: what the destination holds below the copied node is
	// erased first; the result is what a copy into an empty one makes.
	Overwrite
	// Merge: what the destination holds is kept, the copy is added to
	// it, and a node both hold gets its attributes merged (a group keeps
	// its members, consolidated metadata is rebuilt over both).
	Merge
)

// Options say what to copy and how.
type Options struct {
	// Path is the node to copy; "" for everything.
	Path string
	// Spec is what a rewrite changes of each array; with nothing set,
	// keys are copied as they are.
	layout.Spec
	Consolidate bool // write consolidated metadata at Path
	// Existing says what to do with a destination holding other data.
	Existing Existing
	// Jobs bounds the keys or chunks in flight (0 = localJobs, or
	// remoteJobs when either endpoint is Remote).
	Jobs int
	// Stream bounds the memory of an array rewrite.
	Stream array.StreamOptions
	// DryRun makes Prepare measure what the copy would write (keys and
	// sizes per array) and Run write nothing.
	DryRun bool
	// Journal, when set, records what is complete and skips what an
	// earlier run completed.
	Journal *journal.Journal
	// Progress, when set, is told of the work.
	Progress report.Progress
	// Retries of a key whose copy fails for a transient reason (0 = 3).
	Retries int
	// Partition, when set, makes the run the Index-th of Count disjoint
	// parts of the copy (see Partition).
	Partition Partition

	// verifying: the options of Verify, which plans the copy to compare
	// with it and never writes.
	verifying bool
}

// validate checks the options that need no source to be judged.
func (o Options) validate() error {
	switch {
	case o.Jobs < 0:
		return fmt.Errorf("--jobs %d: give a positive number (0 for the default)", o.Jobs)
	case o.ChunksPerShard < 0:
		return fmt.Errorf("--chunks-per-shard %d: give a positive number", o.ChunksPerShard)
	case o.ChunksPerShard > 0 && o.Shard != nil:
		return fmt.Errorf("--shard and --chunks-per-shard both give the shard shape: give one")
	case o.ToFormat != 0 && o.ToFormat != meta.V3 && o.ToFormat != meta.V2:
		return fmt.Errorf("--to-format %d: give 2 or 3", o.ToFormat)
	case o.Existing < Refuse || o.Existing > Merge:
		return fmt.Errorf("unknown treatment of an existing destination (%d)", o.Existing)
	case o.Partition.set() && o.Existing == Overwrite && !o.verifying:
		// no partition can tell whether the others have begun
		return fmt.Errorf("--partition and --overwrite: each partition would erase what the others had written; " +
			"empty DST first, then run the partitions without --overwrite")
	}
	if err := o.Partition.check(); err != nil {
		return err
	}
	for name, shape := range map[string][]int{"--chunks": o.Chunks, "--shard": o.Shard, "--inner-chunks": o.InnerChunks} {
		for _, n := range shape {
			if n < 1 {
				return fmt.Errorf("%s %v: every length must be positive", name, shape)
			}
		}
	}
	if _, err := hierarchy.CleanPath(o.Path); err != nil {
		return fmt.Errorf("--path: %w", err)
	}
	return nil
}

// Rewrites reports whether arrays go through the engine.
func (o Options) Rewrites() bool {
	return o.ToFormat != 0 || o.Codecs != nil || o.Chunks != nil || o.Shard != nil || o.InnerChunks != nil || o.ChunksPerShard > 0
}

// Default jobs: enough to keep local disks busy, and enough to cover the
// round trips of a network store (tens of milliseconds each).
const (
	localJobs  = 16
	remoteJobs = 64
)

func (o Options) jobs() int {
	if o.Jobs > 0 {
		return o.Jobs
	}
	return localJobs
}

// Summary is what a copy did.
type Summary struct {
	Copied, Skipped, Failed int   // keys, or for rewrites: chunks (shards) and metadata documents
	Bytes                   int64 // bytes written (byte copies) or elements' bytes (rewrites)
	Took                    time.Duration
	// Failures names what failed, at most a few.
	Failures []string
}

// failure counts err as one failure of the copy, naming it among the
// first few, and returns nil: the copy goes on. When the copy must stop
// instead, it returns why: ctx ended (what was in flight then is not a
// failure), or err is a fault of a store itself (StoreFault).
func (s *Summary) failure(ctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case isFault(err):
		return err
	}
	s.Failed++
	if len(s.Failures) < maxFailures {
		s.Failures = append(s.Failures, err.Error())
	}
	return nil
}

func (s Summary) String() string {
	rate := ""
	if s.Took > 0 && s.Bytes > 0 {
		rate = fmt.Sprintf(", %.1f MB/s", float64(s.Bytes)/s.Took.Seconds()/1e6)
	}
	return fmt.Sprintf("copied %d, skipped %d (done before), failed %d; %s in %s%s",
		s.Copied, s.Skipped, s.Failed, report.Bytes(s.Bytes), s.Took.Round(time.Millisecond), rate)
}

// ErrFailed is returned when some keys could not be copied (the summary
// names them).
var ErrFailed = errors.New("copy incomplete")

// Run copies from src to dst as opts say: it plans the copy (Prepare),
// which checks the source, every conversion and the destination before
// anything is written, then carries the plan out.
func Run(ctx context.Context, src, dst Endpoint, opts Options) (Summary, error) {
	p, err := Prepare(ctx, src, dst, opts)
	if err != nil || opts.DryRun {
		return Summary{}, err
	}
	return p.Run(ctx, dst)
}

// maxFailures bounds the failures a summary names.
const maxFailures = 1000
