package transfer_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/commands/transfer"
	"github.com/zarrgw/zarrgw/host/commands/transfer/journal"
	"github.com/zarrgw/zarrgw/host/commands/transfer/layout"
	"github.com/zarrgw/zarrgw/host/commands/transfer/report"
)

// "I/N" is read with 0 <= I < N and N >= 1; anything else is refused
// with the value quoted and what to give instead.
func TestParsePartition(t *testing.T) {
	for in, want := range map[string]transfer.Partition{"0/1": {0, 1}, "3/4": {3, 4}, " 2 / 5 ": {2, 5}} {
		got, err := transfer.ParsePartition(in)
		if err != nil || got != want {
			t.Errorf("%q: %+v %v, want %+v", in, got, err, want)
		}
	}
	for in, say := range map[string]string{
		"":     "give I/N",
		"3":    "give I/N",
		"a/4":  "give I/N",
		"1/b":  "give I/N",
		"1/2/": "give I/N",
		"0/0":  "must be 1 or more",
		"1/-2": "must be 1 or more",
		"4/4":  "give 0/4 to 3/4",
		"-1/4": "give 0/4 to 3/4",
	} {
		_, err := transfer.ParsePartition(in)
		if err == nil || !strings.Contains(err.Error(), say) || !strings.Contains(err.Error(), fmt.Sprintf("%q", in)) {
			t.Errorf("%q: %v, want an error quoting it and saying %q", in, err, say)
		}
	}
	_, err := transfer.Prepare(context.Background(), endpoint("src", source(t)), endpoint("dst", store.NewMemory()),
		transfer.Options{Partition: transfer.Partition{Index: 1, Count: 4}, Existing: transfer.Overwrite})
	if err == nil || !strings.Contains(err.Error(), "--overwrite") {
		t.Errorf("--partition with --overwrite: %v, want a refusal", err)
	}
}

// noSizes is a source that cannot say the sizes of its keys (as an HTTP
// store): partitions are then cut by elements, every chunk of the new
// grid counted.
type noSizes struct{ store.Store }

func (noSizes) Stat(context.Context, string) (store.Info, error) {
	return store.Info{}, fmt.Errorf("stat: %w", store.ErrUnsupported)
}

// partitionCase is a copy partitions are tried on.
type partitionCase struct {
	name string
	o    transfer.Options
	// noSizes: the source cannot list sizes, and every chunk of the new
	// grid is planned, though those of fill values only are not stored.
	noSizes bool
	// exact: the plans hold exactly the keys the copy writes; else they
	// also hold chunks that overlap a stored source chunk but hold fill
	// values only, which are not stored.
	exact bool
}

// partitionCases: a byte copy, a rewrite to sharded v3 (the chunks that
// hold stored values only), one rechunked with consolidated metadata
// and groups made above its node, and a rewrite of a source that cannot
// list sizes.
var partitionCases = []partitionCase{
	{"byte copy", transfer.Options{}, false, true},
	{"sharded v3", transfer.Options{Spec: layout.Spec{ToFormat: meta.V3, ChunksPerShard: 2}}, false, true},
	// rows 24 to 31 overlap the source's stored chunk of rows 20 to 24, in
	// which rows 20 to 23 hold values
	{"rechunked node, consolidated", transfer.Options{Spec: layout.Spec{ToFormat: meta.V3, Chunks: []int{8, 4}}, Path: "g/a0", Consolidate: true}, false, false},
	{"sizes unknown", transfer.Options{Spec: layout.Spec{ToFormat: meta.V3, ChunksPerShard: 2}}, true, false},
}

func (c partitionCase) source(t *testing.T) store.Store {
	s := source(t)
	if c.noSizes {
		return store.WithOptional(noSizes{s}, store.Optional{}) // no listing with sizes
	}
	return s
}

