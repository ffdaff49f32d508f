package numeric

import (
	"testing"

	"github.com/zarrgw/zarrgw/core/dtype"
)

// A Type written as a literal is whole: int64's values are not masked to
// nothing (cast_value once built its datetime type so).
func TestLiteralType(t *testing.T) {
	lit := Type{Kind: dtype.Int, Size: 8}
	b := make([]byte, 8)
	lit.Store(b, Int(-7))
	if v := lit.Load(b); v.Bits != uint64(0xfffffffffffffff9) || !v.Signed {
		t.Errorf("int64 literal: stored %x, loaded %+v", b, v)
	}
}
