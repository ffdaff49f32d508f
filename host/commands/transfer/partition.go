package transfer

import (
	"context"
	"fmt"
	"math/bits"
	"sort"
	"strconv"
	"strings"

	"github.com/zarrgw/zarrgw/host/commands/transfer/report"
)

// Partition names the Index-th of Count disjoint parts of a copy (zarrgw
// cp --partition Index/Count); the zero value is the whole copy.
//
// The parts are cut from the plan by the destination's objects: keys for
// a byte copy, chunks of the new grid for a rewrite (whole shards when
// sharded). Every object belongs to exactly one part, so no two
// partitions ever write one object, and each process finds its part
// alone, from the source and the options, with nothing exchanged between
// processes:
//
//   - The metadata documents (zarr.json, .zarray, .zgroup, .zattrs,
//     .zmetadata, draft meta/ documents), the groups created above --path
//     and the consolidated metadata are partition 0's. It writes the
//     documents before its data and consolidates at its end, from the
//     documents it wrote itself, so the order in which the partitions run
//     or end does not matter; two runs of partition 0 at once write the
//     same bytes (documents are rendered deterministically, keys sorted).
//   - The other objects are taken in one order (a byte copy's keys in
//     byte order; a rewrite's arrays by path, the chunks of each in C
//     order of its grid) and cut into Count contiguous runs of about equal
//     bytes: an object belongs to the part in which the midpoint of its
//     bytes falls, the metadata's bytes counted first (partition 0 takes
//     that much less data). See weigh for what an object weighs.
//
// The arithmetic is on integers, so that processes on any machine, of any
// architecture, cut alike.
type Partition struct {
	Index, Count int
}

// ParsePartition reads "I/N": the I-th of N parts, counted from 0.
func ParsePartition(s string) (Partition, error) {
	bad := func(why string) (Partition, error) {
		return Partition{}, fmt.Errorf("--partition %q: %s", s, why)
	}
	i, n, ok := strings.Cut(s, "/")
	index, errI := strconv.Atoi(strings.TrimSpace(i))
	count, errN := strconv.Atoi(strings.TrimSpace(n))
	switch {
	case !ok || errI != nil || errN != nil:
		return bad("give I/N, the I-th of N parts counted from 0 (0/4, 1/4, 2/4 and 3/4 are a copy in four parts)")
	case count < 1:
		return bad("N, the number of parts, must be 1 or more")
	case index < 0 || index >= count:
		return bad(fmt.Sprintf("I counts the parts from 0: give 0/%d to %d/%d", count, count-1, count))
	}
	return Partition{Index: index, Count: count}, nil
}

func (p Partition) String() string { return fmt.Sprintf("%d/%d", p.Index, p.Count) }

// set reports a partitioned copy.
func (p Partition) set() bool { return p.Count > 0 }

func (p Partition) check() error {
	if p.Count < 0 || (p.Count > 0 && (p.Index < 0 || p.Index >= p.Count)) {
		return fmt.Errorf("--partition %d/%d: I counts the parts from 0 to N-1", p.Index, p.Count)
	}
	return nil
}

// Split cuts the plan into n partitions and returns the plan of each, its
// keys listed: every object the copy writes is in exactly one of them.
// It is what each of n processes given --partition I/n finds for itself.
func (p *Plan) Split(ctx context.Context, n int) ([]report.PartitionPlan, error) {
	if n < 1 {
		return nil, fmt.Errorf("split into %d partitions: give 1 or more", n)
	}
	objs, err := p.objects(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]report.PartitionPlan, n)
	for i, sh := range objs.split(n, -1) {
		out[i] = sh.plan(objs, true)
	}
	return out, nil
}

// share is the part of a copy one partition writes.
type share struct {
	part Partition
	// metadata: partition 0's documents, listed in meta.
	metadata bool
	meta     []string
	// keys are a byte copy's other keys of this part, in byte order.
	keys []string
	// chunks are a rewrite's chunks of this part, array by array.
	chunks []*chunkRun
	// objects and bytes count and weigh what it writes.
	objects, bytes int64
}

// chunkRun is one array's chunks in a part: list (by linear index in
// the grid, ascending) or, for an array written whole (dense), every
// chunk of [lo, hi).
type chunkRun struct {
	a      *arrayObjects
	list   []int64
	lo, hi int64
}

