package codectest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/codec/codectest"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// recorder is a testing.TB that records failures instead of failing, so
// that the helpers' own failures can be checked. Fatalf stops the helper
// as testing's does, by unwinding to failures.
type recorder struct {
	testing.TB
	msgs []string
}

type fatal struct{}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	panic(fatal{})
}

// failures runs fn with a recorder and returns what it reported.
func failures(fn func(tb testing.TB)) (msgs []string) {
	r := &recorder{}
	defer func() {
		if p := recover(); p != nil && p != (fatal{}) {
			panic(p)
		}
		msgs = r.msgs
	}()
	fn(r)
	return r.msgs
}

// level is a codec whose configuration is {"level":N}, 0 to 9, 1 by default.
type level struct{ n int }

func (level) Name() string { return "test.level" }
func (l level) Configuration() json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"level":%d}`, l.n))
}
func (level) EncodeBytes(_ context.Context, _ codec.Spec, b []byte) ([]byte, error) {
	return b, nil
}
func (level) DecodeBytes(_ context.Context, _ codec.Spec, b []byte) ([]byte, error) {
	return b, nil
}

func newLevel(_ context.Context, cfg json.RawMessage, _ codec.Resolver) (codec.Codec, error) {
	l := level{n: 1}
	if len(cfg) > 0 {
		if err := json.Unmarshal(cfg, &struct{ Level *int }{&l.n}); err != nil {
			return nil, err
		}
	}
	if l.n < 0 || l.n > 9 {
		return nil, errors.New("level out of range")
	}
	return l, nil
}

func TestBuild(t *testing.T) {
	if c := codectest.Builder[level](newLevel)(t, `{"level":4}`); c.n != 4 {
		t.Errorf("built level %d, want 4", c.n)
	}
	for cfg, want := range map[string]string{`{"level":10}`: "out of range", `{}`: "want a codec.ArrayBytes", `[1]`: "cannot unmarshal"} {
		msgs := failures(func(tb testing.TB) {
			if cfg == `{}` {
				codectest.Build[codec.ArrayBytes](tb, newLevel, cfg) // a level is a BytesBytes
				return
			}
			codectest.Build[level](tb, newLevel, cfg)
		})
		if len(msgs) != 1 || !strings.Contains(msgs[0], want) {
			t.Errorf("%s: failures %q, want one saying %q", cfg, msgs, want)
		}
	}
}

func TestCheckConfigurations(t *testing.T) {
	if msgs := failures(func(tb testing.TB) {
		codectest.CheckConfigurations(tb, newLevel, map[string]string{``: `{"level":1}`, `{"level":3}`: `{"level":3}`})
	}); len(msgs) != 0 {
		t.Errorf("right configurations: %q", msgs)
	}
	msgs := failures(func(tb testing.TB) {
		codectest.CheckConfigurations(tb, newLevel, map[string]string{``: `{"level":2}`, `{"level":3}`: `{"level":3}`})
	})
	if len(msgs) != 1 || !strings.Contains(msgs[0], `{"level":1}, want {"level":2}`) {
		t.Errorf("a wrong default: %q", msgs)
	}
}

func TestCheckRefused(t *testing.T) {
	msgs := failures(func(tb testing.TB) {
		codectest.CheckRefused(tb, newLevel, `{"level":10}`, `{"level":5}`, `{"level":-1}`, `{}`)
	})
	if len(msgs) != 2 || msgs[0] != `{"level":5} accepted` || msgs[1] != `{} accepted` {
		t.Errorf("failures %q, want the two valid configurations named", msgs)
	}
}

func TestLittleEndian(t *testing.T) {
	for _, c := range []struct{ got, want []byte }{
		{codectest.LittleEndian[int16](1, -2), []byte{1, 0, 0xfe, 0xff}},
		{codectest.LittleEndian[float32](1.5), []byte{0, 0, 0xc0, 0x3f}},
		{codectest.LittleEndian[float64](-2), []byte{0, 0, 0, 0, 0, 0, 0, 0xc0}},
		{codectest.LittleEndian[uint8](), []byte{}},
	} {
		if !bytes.Equal(c.got, c.want) {
			t.Errorf("%x, want %x", c.got, c.want)
		}
	}
}

// The round trips return what the codec made, and fail naming the codec
// when it fails.
func TestRoundTripArray(t *testing.T) {
	a := &ndarray.Array{DType: dtype.Named("uint8"), Shape: []int{3}, Data: []byte{1, 2, 3}}
	enc, dec := codectest.RoundTripArray(t, neg{}, codectest.ArraySpec(a), a)
	if !bytes.Equal(enc.Data, []byte{0xff, 0xfe, 0xfd}) || !bytes.Equal(dec.Data, a.Data) {
		t.Errorf("encoded %x, decoded %x", enc.Data, dec.Data)
	}
	b, back := codectest.RoundTripArrayBytes(t, raw{}, codectest.ArraySpec(a), a)
	if !bytes.Equal(b, a.Data) || !bytes.Equal(back.Data, a.Data) {
		t.Errorf("encoded %x, decoded %x", b, back.Data)
	}
	msgs := failures(func(tb testing.TB) {
		codectest.RoundTripArrayBytes(tb, raw{}, codectest.ArraySpec(&ndarray.Array{DType: a.DType, Shape: []int{4}}), a)
	})
	if len(msgs) != 1 || !strings.Contains(msgs[0], "test.raw") || !strings.Contains(msgs[0], "decode uint8[4]") {
		t.Errorf("a decode of the wrong size: %q", msgs)
	}
}
