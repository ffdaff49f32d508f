package transfer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/commands/transfer/layout"
)

// VerifyReport is what Verify found.
type VerifyReport struct {
	// Checked counts the objects compared.
	Checked int64 `json:"checked"`
	// Missing counts the objects the destination lacks, Different those
	// it holds otherwise, Failed those that could not be compared (the
	// source unreadable).
	Missing   int64 `json:"missing"`
	Different int64 `json:"different"`
	Failed    int64 `json:"failed"`
	// Problems name them, the first maxFailures: "missing KEY",
	// "different KEY: why", "failed KEY: why".
	Problems []string `json:"problems"`
	// Foreign counts the keys below the copied node that the destination
	// holds and the copy does not write: another hierarchy's, after a
	// merge, or left there; not a problem.
	Foreign int64 `json:"foreign_keys"`
	// Partition is the part checked, "" for the whole copy.
	Partition string `json:"partition,omitempty"`
}

// ErrDiffers is returned by Verify when the destination is not what the
// copy makes (the report names what).
var ErrDiffers = errors.New("the destination is not what the copy makes")

// Verify compares dst with what the copy of src that opts describe
// makes there, and writes nothing; it is how a copy made in partitions,
// in any order, by any number of runs, is known complete. With
// opts.Partition it checks that partition's objects only.
//
// What it compares:
//   - each metadata document the copy writes, as JSON (byte for byte for
//     a byte copy's, which copies them as they are), and the consolidated
//     metadata against what the destination's own documents consolidate
//     to;
//   - a byte copy's keys, byte for byte;
//   - a rewrite's arrays chunk by chunk of the new grid: the values
//     decoded from the destination against the source's (the same bits:
//     NaNs included), a chunk at a time (in pieces past half the memory
//     budget), so memory stays bounded. Checked are the chunks the copy
//     writes and, for the whole copy, every chunk the destination stores
//     besides; a chunk absent in the destination reads as fill values,
//     which is right where the source holds only those.
//
// It does not look at keys the copy does not write, counted as
// Foreign.
func Verify(ctx context.Context, src, dst Endpoint, opts Options) (VerifyReport, error) {
	r := VerifyReport{Problems: []string{}}
	if opts.Partition.set() {
		r.Partition = opts.Partition.String()
	}
	if dst.Store == nil {
		return r, fmt.Errorf("%s does not exist: nothing to verify", dst.Name)
	}
	o := opts
	o.DryRun, o.Journal, o.verifying = false, nil, true
	if o.Jobs == 0 && (src.Remote || dst.Remote) {
		o.Jobs = remoteJobs // round trips, as a copy keeps in flight
	}
	if o.Existing != Merge {
		// other keys in the destination are counted, never erased: Run is
		// not called
		o.Existing = Overwrite
	}
	p, err := Prepare(ctx, src, dst, o)
	if err != nil {
		return r, err
	}
	r.Foreign = p.Target.Foreign
	sh := p.share
	if sh == nil {
		if sh, err = p.whole(ctx); err != nil {
			return r, err
		}
	}
	src.Store, dst.Store = watchFaults(src.Store), watchFaults(dst.Store)
	v := &verifier{p: p, src: src, dst: dst, opts: o, r: &r}
	err = v.run(ctx, sh)
	// found in parallel, in no set order: listed by key
	sort.Slice(r.Problems, func(i, j int) bool { return problemKey(r.Problems[i]) < problemKey(r.Problems[j]) })
	if err != nil {
		return r, err
	}
	if n := r.Missing + r.Different + r.Failed; n > 0 {
		return r, fmt.Errorf("%w: of %d objects checked, %d missing, %d different, %d could not be compared",
			ErrDiffers, r.Checked, r.Missing, r.Different, r.Failed)
	}
	return r, nil
}

// verifier compares a destination with a plan.
type verifier struct {
	p        *Plan
	src, dst Endpoint
	opts     Options
	mu       sync.Mutex
	r        *VerifyReport
}

// note counts an object checked and, when why is not "", its problem of
// kind "missing", "different" or "failed".
func (v *verifier) note(kind, key, why string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.r.Checked++
	switch kind {
	case "":
		return
	case "missing":
		v.r.Missing++
	case "different":
		v.r.Different++
	default:
		v.r.Failed++
	}
	if len(v.r.Problems) < maxFailures {
		line := kind + " " + key
		if why != "" {
			line += ": " + why
		}
		v.r.Problems = append(v.r.Problems, line)
	}
}

