package transfer

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
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

func (o Options) progress() Progress {
	if o.Progress == nil {
		return silent{}
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

// newLayout is an array's metadata in the output format and layout:
// converted to v3 when asked (draft arrays always are, unless v2 is
// asked), its codecs then named as v3 registers them (resolved through
// r), or to v2 (an array v2 cannot hold is refused: meta.ErrNoV2Form);
// with the new chunk shape, codecs and sharding.
func newLayout(ctx context.Context, src *meta.ArrayMeta, opts Options, r codec.Resolver) (*meta.ArrayMeta, error) {
	m, err := convertArray(ctx, src, opts, r)
	if err != nil {
		return nil, err
	}
	out := *m
	sharded := opts.Shard != nil || opts.InnerChunks != nil || opts.ChunksPerShard > 0
	if out.Format != meta.V3 && (opts.Codecs != nil || sharded) {
		return nil, fmt.Errorf("new codecs and shards need Zarr v3 output (--to-format 3); this array is %s", out.Format)
	}
	rank := len(out.Shape)
	for name, shape := range map[string][]int{"--chunks": opts.Chunks, "--shard": opts.Shard, "--inner-chunks": opts.InnerChunks} {
		if shape != nil && len(shape) != rank {
			return nil, fmt.Errorf("%s has %d dimensions, the array %d", name, len(shape), rank)
		}
	}
	if opts.Chunks != nil {
		out.ChunkShape = append([]int(nil), opts.Chunks...)
	}
	if opts.Codecs != nil {
		out.Codecs = append([]meta.Extension(nil), opts.Codecs...)
	}
	if sharded {
		if err := shard(&out, opts); err != nil {
			return nil, err
		}
	}
	return &out, nil
}

// convertArray is an array's metadata in the output format.
func convertArray(ctx context.Context, src *meta.ArrayMeta, opts Options, r codec.Resolver) (*meta.ArrayMeta, error) {
	m := src
	var err error
	if opts.ToFormat == meta.V3 || src.Format == meta.V3Draft {
		if m, err = src.ToV3(); err != nil {
			return nil, err
		}
		if src.Format != meta.V3 {
			if m.Codecs, err = canonicalCodecs(ctx, r, m); err != nil {
				return nil, err
			}
		}
	}
	if opts.ToFormat == meta.V2 {
		// the chunk keys lose v3's "c" segment when the engine writes them
		// under the v2 encoding ToV2 gives; _ARRAY_DIMENSIONS carries the
		// dimension names
		return m.ToV2()
	}
	return m, nil
}

// shard makes the array's chunks shards: of shape --shard (else its chunk
// shape, or that many chunks per dimension with ChunksPerShard) holding
// inner chunks of --inner-chunks (else its chunk shape), each encoded with
// its codec chain; the index gets bytes and crc32c. An array that is
// sharded already is resharded: its inner chunks and chain are the ones
// sharded again, never a shard inside a shard.
func shard(m *meta.ArrayMeta, opts Options) error {
	inner, chain, err := innerLayout(m)
	if err != nil {
		return err
	}
	if opts.InnerChunks != nil {
		inner = opts.InnerChunks
	}
	outer := m.ChunkShape
	switch {
	case opts.Shard != nil:
		outer = opts.Shard
	case opts.ChunksPerShard > 0:
		outer = make([]int, len(inner))
		for i := range inner {
			outer[i] = inner[i] * opts.ChunksPerShard
		}
	}
	for i := range outer {
		if inner[i] < 1 || outer[i]%inner[i] != 0 {
			return fmt.Errorf("inner chunks %v do not divide shards %v", inner, outer)
		}
	}
	codecs, err := meta.MarshalExtensions(chain)
	if err != nil {
		return err
	}
	innerShape, _ := json.Marshal(inner)
	cfg := fmt.Sprintf(`{"chunk_shape":%s,"codecs":%s,"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}],"index_location":"end"}`,
		innerShape, codecs)
	m.ChunkShape = append([]int(nil), outer...)
	m.Codecs = []meta.Extension{{Name: "sharding_indexed", Configuration: json.RawMessage(cfg), MustUnderstand: true}}
	return nil
}

// innerLayout is the chunk shape and codec chain of an array's chunks as
// they would be sharded: those of its shards' inner chunks when it is
// sharded already, else its own.
func innerLayout(m *meta.ArrayMeta) ([]int, []meta.Extension, error) {
	if len(m.Codecs) != 1 || m.Codecs[0].Name != "sharding_indexed" {
		return m.ChunkShape, m.Codecs, nil
	}
	var cfg struct {
		ChunkShape []int           `json:"chunk_shape"`
		Codecs     json.RawMessage `json:"codecs"`
	}
	if err := json.Unmarshal(m.Codecs[0].Configuration, &cfg); err != nil {
		return nil, nil, fmt.Errorf("sharding_indexed configuration: %w", err)
	}
	chain, err := meta.ParseExtensions(cfg.Codecs)
	if err != nil {
		return nil, nil, fmt.Errorf("sharding_indexed codecs: %w", err)
	}
	return cfg.ChunkShape, chain, nil
}
