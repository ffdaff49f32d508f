package codectest

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
)

// Build builds a codec with f from cfg (a JSON configuration, or "" for
// none) and returns it as C: the codec package's own type, or the codec
// interface a test works through. An error, or a codec that is not a C,
// fails the test.
func Build[C codec.Codec](t testing.TB, f codec.Factory, cfg string) C {
	t.Helper()
	c, err := f(context.Background(), json.RawMessage(cfg), nil)
	if err != nil {
		t.Fatalf("build from %q: %v", cfg, err)
	}
	typed, ok := c.(C)
	if !ok {
		t.Fatalf("build from %q: got a %T, want a %v", cfg, c, reflect.TypeFor[C]())
	}
	return typed
}

// Builder binds Build to a codec package's constructor, once per package:
//
//	var newCodec = codectest.Builder[*Codec](New)
func Builder[C codec.Codec](f codec.Factory) func(t testing.TB, cfg string) C {
	return func(t testing.TB, cfg string) C {
		t.Helper()
		return Build[C](t, f, cfg)
	}
}

// CheckConfigurations builds a codec with f from each key of written and
// fails unless its Configuration is the value: what metadata records for
// the configuration given (defaults filled in, a numcodecs "id" dropped).
func CheckConfigurations(t testing.TB, f codec.Factory, written map[string]string) {
	t.Helper()
	for cfg, want := range written {
		if got := string(Build[codec.Codec](t, f, cfg).Configuration()); got != want {
			t.Errorf("%s: %s, want %s", cfg, got, want)
		}
	}
}

// CheckRefused fails for each configuration that f builds a codec from:
// every one of them is invalid.
func CheckRefused(t testing.TB, f codec.Factory, cfgs ...string) {
	t.Helper()
	for _, cfg := range cfgs {
		if _, err := f(context.Background(), json.RawMessage(cfg), nil); err == nil {
			t.Errorf("%s accepted", cfg)
		}
	}
}

// Number is an element type with a fixed size in memory.
type Number interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64
}

// LittleEndian is the memory form of elements v (the little-endian bytes
// of an array's Data), for writing expected chunks out by hand.
func LittleEndian[T Number](v ...T) []byte {
	b, err := binary.Append(make([]byte, 0, binary.Size(v)), binary.LittleEndian, v)
	if err != nil {
		panic(fmt.Sprintf("codectest.LittleEndian: %v", err)) // every Number has a fixed size
	}
	return b
}