// The N plans of a copy are disjoint and cover it: every key a whole copy
// writes is in exactly one partition's plan (and nothing else is, but
// chunks of fill values only where the source cannot say which it
// stores), the metadata documents in partition 0's; and the same source
// gives the same split.
func TestSplitDisjointAndWhole(t *testing.T) {
	ctx := context.Background()
	for _, c := range partitionCases {
		whole := store.NewMemory()
		if _, err := transfer.Run(ctx, endpoint("src", c.source(t)), endpoint("dst", whole), c.o); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		want := slices.Sorted(maps.Keys(snapshot(t, whole)))
		for _, n := range []int{1, 2, 3, 4, 7, 100} {
			p, err := transfer.Prepare(ctx, endpoint("src", c.source(t)), endpoint("dst", store.NewMemory()), c.o)
			if err != nil {
				t.Fatal(err)
			}
			parts, err := p.Split(ctx, n)
			if err != nil {
				t.Fatal(err)
			}
			owner := map[string]int{}
			for i, pp := range parts {
				if pp.Index != i || pp.Count != n || int64(len(pp.Keys)) != pp.Objects || pp.Metadata != (i == 0) {
					t.Fatalf("%s, %d parts: part %d says %+v", c.name, n, i, pp)
				}
				for _, k := range pp.Keys {
					if j, ok := owner[k]; ok {
						t.Fatalf("%s, %d parts: %s is in partitions %d and %d", c.name, n, k, j, i)
					}
					owner[k] = i
					if isDoc(k) && i != 0 {
						t.Errorf("%s, %d parts: the document %s is partition %d's, not 0's", c.name, n, k, i)
					}
				}
			}
			for _, k := range want {
				if _, ok := owner[k]; !ok {
					t.Fatalf("%s, %d parts: %s, written by the whole copy, is in no partition's plan", c.name, n, k)
				}
			}
			if extra := len(owner) - len(want); extra != 0 && c.exact {
				t.Fatalf("%s, %d parts: the partitions' plans hold %d keys the whole copy does not write:\n%v\n%v",
					c.name, n, extra, slices.Sorted(maps.Keys(owner)), want)
			}
			for k := range owner {
				if isDoc(k) && !slices.Contains(want, k) {
					t.Fatalf("%s, %d parts: the document %s is planned, and the whole copy does not write it", c.name, n, k)
				}
			}
			again, err := transfer.Prepare(ctx, endpoint("src", c.source(t)), endpoint("dst", store.NewMemory()), c.o)
			if err != nil {
				t.Fatal(err)
			}
			if parts2, _ := again.Split(ctx, n); fmt.Sprint(parts2) != fmt.Sprint(parts) {
				t.Fatalf("%s, %d parts: split twice, two splits", c.name, n)
			}
		}
	}
}

// checkBalance fails unless every part weighs an even share of the
// copy's bytes, to within the heaviest object (an object belongs to the
// part its midpoint falls in: at most half an object too much or too
// little at either end).
func checkBalance(t *testing.T, what string, parts []report.PartitionPlan, heaviest int64) {
	t.Helper()
	total, n := parts[0].CopyBytes, int64(len(parts))
	var sum int64
	for _, pp := range parts {
		sum += pp.Bytes
		if d := pp.Bytes - total/n; d > heaviest || -d > heaviest {
			t.Errorf("%s: part %d weighs %d, an even share %d: off by more than an object (%d)", what, pp.Index, pp.Bytes, total/n, heaviest)
		}
	}
	if sum != total {
		t.Fatalf("%s: the parts weigh %d, the copy %d", what, sum, total)
	}
}

func isDoc(key string) bool {
	for _, d := range []string{"zarr.json", ".zarray", ".zgroup", ".zattrs", ".zmetadata"} {
		if key == d || strings.HasSuffix(key, "/"+d) {
			return true
		}
	}
	return false
}

