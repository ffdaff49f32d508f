package bounded

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/zarrgw/zarrgw/core/codec"
)

func spec(exact, max int64) codec.Spec { return codec.Spec{DecodedSize: exact, MaxDecodedSize: max} }

func TestReadAll(t *testing.T) {
	data := bytes.Repeat([]byte("abcdefgh"), 1000) // 8000 bytes
	cases := []struct {
		name string
		s    codec.Spec
		ok   bool
	}{
		{"exact", spec(8000, 8000), true},
		{"exact too small", spec(7999, 0), false},
		{"exact too large", spec(8001, 0), false},
		{"bound equal", spec(-1, 8000), true},
		{"bound above", spec(-1, 1<<20), true},
		{"bound below", spec(-1, 7999), false},
		{"no bound", spec(-1, 0), true},
		{"exact above bound", spec(8000, 100), false},
	}
	for _, c := range cases {
		for _, hint := range []int{0, 10, 8000, 1 << 20} {
			r := iotest.HalfReader(bytes.NewReader(data))
			got, err := ReadAll(r, c.s, hint)
			if c.ok && (err != nil || !bytes.Equal(got, data)) {
				t.Errorf("%s hint %d: %v (%d bytes)", c.name, hint, err, len(got))
			}
			if !c.ok && !errors.Is(err, codec.ErrCorrupt) {
				t.Errorf("%s hint %d: error %v, want ErrCorrupt", c.name, hint, err)
			}
		}
	}
}

func TestReadAllReaderError(t *testing.T) {
	r := io.MultiReader(bytes.NewReader([]byte("abc")), iotest.ErrReader(errors.New("boom")))
	for _, s := range []codec.Spec{spec(3, 0), spec(10, 0), spec(-1, 0)} {
		if _, err := ReadAll(r, s, 0); !errors.Is(err, codec.ErrCorrupt) {
			t.Errorf("%+v: %v", s, err)
		}
		r = io.MultiReader(bytes.NewReader([]byte("abc")), iotest.ErrReader(errors.New("boom")))
	}
}

func TestCheck(t *testing.T) {
	if Check(5, spec(5, 5)) != nil || Check(5, spec(-1, 0)) != nil || Check(5, spec(-1, 5)) != nil {
		t.Error("valid sizes refused")
	}
	for _, c := range []struct {
		n int64
		s codec.Spec
	}{{4, spec(5, 0)}, {6, spec(-1, 5)}, {-1, spec(-1, 0)}} {
		if err := Check(c.n, c.s); !errors.Is(err, codec.ErrCorrupt) {
			t.Errorf("Check(%d, %+v) = %v", c.n, c.s, err)
		}
	}
	if l, ok := Limit(spec(-1, 0)); ok {
		t.Errorf("Limit without bound = %d", l)
	}
	if l, ok := Limit(spec(3, 9)); !ok || l != 3 {
		t.Errorf("Limit = %d", l)
	}
}
