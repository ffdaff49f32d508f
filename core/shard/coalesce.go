package shard

import "sort"

// Coalescing merges the byte ranges of nearby inner chunks into fewer
// requests: one request per gap costs more than reading a small gap.
type Coalescing struct {
	// MaxGap is the largest run of unwanted bytes read to join two ranges.
	MaxGap int64
	// MaxSize caps a merged request (a single range may exceed it).
	MaxSize int64
}

// DefaultCoalescing suits local disks and object stores alike: reading a
// 64 KiB gap costs less than another request's round trip, and 16 MiB
// bounds what one merged request holds in memory.
var DefaultCoalescing = Coalescing{MaxGap: 64 << 10, MaxSize: 16 << 20}

// Span is a byte range [Offset, Offset+Length).
type Span struct {
	Offset, Length int64
}

// Piece places one requested range inside a merged one.
type Piece struct {
	Merged int   // index into the merged ranges
	Offset int64 // where the requested bytes start within it
}

// Coalesce merges ranges. It returns the merged ranges, sorted by offset,
// and for each input range where its bytes are.
func (c Coalescing) Coalesce(ranges []Span) ([]Span, []Piece) {
	order := make([]int, len(ranges))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return ranges[order[a]].Offset < ranges[order[b]].Offset })
	var merged []Span
	pieces := make([]Piece, len(ranges))
	for _, i := range order {
		r := ranges[i]
		if k := len(merged) - 1; k >= 0 && c.joins(merged[k], r) {
			m := &merged[k]
			m.Length = max(m.Offset+m.Length, r.Offset+r.Length) - m.Offset
			pieces[i] = Piece{Merged: k, Offset: r.Offset - m.Offset}
			continue
		}
		merged = append(merged, r)
		pieces[i] = Piece{Merged: len(merged) - 1}
	}
	return merged, pieces
}

func (c Coalescing) joins(m, r Span) bool {
	end := m.Offset + m.Length
	if r.Offset-end > c.MaxGap {
		return false
	}
	return max(end, r.Offset+r.Length)-m.Offset <= c.MaxSize
}