// Objects of very different sizes are split by bytes, not by count: four
// large keys and a hundred small ones in four parts are a large key each,
// the small ones with the last.
func TestSplitByBytes(t *testing.T) {
	ctx := context.Background()
	src := store.NewMemory()
	if _, err := hierarchy.CreateGroup(ctx, src, "", meta.V3, nil); err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		src.Set(ctx, fmt.Sprintf("big/%d", i), make([]byte, 10000), store.Condition{})
	}
	for i := range 100 {
		src.Set(ctx, fmt.Sprintf("small/%02d", i), make([]byte, 10), store.Condition{})
	}
	p, err := transfer.Prepare(ctx, endpoint("src", src), endpoint("dst", store.NewMemory()), transfer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	parts, err := p.Split(ctx, 4)
	if err != nil {
		t.Fatal(err)
	}
	var counts []int64
	for _, pp := range parts {
		counts = append(counts, pp.Objects)
	}
	// partition 0: the root's zarr.json and big/0; 1 and 2: big/1, big/2;
	// 3: big/3 and the small keys
	if !slices.Equal(counts, []int64{2, 1, 1, 101}) {
		t.Fatalf("objects per part %v, want [2 1 1 101]: %+v", counts, parts)
	}
	checkBalance(t, "large and small keys", parts, 10001)
}

// A rewrite's chunks are weighed by the stored bytes of the source
// chunks they cover: eight shards of two uncompressed chunks (8 KiB) and
// the array's document (about 450 bytes, partition 0's) go two shards to
// a part in four parts, the document with partition 0, and one to a part
// in eight; and three parts are balanced to within a shard.
func TestSplitRewriteByBytes(t *testing.T) {
	ctx := context.Background()
	p, err := transfer.Prepare(ctx, endpoint("src", rewriteSource(t)), endpoint("dst", store.NewMemory()), toShards)
	if err != nil {
		t.Fatal(err)
	}
	const shard = 2*64*64 + 1
	for n, counts := range map[int][]int64{4: {3, 2, 2, 2}, 8: {2, 1, 1, 1, 1, 1, 1, 1}} {
		parts, err := p.Split(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, pp := range parts {
			got = append(got, pp.Objects)
		}
		if !slices.Equal(got, counts) {
			t.Errorf("%d parts of 8 shards (and the array's zarr.json): %v objects, want %v", n, got, counts)
		}
		checkBalance(t, fmt.Sprintf("%d parts", n), parts, shard)
	}
	parts, _ := p.Split(ctx, 3)
	checkBalance(t, "3 parts", parts, shard)
}

// rewriteSource is a v3 array of 256 x 256 uint8 in chunks of 64 x 64,
// every chunk stored uncompressed (4 KiB).
func rewriteSource(t *testing.T) store.Store {
	t.Helper()
	ctx := context.Background()
	src := store.NewMemory()
	m := &meta.ArrayMeta{Format: meta.V3, Shape: []int{256, 256}, ChunkShape: []int{64, 64}, DataType: dtype.Named("uint8"),
		FillValue: []byte{0}, ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"}, Attributes: json.RawMessage(`{}`),
		Codecs: []meta.Extension{{Name: "bytes"}}}
	a, err := hierarchy.CreateArray(ctx, src, "", m, opts)
	if err != nil {
		t.Fatal(err)
	}
	data := ndarray.New(m.DataType, m.Shape)
	for i := range data.Data {
		data.Data[i] = byte(i%255) + 1
	}
	if err := a.WriteAll(ctx, data); err != nil {
		t.Fatal(err)
	}
	return src
}

// toShards rewrites rewriteSource's chunks into shards of two.
var toShards = transfer.Options{Spec: layout.Spec{ToFormat: meta.V3, Shard: []int{128, 64}, InnerChunks: []int{64, 64}}}

// A stored key whose chunk would lie beyond an int (its coordinates times
// the chunk shape) is outside the array: the plans are those of the
// source without it. Such a key's origin once wrapped around, to a
// chunk of coordinates -1 planned beside the real ones, and to another
// counted in two partitions.
func TestSplitIgnoresChunkKeysBeyondInt(t *testing.T) {
	ctx := context.Background()
	split := func(src store.Store) []report.PartitionPlan {
		p, err := transfer.Prepare(ctx, endpoint("src", src), endpoint("dst", store.NewMemory()), toShards)
		if err != nil {
			t.Fatal(err)
		}
		parts, err := p.Split(ctx, 2)
		if err != nil {
			t.Fatal(err)
		}
		return parts
	}
	want := split(rewriteSource(t))
	src := rewriteSource(t)
	// 3 x 2^57 x 64 wraps to -2^63, (2^58 + 1) x 64 to 64: both beyond an int
	for _, k := range []string{"c/432345564227567616/0", "c/288230376151711745/0", "c/0/9223372036854775807"} {
		if _, err := src.Set(ctx, k, make([]byte, 1000), store.Condition{}); err != nil {
			t.Fatal(err)
		}
	}
	if got := split(src); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("with keys beyond the array, the plans are\n%+v\nwant\n%+v", got, want)
	}
}

