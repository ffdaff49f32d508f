package references

import (
	"context"
	"errors"
	"fmt"

	"github.com/zarrgw/zarrgw/core/checked"
	"github.com/zarrgw/zarrgw/core/store"
)

// Limits bound what a reference set may make: the bytes read of its own
// documents (the JSON form whole; the Parquet form's index and each of
// its record files), as a set is often a third party's file of any size;
// and beyond those bytes, the references its gen entries make and the
// bytes of keys and URLs its templates and gen entries expand to, in all
// (a few bytes of gen or template can ask for terabytes); for the Parquet
// form, the bytes of paths and inline values one record file decodes to
// (a compressed record file can ask for as much).
type Limits struct {
	SetBytes  int64 // bytes of one document read: the JSON set, .zmetadata, a record file
	Generated int64 // references made by gen entries, in all
	Bytes     int64 // bytes of keys and URLs made (JSON forms); of a record file's values (Parquet)
}

// DefaultLimits fit a machine of 4 GB. Parsing a JSON set holds about 15
// times its bytes at its peak (a kerchunk set of 57 MB, a million
// references: 830 MB resident), up to 32 times for a set of tiny inline
// values: a set of 64 MiB costs 1 to 2 GB. Larger sets are what the
// Parquet form is for. A million references made by gen entries cost
// about 300 MB.
var DefaultLimits = Limits{SetBytes: 64 << 20, Generated: 1_000_000, Bytes: 256 << 20}

// errBudget is a set that asks for more than its Limits allow.
var errBudget = errors.New("over the reference set's budget")

// budget is what is left of a set's Limits while it is read.
type budget struct {
	refs, bytes int64
	limits      Limits
}

func newBudget(l Limits) *budget { return &budget{refs: l.Generated, bytes: l.Bytes, limits: l} }

// generate takes n references from the budget.
func (b *budget) generate(n int64) error {
	if n > b.refs {
		return b.tooMany()
	}
	b.refs -= n
	return nil
}

// tooMany is the error of a gen entry that would make more references
// than are left.
func (b *budget) tooMany() error {
	return fmt.Errorf("%w: more than the %d references gen entries may make in all (max_generated)", errBudget, b.limits.Generated)
}

// spend takes n bytes from the budget.
func (b *budget) spend(n int64) error {
	if n > b.bytes {
		return b.tooLong()
	}
	b.bytes -= n
	return nil
}

// tooLong is the error of a string that would take more bytes than are
// left.
func (b *budget) tooLong() error {
	return fmt.Errorf("%w: more than the %d bytes of keys and URLs templates and gen entries may make in all (max_generated_bytes)", errBudget, b.limits.Bytes)
}

// fits reports whether n more bytes would fit, taking nothing: a string
// being built is checked as it grows, and taken once made.
func (b *budget) fits(n int64) bool { return n <= b.bytes }

// errOverflow is template arithmetic that overflowed: expressions
// compute offsets and lengths, and a wrapped one would read other bytes
// than the set meant.
var errOverflow = errors.New("integer overflow")

// overflowf is the error of an operation that overflowed.
func overflowf(a int64, op string, b int64) error {
	return fmt.Errorf("%d %s %d: %w", a, op, b, errOverflow)
}

// rangeLen is how many values Python's range(start, stop, step) has,
// without overflow at any int64 bounds; step is not 0. The span is
// counted in uint64: from math.MinInt64 to math.MaxInt64 it is beyond
// an int64, and such a range of a large step has few values.
func rangeLen(start, stop, step int64) uint64 {
	switch {
	case step > 0 && stop > start:
		return checked.CeilDiv(uint64(stop)-uint64(start), uint64(step))
	case step < 0 && stop < start:
		return checked.CeilDiv(uint64(start)-uint64(stop), -uint64(step))
	}
	return 0
}

// readWithin reads key of d whole, refusing a value of more than max
// bytes as it is read: it asks for max+1 bytes, so that a document of
// any size costs at most that much to find too large.
func readWithin(ctx context.Context, d store.Store, key string, max int64) ([]byte, error) {
	r := store.ByteRange{}
	if n, ok := checked.Add(max, 1); ok {
		r = store.Range(0, n)
	}
	v, err := d.Get(ctx, key, r)
	if err != nil {
		return nil, err
	}
	if int64(len(v.Data)) > max {
		return nil, fmt.Errorf("%w: more than the %d bytes a document of the set may take (max_set_bytes)", errBudget, max)
	}
	return v.Data, nil
}