// each calls fn with the linear index of every chunk of the run, in
// order, until fn returns false.
func (r *chunkRun) each(fn func(idx int64) bool) {
	if !r.a.dense {
		for _, idx := range r.list {
			if !fn(idx) {
				return
			}
		}
		return
	}
	for idx := r.lo; idx < r.hi; idx++ {
		if !fn(idx) {
			return
		}
	}
}

// shareOf is the part of the copy that partition part writes.
func (p *Plan) shareOf(ctx context.Context, part Partition) (*share, error) {
	objs, err := p.objects(ctx)
	if err != nil {
		return nil, err
	}
	return objs.split(part.Count, part.Index)[0], nil
}

// whole is the whole copy as one part: what --verify checks without
// --partition.
func (p *Plan) whole(ctx context.Context) (*share, error) {
	return p.shareOf(ctx, Partition{Index: 0, Count: 1})
}

// split cuts the objects into n parts and returns them all (only < 0), or
// the part only alone.
func (o *objects) split(n, only int) []*share {
	parts := map[int]*share{}
	if only >= 0 {
		parts[only] = &share{part: Partition{Index: only, Count: n}}
	} else {
		for i := range n {
			parts[i] = &share{part: Partition{Index: i, Count: n}}
		}
	}
	if sh := parts[0]; sh != nil {
		sh.metadata, sh.meta = true, o.meta
		sh.objects, sh.bytes = int64(len(o.meta)), o.metaBytes
	}
	before := o.metaBytes // the weight of the objects before the one placed
	place := func(weight int64) *share {
		sh := parts[partOf(before, weight, o.total, n)]
		before += weight
		if sh != nil {
			sh.objects++
			sh.bytes += weight
		}
		return sh
	}
	for _, k := range o.keys {
		if sh := place(k.weight); sh != nil {
			sh.keys = append(sh.keys, k.key)
		}
	}
	for _, a := range o.arrays {
		a.each(func(idx, weight int64) {
			sh := place(weight)
			if sh == nil {
				return
			}
			run := sh.lastRun(a)
			if run == nil {
				run = &chunkRun{a: a, lo: idx}
				sh.chunks = append(sh.chunks, run)
			}
			if a.dense {
				run.hi = idx + 1 // contiguous: a part's chunks of an array are one run
			} else {
				run.list = append(run.list, idx)
			}
		})
	}
	if only >= 0 {
		return []*share{parts[only]}
	}
	out := make([]*share, n)
	for i := range out {
		out[i] = parts[i]
	}
	return out
}

// lastRun is the part's run of chunks of a, when it is the last it has.
func (s *share) lastRun(a *arrayObjects) *chunkRun {
	if len(s.chunks) > 0 && s.chunks[len(s.chunks)-1].a == a {
		return s.chunks[len(s.chunks)-1]
	}
	return nil
}

// partOf is the part in which the midpoint of an object falls: the
// object of weight w after before of the total's weight, cut into n
// parts of total/n. In 128-bit integers: n (2 before + w) / (2 total),
// exact, and the same on every machine.
func partOf(before, w, total int64, n int) int {
	if total <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(n), uint64(2*before+w))
	den := uint64(2 * total)
	if hi >= den { // past the end: only a rounding at the very end
		return n - 1
	}
	q, _ := bits.Div64(hi, lo, den)
	return min(int(q), n-1)
}

// plan describes the part; its keys listed when withKeys.
func (s *share) plan(o *objects, withKeys bool) report.PartitionPlan {
	r := report.PartitionPlan{Index: s.part.Index, Count: s.part.Count, Metadata: s.metadata, Objects: s.objects, Bytes: s.bytes,
		CopyObjects: o.count, CopyBytes: o.total}
	if !withKeys {
		return r
	}
	r.Keys = append(append([]string{}, s.meta...), s.keys...)
	for _, run := range s.chunks {
		run.each(func(idx int64) bool {
			r.Keys = append(r.Keys, run.a.key(idx))
			return true
		})
	}
	sort.Strings(r.Keys)
	return r
}

// shareKeys are the keys of a byte copy that a part copies: partition
// 0's documents first (a reader finds the nodes as soon as it can), then
// its other keys. The groups above --path and consolidated metadata are
// not copied but made at the end (finish).
func (p *Plan) shareKeys(s *share) []string {
	var out []string
	for _, k := range s.meta {
		if p.writes(k) {
			out = append(out, k)
		}
	}
	return append(out, s.keys...)
}
