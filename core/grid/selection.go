package grid

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zarrgw/zarrgw/core/checked"
)

// Dim selects along one dimension: Count elements Start, Start+Step, ...
// Index selections (a single integer) have Count 1 and Drop set, so the
// dimension disappears from the result's shape.
type Dim struct {
	Start, Step, Count int
	Drop               bool
}

// Last is the last index d selects (Start for an empty d), and false
// when it overflows an int (such a selection is beyond every array).
func (d Dim) Last() (int, bool) {
	span, ok := checked.Mul(max(d.Count-1, 0), d.Step)
	if !ok {
		return 0, false
	}
	return checked.Add(d.Start, span)
}

// ChunksCrossed is how many chunks of the given extent hold indexes d
// selects: every chunk of its span when the step is shorter than a
// chunk, else one per index (each lands in another chunk; so too, as a
// bound, when the span is past counting).
func (d Dim) ChunksCrossed(chunk int) int {
	last, ok := d.Last()
	switch {
	case d.Count == 0:
		return 0
	case !ok || d.Step >= chunk:
		return d.Count
	}
	return last/chunk - d.Start/chunk + 1
}

// Selection has one Dim per array dimension.
type Selection []Dim

// All selects the whole of an array of the given shape.
func All(shape []int) Selection {
	s := make(Selection, len(shape))
	for i, n := range shape {
		s[i] = Dim{Start: 0, Step: 1, Count: n}
	}
	return s
}

// Box selects [start, start+count) along each dimension with step 1.
func Box(start, count []int) Selection {
	s := make(Selection, len(start))
	for i := range start {
		s[i] = Dim{Start: start[i], Step: 1, Count: count[i]}
	}
	return s
}

// Counts is the number of selected elements along every dimension,
// including dropped ones (which count 1).
func (s Selection) Counts() []int {
	out := make([]int, len(s))
	for i, d := range s {
		out[i] = d.Count
	}
	return out
}

// Shape is the shape of the selected data, without dropped dimensions.
func (s Selection) Shape() []int {
	out := make([]int, 0, len(s))
	for _, d := range s {
		if !d.Drop {
			out = append(out, d.Count)
		}
	}
	return out
}

// Check verifies that s is a valid selection of an array of the given shape.
func (s Selection) Check(shape []int) error {
	if len(s) != len(shape) {
		return fmt.Errorf("selection has %d dimensions, array has %d", len(s), len(shape))
	}
	for i, d := range s {
		if d.Count < 0 || d.Step <= 0 || d.Start < 0 {
			return fmt.Errorf("dimension %d: invalid selection start=%d step=%d count=%d", i, d.Start, d.Step, d.Count)
		}
		if last, ok := d.Last(); d.Count > 0 && (!ok || last >= shape[i]) {
			return fmt.Errorf("dimension %d: selection of %d elements from %d, %d apart, reaches beyond extent %d", i, d.Count, d.Start, d.Step, shape[i])
		}
	}
	return nil
}

// Parse reads a selection in numpy notation for an array of the given
// shape: comma-separated per dimension "i", "start:stop", "start:stop:step"
// (negative start/stop count from the end, steps must be positive), "..."
// or ":" for everything. Missing trailing dimensions select everything.
func Parse(expr string, shape []int) (Selection, error) {
	expr = strings.TrimSpace(expr)
	var parts []string
	if expr != "" {
		parts = strings.Split(expr, ",")
	}
	if i := indexOf(parts, "..."); i >= 0 {
		fill := len(shape) - (len(parts) - 1)
		if fill < 0 {
			return nil, fmt.Errorf("selection %q has more dimensions than the array (%d)", expr, len(shape))
		}
		expanded := append([]string{}, parts[:i]...)
		for k := 0; k < fill; k++ {
			expanded = append(expanded, ":")
		}
		parts = append(expanded, parts[i+1:]...)
	}
	if len(parts) > len(shape) {
		return nil, fmt.Errorf("selection %q has %d dimensions, array has %d", expr, len(parts), len(shape))
	}
	sel := All(shape)
	for i, p := range parts {
		d, err := parseDim(strings.TrimSpace(p), shape[i])
		if err != nil {
			return nil, fmt.Errorf("selection %q, dimension %d: %w", expr, i, err)
		}
		sel[i] = d
	}
	return sel, nil
}

func indexOf(parts []string, want string) int {
	for i, p := range parts {
		if strings.TrimSpace(p) == want {
			return i
		}
	}
	return -1
}

func parseDim(p string, n int) (Dim, error) {
	if !strings.Contains(p, ":") {
		i, err := strconv.Atoi(p)
		if err != nil {
			return Dim{}, fmt.Errorf("invalid index %q", p)
		}
		if i < 0 {
			i += n
		}
		if i < 0 || i >= n {
			return Dim{}, fmt.Errorf("index %s out of range for extent %d", p, n)
		}
		return Dim{Start: i, Step: 1, Count: 1, Drop: true}, nil
	}
	f := strings.Split(p, ":")
	if len(f) > 3 {
		return Dim{}, fmt.Errorf("invalid slice %q", p)
	}
	step := 1
	if len(f) == 3 && f[2] != "" {
		var err error
		if step, err = strconv.Atoi(f[2]); err != nil || step <= 0 {
			return Dim{}, fmt.Errorf("invalid step %q (steps must be positive)", f[2])
		}
	}
	start, err := sliceBound(f[0], 0, n)
	if err != nil {
		return Dim{}, err
	}
	stop, err := sliceBound(f[1], n, n)
	if err != nil {
		return Dim{}, err
	}
	count := 0
	if stop > start {
		count = checked.CeilDiv(stop-start, step)
	}
	return Dim{Start: start, Step: step, Count: count}, nil
}

// sliceBound resolves one slice bound the way Python does: negative counts
// from the end, out-of-range values are clipped.
func sliceBound(s string, def, n int) (int, error) {
	if s == "" {
		return def, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("invalid slice bound %q", s)
	}
	if v < 0 {
		v += n
	}
	return max(0, min(v, n)), nil
}