func (v *verifier) run(ctx context.Context, sh *share) error {
	if sh.metadata {
		for _, key := range sh.meta {
			if err := v.doc(ctx, key); err != nil {
				return err
			}
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(v.opts.jobs())
	for _, key := range sh.keys {
		g.Go(func() error { return v.key(gctx, key) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for _, run := range sh.chunks {
		if err := v.chunks(ctx, run); err != nil {
			return err
		}
	}
	if !v.opts.Partition.set() {
		return v.extraChunks(ctx)
	}
	return nil
}

// get reads key from e, nil when it is not there.
func get(ctx context.Context, e Endpoint, key string) ([]byte, error) {
	val, err := e.Store.Get(ctx, key, store.ByteRange{})
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: read %s: %w", e.Name, key, err)
	}
	if val.Data == nil {
		val.Data = []byte{}
	}
	return val.Data, nil
}

// fatal is a failure that ends the verification: a store's own failure,
// or the end of ctx; others are about one object.
func fatal(ctx context.Context, err error) bool {
	return ctx.Err() != nil || isFault(err)
}

// doc checks a metadata document.
func (v *verifier) doc(ctx context.Context, key string) error {
	have, err := get(ctx, v.dst, key)
	if err != nil {
		if fatal(ctx, err) {
			return err
		}
		v.note("failed", key, err.Error())
		return nil
	}
	if have == nil {
		v.note("missing", key, "")
		return nil
	}
	if key == v.p.consolidatedKey() {
		return v.consolidated(ctx, key, have)
	}
	want, asJSON, err := v.wantDoc(ctx, key)
	switch {
	case err != nil && fatal(ctx, err):
		return err
	case err != nil:
		v.note("failed", key, err.Error())
	case want == nil:
		v.note("failed", key, "the source does not hold it")
	case asJSON && !sameDoc(have, want), !asJSON && !bytes.Equal(have, want):
		v.note("different", key, "other metadata than the copy writes")
	default:
		v.note("", key, "")
	}
	return nil
}

// wantDoc is the document the copy writes at key, and whether it is
// compared as JSON (rendered, merged) or byte for byte (copied).
func (v *verifier) wantDoc(ctx context.Context, key string) ([]byte, bool, error) {
	if d, ok := v.p.docs[key]; ok {
		return d, true, nil
	}
	for _, d := range v.p.ancestors {
		if d.Key == key {
			return d.Value, true, nil
		}
	}
	b, err := get(ctx, v.src, key)
	return b, false, err
}

// consolidated checks the consolidated metadata (at a v3 group's
// zarr.json, or v2's .zmetadata) against what the destination's own
// documents consolidate to, and a v3 group's own metadata besides.
func (v *verifier) consolidated(ctx context.Context, key string, have []byte) error {
	want, err := hierarchy.ConsolidatedDoc(ctx, v.dst.Store, *v.p.consolidate)
	if err != nil {
		if fatal(ctx, err) {
			return err
		}
		v.note("failed", key, fmt.Sprintf("the consolidated metadata cannot be rebuilt: %v", err))
		return nil
	}
	if own, ok := v.p.docs[key]; ok && !sameDoc(have, own) {
		v.note("different", key, "other metadata than the copy writes")
		return nil
	}
	ha, errA := decodeJSON(have)
	wa, errB := decodeJSON(want.Value)
	if errA != nil || errB != nil || !reflect.DeepEqual(ha, wa) {
		v.note("different", key, "the consolidated metadata is not that of the documents below it")
		return nil
	}
	v.note("", key, "")
	return nil
}

// key checks a key of a byte copy, byte for byte.
func (v *verifier) key(ctx context.Context, key string) error {
	want, err := get(ctx, v.src, key)
	if err == nil && want == nil {
		err = fmt.Errorf("%s: %s is gone", v.src.Name, key)
	}
	if err != nil {
		if fatal(ctx, err) {
			return err
		}
		v.note("failed", key, err.Error())
		return nil
	}
	have, err := get(ctx, v.dst, key)
	switch {
	case err != nil && fatal(ctx, err):
		return err
	case err != nil:
		v.note("failed", key, err.Error())
	case have == nil:
		v.note("missing", key, "")
	case !bytes.Equal(have, want):
		v.note("different", key, fmt.Sprintf("%d bytes, the source's %d, not the same", len(have), len(want)))
	default:
		v.note("", key, "")
	}
	return nil
}

// chunks checks the chunks of a run: the destination's values against
// the source's.
func (v *verifier) chunks(ctx context.Context, run *chunkRun) error {
	c, err := newChunkCopier(ctx, v.src, v.dst, run.a.node, v.opts)
	if err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(c.inFlight)
	run.each(func(idx int64) bool {
		if gctx.Err() != nil {
			return false
		}
		g.Go(func() error { return v.chunk(gctx, c, run.a, idx) })
		return true
	})
	return g.Wait()
}

// chunk checks one chunk of the new grid, piece by piece.
func (v *verifier) chunk(ctx context.Context, c *chunkCopier, a *arrayObjects, idx int64) error {
	coords := layout.Coords(idx, a.counts)
	key := c.to.ChunkKey(coords)
	for _, piece := range layout.Pieces(layout.ChunkBox(a.node.out.Array, coords), c.inner, c.elem, c.piece) {
		want, err := c.from.Read(ctx, piece)
		if err != nil {
			if fatal(ctx, err) {
				return err
			}
			v.note("failed", key, fmt.Sprintf("the source: %v", err))
			return nil
		}
		have, err := c.to.Read(ctx, piece)
		if err != nil {
			if fatal(ctx, err) {
				return err
			}
			v.note("different", key, fmt.Sprintf("cannot be read: %v", err))
			return nil
		}
		if bytes.Equal(have.Data, want.Data) && slices.Equal(have.Strings, want.Strings) {
			continue
		}
		_, err = v.dst.Store.Stat(ctx, key)
		switch {
		case errors.Is(err, store.ErrNotFound):
			v.note("missing", key, "")
		case err != nil && fatal(ctx, err):
			return err
		default:
			v.note("different", key, "its values are not the source's")
		}
		return nil
	}
	v.note("", key, "")
	return nil
}

// extraChunks checks, for a verification of the whole copy, the chunks
// the destination stores that the copy does not write (where it writes
// only the chunks holding stored source values): they hold fill values
// only, or they are wrong.
func (v *verifier) extraChunks(ctx context.Context) error {
	objs, err := v.p.objects(ctx)
	if err != nil {
		return err
	}
	for _, a := range objs.arrays {
		if a.dense {
			continue // every chunk was checked
		}
		written := make(map[int64]bool, len(a.stored))
		for _, c := range a.stored {
			written[c.index] = true
		}
		extra, err := v.storedChunks(ctx, a, written)
		if err != nil {
			return err
		}
		if len(extra) > 0 {
			if err := v.chunks(ctx, &chunkRun{a: a, list: extra}); err != nil {
				return err
			}
		}
	}
	return nil
}

// storedChunks lists the chunks of a that the destination stores and
// written does not hold, by linear index, ascending.
func (v *verifier) storedChunks(ctx context.Context, a *arrayObjects, written map[int64]bool) ([]int64, error) {
	out := a.node.out.Array
	var extra []int64
	for key, err := range store.ListSorted(ctx, v.dst.Store, a.prefix, "") {
		if err != nil {
			return nil, fmt.Errorf("%s: list: %w", v.dst.Name, err)
		}
		coords, ok := a.enc.Parse(strings.TrimPrefix(key, a.prefix), len(out.Shape))
		if !ok {
			continue
		}
		var idx int64
		for i, c := range coords {
			if c >= a.counts[i] {
				ok = false
				break
			}
			idx = idx*int64(a.counts[i]) + int64(c)
		}
		if ok && !written[idx] {
			extra = append(extra, idx)
		}
	}
	sort.Slice(extra, func(i, j int) bool { return extra[i] < extra[j] })
	return extra, nil
}

// decodeJSON decodes a document exactly (numbers as written), keeping
// every member, consolidated metadata included.
func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// problemKey is the key a problem line names.
func problemKey(line string) string {
	_, rest, _ := strings.Cut(line, " ")
	key, _, _ := strings.Cut(rest, ": ")
	return key
}
