// Package arraycost estimates the memory a read or a write of an array
// selection holds (chunks in flight, projections, buffers), with checked
// arithmetic: an estimate that overflows is a refusal, never a small
// number. The faces take these estimates from the budgets before their
// handlers run.
package arraycost

import (
	"fmt"
	"net/http"
	"runtime"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/checked"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/shard"
	"github.com/zarrgw/zarrgw/host/serve/server"
)

// Estimates of what reading a selection holds beyond its output.
const (
	// projectionBytes is one chunk's projection (grid.Projection: three
	// slices of the rank's length), with its share of the growing list.
	projectionBytes = 320
	projectionDim   = 64 // per dimension
	// responseBytes is a response's buffers (JSON, PNG writers).
	responseBytes = 1 << 20
)

// ReadCost estimates the memory reading sel of a holds beyond its output
// buffer: the chunks in flight, each stored and decoded at once, and the
// chunks' projections, which a whole read makes all at once and a
// streamed read slab by slab (two slabs of streamBudget/2 at a time).
// Every step is checked: an estimate that overflows is an error (413),
// never a small number that fits the budget.
func ReadCost(a *array.Array, sel grid.Selection, concurrency int, streamBudget int64, streamed bool) (int64, error) {
	var c checked.Calc
	touched := a.Grid().ChunksCrossed(sel)
	chunks := c.Product(touched)
	inner := a.InnerChunkShape() // read from the metadata: once
	chunk := decodedChunkBytes(a, inner, &c)
	projections := chunks
	if streamed {
		projections = min(chunks, c.Mul(2, c.Add(c.Add(RowChunks(touched, &c), streamBudget/max(1, chunk)), 1)))
	}
	inFlight := min(chunks, int64(concurrency))
	perProjection := projectionBytes + projectionDim*int64(len(sel))
	n := c.Add(c.Mul(projections, perProjection), c.Mul(inFlight, c.Add(c.Mul(2, chunk), indexBytes(a, inner, &c))))
	return n, Overflowed(a, &c)
}

// SliceCost estimates what streaming sel of a holds: its slabs (two, of
// at most half the stream's budget each) and the reading of chunks.
func SliceCost(a *array.Array, sel grid.Selection, concurrency int, streamBudget int64) (int64, error) {
	var c checked.Calc
	selection := c.Mul(c.Product(sel.Counts()), a.ElemBytes())
	slabs := 2 * min(selection, streamBudget/2) // 2 x selection may overflow
	read, err := ReadCost(a, sel, concurrency, streamBudget, true)
	if err != nil {
		return 0, err
	}
	return c.Add(responseBytes+slabs, read), Overflowed(a, &c)
}

// WriteCost estimates what writing sel of a holds: what streaming it
// holds, and, for a sharded array, its shards in flight, each built whole
// (a write decodes, changes and encodes a whole chunk, a shard with all
// its inner chunks), once decoded and once encoded.
func WriteCost(a *array.Array, sel grid.Selection, concurrency int, streamBudget int64) (int64, error) {
	n, err := SliceCost(a, sel, concurrency, streamBudget)
	if err != nil || a.InnerChunkShape() == nil {
		return n, err
	}
	var c checked.Calc
	shards := c.Product(a.Grid().ChunksCrossed(sel))
	whole := c.Mul(c.Product(a.Meta().ChunkShape), a.ElemBytes())
	n = c.Add(n, c.Mul(min(shards, int64(concurrency)), c.Mul(2, whole)))
	return n, Overflowed(a, &c)
}

// Overflowed is the refusal of a request whose estimate overflowed: it
// would hold more than any budget.
func Overflowed(a *array.Array, c *checked.Calc) error {
	if !c.Overflowed() {
		return nil
	}
	return &server.RequestError{Status: http.StatusRequestEntityTooLarge, Msg: fmt.Sprintf(
		"array %s: the memory this request would hold is beyond a 64-bit count: ask for a smaller selection", a.Name())}
}

// rowChunks is how many chunks one run of chunk rows spans: those of
// every dimension after the first that spans several.
func RowChunks(touched []int, c *checked.Calc) int64 {
	for i, n := range touched {
		if n > 1 {
			return c.Product(touched[i+1:])
		}
	}
	return 1
}

// decodedChunkBytes is a decoded chunk's size; for a sharded array (inner
// its inner chunk shape), an inner chunk's (shards are decoded an inner
// chunk at a time).
func decodedChunkBytes(a *array.Array, inner []int, c *checked.Calc) int64 {
	shape := a.Meta().ChunkShape
	if inner != nil {
		shape = inner
	}
	return c.Mul(c.Product(shape), a.ElemBytes())
}

// indexBytes is a shard's index (16 bytes per inner chunk), 0 unsharded.
func indexBytes(a *array.Array, inner []int, c *checked.Calc) int64 {
	if inner == nil {
		return 0
	}
	return c.Mul(shard.EntrySize, c.Product(a.Meta().ChunkShape)/max(c.Product(inner), 1))
}

// Concurrency is the chunks an array read has in flight (array.Options'
// default when the host sets none).
func Concurrency(opts array.Options) int {
	if opts.Concurrency > 0 {
		return opts.Concurrency
	}
	return 2 * runtime.GOMAXPROCS(0)
}
