package shard

import (
	"slices"
	"testing"
)

func TestMortonOrder(t *testing.T) {
	cases := []struct {
		cps  []int
		want []int
	}{
		{[]int{2, 2}, []int{0, 2, 1, 3}},
		{[]int{4, 4}, []int{0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15}},
		{[]int{3}, []int{0, 1, 2}},
		{[]int{2, 3}, []int{0, 3, 1, 4, 2, 5}},
		{[]int{1, 1}, []int{0}},
		{[]int{}, []int{0}},
	}
	for _, c := range cases {
		if got := MortonOrder(c.cps); !slices.Equal(got, c.want) {
			t.Errorf("MortonOrder(%v) = %v, want %v", c.cps, got, c.want)
		}
	}
	got := MortonOrder([]int{5, 3, 7})
	sorted := slices.Sorted(slices.Values(got))
	for i, v := range sorted {
		if v != i {
			t.Fatalf("MortonOrder([5 3 7]) is not a permutation: %v", got)
		}
	}
}

func TestCoalesce(t *testing.T) {
	c := Coalescing{MaxGap: 4, MaxSize: 30}
	in := []Span{{20, 5}, {0, 10}, {12, 4}, {41, 2}, {26, 10}}
	merged, pieces := c.Coalesce(in)
	want := []Span{{0, 25}, {26, 10}, {41, 2}}
	if !slices.Equal(merged, want) {
		t.Fatalf("merged %v, want %v", merged, want)
	}
	for i, p := range pieces {
		m := merged[p.Merged]
		if m.Offset+p.Offset != in[i].Offset || p.Offset+in[i].Length > m.Length {
			t.Errorf("range %v placed at %+v in %v", in[i], p, m)
		}
	}
	if m, _ := (Coalescing{}).Coalesce([]Span{{0, 4}, {4, 4}}); len(m) != 2 {
		t.Errorf("MaxSize 0 merged %v", m)
	}
}
