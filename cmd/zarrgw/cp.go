package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/location"
	"github.com/zarrgw/zarrgw/host/registry"
	"github.com/zarrgw/zarrgw/host/transfer"
)

// cpFlags are the options of zarrgw cp as given.
type cpFlags struct {
	config, path, codecs, chunks, shard, inner string
	toFormat, jobs, perShard                   int
	consolidate, dryRun, quiet, fresh          bool
	memory                                     memoryFlag
}

func newCp(set registry.Set) *cobra.Command {
	var f cpFlags
	cmd := &cobra.Command{
		Use:   "cp SRC DST",
		Short: "Copy a hierarchy or node between locations, as it is or rewritten (v3, chunks, codecs, shards), resumably",
		Long: `Copy a Zarr hierarchy (or the node --path) from SRC to DST, each a
directory, a URL (s3://, az://, http(s):// for sources) or, with --config,
a dataset. Without rewrite options keys are copied byte for byte, in
parallel, each checked at the destination. With --to-format 3, --codecs,
--chunks, --shard or --inner-chunks arrays are rewritten through the
engine, streamed in bounded memory (--memory).

An interrupted copy run again with the same arguments skips what it
completed (a journal under the user's cache directory records it; --fresh
starts over).`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error { return runCp(cmd, set, args[0], args[1], f) },
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.config, "config", "c", "", "configuration file (HCL); SRC and DST may then be its datasets")
	fl.StringVar(&f.path, "path", "", "the node to copy (default: the whole hierarchy)")
	fl.IntVar(&f.toFormat, "to-format", 0, "rewrite metadata as this Zarr format (3)")
	fl.StringVar(&f.codecs, "codecs", "", `new codec chain, as zarr.json writes it (e.g. '[{"name":"bytes"},{"name":"zstd"}]')`)
	fl.StringVar(&f.chunks, "chunks", "", "new chunk shape, e.g. 100,100")
	fl.StringVar(&f.shard, "shard", "", "shard shape: shards of this shape holding the (new) chunks")
	fl.StringVar(&f.inner, "inner-chunks", "", "inner chunk shape of the shards")
	fl.IntVar(&f.perShard, "chunks-per-shard", 0, "shard every array, of any rank: N chunks along each dimension per shard")
	fl.BoolVar(&f.consolidate, "consolidate", false, "write consolidated metadata at the destination")
	fl.IntVar(&f.jobs, "jobs", 0, "keys in flight at once (default 16; 64 when either side is in the cloud)")
	addMemoryFlag(cmd, &f.memory)
	fl.BoolVar(&f.dryRun, "dry-run", false, "say what would be copied and its size, and copy nothing")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no progress output")
	fl.BoolVar(&f.fresh, "fresh", false, "ignore what an interrupted run of the same copy completed")
	return cmd
}

func runCp(cmd *cobra.Command, set registry.Set, srcLoc, dstLoc string, f cpFlags) error {
	opts, err := f.options()
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	stderr := cmd.ErrOrStderr()
	src, err := location.Resolve(ctx, set, f.config, srcLoc, stderr)
	if err != nil {
		return err
	}
	defer src.Close()
	if f.config == "" && !strings.Contains(dstLoc, "://") && !f.dryRun {
		if err := os.MkdirAll(dstLoc, 0o755); err != nil {
			return fmt.Errorf("destination %q: %w", dstLoc, err)
		}
	}
	dst, err := resolveDestination(ctx, set, f, dstLoc, stderr)
	if err != nil {
		return err
	}
	defer dst.Close()
	if !f.dryRun {
		if opts.Journal, err = transfer.Resume(transfer.CopyID(f.config, srcLoc, dstLoc, opts), f.fresh); err != nil {
			return err
		}
		defer opts.Journal.Close()
		if n := opts.Journal.Resumed(); n > 0 && !f.quiet {
			fmt.Fprintf(stderr, "cp: resuming: %d entries done before (%s)\n", n, opts.Journal.Path())
		}
	}
	tty := false
	if file, ok := stderr.(*os.File); ok {
		tty = isatty.IsTerminal(file.Fd())
	}
	opts.Progress = transfer.NewProgress(stderr, tty, f.quiet)
	s, err := transfer.Run(ctx,
		transfer.Endpoint{Name: srcLoc, Store: src.Store, Options: src.Options, Remote: location.Remote(srcLoc)},
		transfer.Endpoint{Name: dstLoc, Store: dst.Store, Options: dst.Options, Remote: location.Remote(dstLoc)}, opts)
	verb := ""
	if f.dryRun {
		verb = "dry run, nothing written: "
	}
	fmt.Fprintf(cmd.OutOrStdout(), "cp: %s%s\n", verb, s)
	for _, msg := range s.Failures {
		fmt.Fprintf(stderr, "cp: %s\n", msg)
	}
	return err
}

// resolveDestination opens DST; a dry run of a copy into a directory that
// does not exist yet writes nothing, so it needs none.
func resolveDestination(ctx context.Context, set registry.Set, f cpFlags, loc string, stderr io.Writer) (*location.Target, error) {
	if f.dryRun && f.config == "" && !strings.Contains(loc, "://") {
		if _, err := os.Stat(loc); errors.Is(err, fs.ErrNotExist) {
			return &location.Target{Store: store.ReadOnly(store.NewMemory())}, nil
		}
	}
	return location.Resolve(ctx, set, f.config, loc, stderr)
}

// options turns the flags into transfer options.
func (f cpFlags) options() (transfer.Options, error) {
	opts := transfer.Options{Path: f.path, Jobs: f.jobs, Consolidate: f.consolidate, DryRun: f.dryRun, Stream: f.memory.options(), ChunksPerShard: f.perShard}
	switch f.toFormat {
	case 0:
	case 3:
		opts.ToFormat = meta.V3
	default:
		return opts, fmt.Errorf("--to-format %d: only 3 is supported", f.toFormat)
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