// runPartitions runs the partitions of a copy, in the order given, each
// as a separate process would: planned on its own against the
// destination as the others have left it so far.
func runPartitions(t *testing.T, src store.Store, dst store.Store, o transfer.Options, n int, order []int) {
	t.Helper()
	ctx := context.Background()
	for _, i := range order {
		po := o
		po.Partition = transfer.Partition{Index: i, Count: n}
		if _, err := transfer.Run(ctx, endpoint("src", src), endpoint("dst", dst), po); err != nil {
			t.Fatalf("partition %d/%d: %v", i, n, err)
		}
	}
}

// Partitions run in any order, one of them twice at once with another,
// make what one whole copy makes, byte for byte, and Verify finds it
// complete; Verify finds a chunk missing, a chunk altered and a document
// altered, and names them.
func TestPartitionsMakeTheCopy(t *testing.T) {
	ctx := context.Background()
	for _, c := range partitionCases {
		whole := store.NewMemory()
		if _, err := transfer.Run(ctx, endpoint("src", c.source(t)), endpoint("dst", whole), c.o); err != nil {
			t.Fatal(err)
		}
		src, dst := c.source(t), store.NewMemory()
		runPartitions(t, src, dst, c.o, 4, []int{3, 1})
		// 2 and 0 at once, 2 twice: each writes its own objects, or the
		// same bytes as its twin
		var wg sync.WaitGroup
		errs := make(chan error, 3)
		for _, i := range []int{2, 0, 2} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				po := c.o
				po.Partition = transfer.Partition{Index: i, Count: 4}
				_, err := transfer.Run(ctx, endpoint("src", src), endpoint("dst", dst), po)
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
		}
		if !maps.Equal(snapshot(t, whole), snapshot(t, dst)) {
			t.Fatalf("%s: the partitions made other keys or bytes than one whole copy:\n%v\n%v", c.name,
				slices.Sorted(maps.Keys(snapshot(t, dst))), slices.Sorted(maps.Keys(snapshot(t, whole))))
		}
		r, err := transfer.Verify(ctx, endpoint("src", src), endpoint("dst", dst), c.o)
		if err != nil || r.Checked < int64(len(snapshot(t, whole))) || len(r.Problems) != 0 {
			t.Fatalf("%s: verify of a complete copy: %+v %v", c.name, r, err)
		}
		// damaged: a chunk gone, a chunk altered, a document altered
		keys := slices.Sorted(maps.Keys(snapshot(t, dst)))
		var chunks []string
		for _, k := range keys {
			if !isDoc(k) {
				chunks = append(chunks, k)
			}
		}
		gone, altered := chunks[0], chunks[len(chunks)-1]
		doc := keys[slices.IndexFunc(keys, isDoc)]
		dst.Erase(ctx, gone)
		dst.Set(ctx, altered, []byte("not the chunk"), store.Condition{})
		dst.Set(ctx, doc, []byte(`{"zarr_format":3,"node_type":"group","attributes":{"other":1}}`), store.Condition{})
		r, err = transfer.Verify(ctx, endpoint("src", src), endpoint("dst", dst), c.o)
		if !errors.Is(err, transfer.ErrDiffers) || r.Missing != 1 || r.Different < 2 { // consolidated metadata may differ too
			t.Fatalf("%s: verify of a damaged copy: %v %+v", c.name, err, r)
		}
		for _, want := range []string{"missing " + gone, "different " + altered, "different " + doc} {
			if !slices.ContainsFunc(r.Problems, func(p string) bool { return strings.HasPrefix(p, want) }) {
				t.Errorf("%s: verify says %q, not %q", c.name, r.Problems, want)
			}
		}
	}
}

