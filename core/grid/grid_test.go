package grid

import (
	"math/rand"
	"reflect"
	"testing"

	"github.com/zarrgw/zarrgw/core/meta"
)

func TestKeys(t *testing.T) {
	cases := []struct {
		enc    meta.ChunkKeyEncoding
		coords []int
		want   string
	}{
		{meta.ChunkKeyEncoding{Name: "default", Separator: "/"}, []int{1, 23, 45}, "c/1/23/45"},
		{meta.ChunkKeyEncoding{Name: "default", Separator: "."}, []int{1, 23, 45}, "c.1.23.45"},
		{meta.ChunkKeyEncoding{Name: "default"}, nil, "c"},
		{meta.ChunkKeyEncoding{Name: "v2"}, []int{1, 23, 45}, "1.23.45"},
		{meta.ChunkKeyEncoding{Name: "v2", Separator: "/"}, []int{2, 4}, "2/4"},
		{meta.ChunkKeyEncoding{Name: "v2"}, nil, "0"},
		{meta.ChunkKeyEncoding{Name: "draft", Separator: "/"}, []int{0, 0}, "c0/0"},
		{meta.ChunkKeyEncoding{Name: "draft", Separator: "/"}, []int{1, 23, 45}, "c1/23/45"},
	}
	for _, c := range cases {
		e, err := NewKeyEncoder(c.enc)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.Key(c.coords); got != c.want {
			t.Errorf("%v %v: got %q want %q", c.enc, c.coords, got, c.want)
		}
		back, ok := e.Parse(c.want, len(c.coords))
		if !ok || (len(c.coords) > 0 && !reflect.DeepEqual(back, c.coords)) {
			t.Errorf("parse %q: got %v %v", c.want, back, ok)
		}
	}
	if _, err := NewKeyEncoder(meta.ChunkKeyEncoding{Name: "default", Separator: "-"}); err == nil {
		t.Error("separator - accepted")
	}
}

func TestParseSelection(t *testing.T) {
	shape := []int{10, 20, 30}
	sel, err := Parse("2, 5:15:3, -5:", shape)
	if err != nil {
		t.Fatal(err)
	}
	want := Selection{{2, 1, 1, true}, {5, 3, 4, false}, {25, 1, 5, false}}
	if !reflect.DeepEqual(sel, want) {
		t.Fatalf("got %+v", sel)
	}
	if got := sel.Shape(); !reflect.DeepEqual(got, []int{4, 5}) {
		t.Fatalf("shape %v", got)
	}
	sel, err = Parse("..., 3", shape)
	if err != nil || !reflect.DeepEqual(sel[2], Dim{3, 1, 1, true}) || sel[0].Count != 10 {
		t.Fatalf("ellipsis: %+v %v", sel, err)
	}
	for _, bad := range []string{"10", "1,2,3,4", "::0", "::-1", "a", "1:2:3:4"} {
		if _, err := Parse(bad, shape); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// Every selected element must land in exactly one projection, at the
// right chunk and output position.
func TestProjectCoversSelection(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for iter := 0; iter < 300; iter++ {
		rank := r.Intn(3) + 1
		shape, chunks := make([]int, rank), make([]int, rank)
		sel := make(Selection, rank)
		for i := range shape {
			shape[i] = r.Intn(20) + 1
			chunks[i] = r.Intn(7) + 1
			start := r.Intn(shape[i])
			step := r.Intn(4) + 1
			count := r.Intn((shape[i]-start-1)/step+1) + 1
			sel[i] = Dim{Start: start, Step: step, Count: count}
		}
		g, _ := New(shape, chunks)
		if err := sel.Check(shape); err != nil {
			t.Fatal(err)
		}
		seen := map[[3]int]int{}
		for _, p := range g.Project(sel) {
			forEachIndex(counts(p.Out), func(k []int) bool {
				var outKey, arr [3]int
				for d := range k {
					outKey[d] = p.Out[d].Start + k[d]*p.Out[d].Step
					local := p.InChunk[d].Start + k[d]*p.InChunk[d].Step
					if local >= chunks[d] {
						t.Fatalf("local index %d outside chunk %d", local, chunks[d])
					}
					arr[d] = p.Chunk[d]*chunks[d] + local
					if want := sel[d].Start + outKey[d]*sel[d].Step; arr[d] != want {
						t.Fatalf("output %v maps to array %v, want %d in dim %d", outKey, arr, want, d)
					}
				}
				seen[outKey]++
				return true
			})
		}
		coveredOnce(t, sel, seen)
	}
}

func counts(s []Span) []int {
	out := make([]int, len(s))
	for i := range s {
		out[i] = s[i].Count
	}
	return out
}

// coveredOnce fails unless seen counts every element of sel's output
// once.
func coveredOnce(t *testing.T, sel Selection, seen map[[3]int]int) {
	t.Helper()
	total := 1
	for _, d := range sel {
		total *= d.Count
	}
	if len(seen) != total {
		t.Fatalf("covered %d of %d elements", len(seen), total)
	}
	for k, n := range seen {
		if n != 1 {
			t.Fatalf("element %v covered %d times", k, n)
		}
	}
}