// With more partitions than objects, the parts past them have nothing
// to write: they say so, write nothing, and end well; the copy is whole.
func TestPartitionsPastTheObjects(t *testing.T) {
	ctx := context.Background()
	src := store.NewMemory()
	if _, err := hierarchy.CreateGroup(ctx, src, "", meta.V3, nil); err != nil {
		t.Fatal(err)
	}
	src.Set(ctx, "only", []byte("value"), store.Condition{})
	dst := store.NewMemory()
	empty := 0
	for i := range 4 {
		o := transfer.Options{Partition: transfer.Partition{Index: i, Count: 4}}
		p, err := transfer.Prepare(ctx, endpoint("src", src), endpoint("dst", dst), o)
		if err != nil {
			t.Fatal(err)
		}
		before := snapshot(t, dst)
		s, err := p.Run(ctx, endpoint("dst", dst))
		if err != nil {
			t.Fatal(err)
		}
		if p.Partition.Objects > 0 {
			continue
		}
		empty++
		if !strings.Contains(p.Partition.Describe(), "nothing to write") {
			t.Errorf("partition %d, empty, says %q", i, p.Partition.Describe())
		}
		if s.Copied != 0 || !maps.Equal(before, snapshot(t, dst)) {
			t.Errorf("partition %d, empty, wrote: %s", i, s)
		}
	}
	if empty != 2 {
		t.Errorf("%d of 4 partitions of a copy of 2 objects are empty", empty)
	}
	sameKeys(t, src, dst)
}

// A partition stopped midway, as a killed process is, and run again
// with its journal writes only what the first run did not record, and
// the partitions still make the whole copy.
func TestPartitionResumes(t *testing.T) {
	ctx := context.Background()
	o := transfer.Options{Spec: layout.Spec{ToFormat: meta.V3, ChunksPerShard: 2}, Jobs: 1}
	whole := store.NewMemory()
	if _, err := transfer.Run(ctx, endpoint("src", source(t)), endpoint("dst", whole), o); err != nil {
		t.Fatal(err)
	}
	src, dst := source(t), store.NewMemory()
	runPartitions(t, src, dst, o, 2, []int{0})
	var sets atomic.Int64
	first, crash := context.WithCancel(ctx)
	counting := func(limit int64) store.Store {
		return store.WithHook(dst, func(ctx context.Context, op, _ string, call func(context.Context) error) error {
			if op == "set" && sets.Add(1) > limit {
				crash()
				return ctx.Err()
			}
			return call(ctx)
		})
	}
	o.Partition = transfer.Partition{Index: 1, Count: 2}
	p, err := transfer.Prepare(ctx, endpoint("src", src), endpoint("dst", dst), o)
	if err != nil {
		t.Fatal(err)
	}
	objects := p.Partition.Objects
	dir := t.TempDir()
	j, err := journal.Open(ctx, dir, "part", nil)
	if err != nil {
		t.Fatal(err)
	}
	half := objects / 2
	o.Journal = j
	if _, err := transfer.Run(first, endpoint("src", src), endpoint("dst", counting(half)), o); err == nil {
		t.Fatal("the stopped run ended well")
	}
	j.Close()
	if j, err = journal.Open(ctx, dir, "part", nil); err != nil {
		t.Fatal(err)
	}
	if int64(j.Resumed()) != half {
		t.Fatalf("the journal holds %d chunks of the %d written", j.Resumed(), half)
	}
	sets.Store(0)
	o.Journal = j
	s, err := transfer.Run(ctx, endpoint("src", src), endpoint("dst", counting(1<<30)), o)
	if err != nil {
		t.Fatal(err)
	}
	if int64(s.Skipped) != half || sets.Load() != objects-half {
		t.Fatalf("the rerun of a partition of %d chunks, %d done: %s, %d writes", objects, half, s, sets.Load())
	}
	if !maps.Equal(snapshot(t, whole), snapshot(t, dst)) {
		t.Fatal("the partitions, one of them resumed, made other keys or bytes than one whole copy")
	}
}

// Each partition has a journal of its own, and none shares the whole
// copy's.
func TestPartitionCopyIDs(t *testing.T) {
	seen := map[string]string{}
	for _, part := range []transfer.Partition{{}, {0, 1}, {0, 2}, {1, 2}, {0, 4}, {3, 4}} {
		id := transfer.CopyID("", "src.zarr", "dst.zarr", transfer.Options{Partition: part})
		if other, ok := seen[id]; ok {
			t.Errorf("partitions %v and %s share a journal", part, other)
		}
		seen[id] = part.String()
	}
	keys := slices.Collect(maps.Values(seen))
	sort.Strings(keys)
	if len(keys) != 6 {
		t.Errorf("journals %v", keys)
	}
}

// Partitions of a merge make what one whole merge makes: partition 0
// writes the merged documents and rebuilds the consolidated metadata the
// destination had; the others add their chunks beside the other
// hierarchy's, which stay. Where the destination holds the copied array
// already, its chunks the source does not store are replaced by fill
// values (removed), as a whole merge does: merged arrays are written
// whole.
func TestPartitionsMerge(t *testing.T) {
	ctx := context.Background()
	holdsTheArray := func(t *testing.T) store.Store {
		s := source(t)
		s.Set(ctx, "elsewhere", []byte("kept"), store.Condition{})
		v, _ := s.Get(ctx, "g/a0/0.0", store.ByteRange{})
		s.Set(ctx, "g/a0/7.0", v.Data, store.Condition{}) // rows 35 and 36: not stored in the source
		return s
	}
	for _, c := range []struct {
		o   transfer.Options
		dst func(*testing.T) store.Store
	}{
		{transfer.Options{Existing: transfer.Merge}, func(t *testing.T) store.Store { return other(t, true) }},
		{transfer.Options{Spec: layout.Spec{Chunks: []int{10, 10}}, Existing: transfer.Merge, Path: "g/a0"}, func(t *testing.T) store.Store { return other(t, true) }},
		{transfer.Options{Spec: layout.Spec{ToFormat: meta.V2}, Existing: transfer.Merge}, holdsTheArray},
	} {
		o := c.o
		whole := c.dst(t)
		if _, err := transfer.Run(ctx, endpoint("src", source(t)), endpoint("dst", whole), o); err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		dst := c.dst(t)
		runPartitions(t, source(t), dst, o, 3, []int{2, 0, 1})
		if !maps.Equal(snapshot(t, whole), snapshot(t, dst)) {
			t.Fatalf("%+v: the partitions of a merge made other keys or bytes than the whole merge:\n%v\n%v", o,
				slices.Sorted(maps.Keys(snapshot(t, dst))), slices.Sorted(maps.Keys(snapshot(t, whole))))
		}
		// the other hierarchy's keys below the copied node are counted, not checked
		if r, err := transfer.Verify(ctx, endpoint("src", source(t)), endpoint("dst", dst), o); err != nil || (r.Foreign == 0) != (o.Path != "") {
			t.Fatalf("%+v: verify of the merge: %+v %v", o, r, err)
		}
	}
}
