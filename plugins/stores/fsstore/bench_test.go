package fsstore

import (
	"strconv"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

const mib = 1 << 20

func benchStore(b *testing.B, opts ...Option) *Store {
	s, err := New(b.TempDir(), opts...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	return s
}

func benchSet(b *testing.B, size int, opts ...Option) {
	s := benchStore(b, opts...)
	data := make([]byte, size)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Set(b.Context(), "a/c/0/0", data, store.Condition{}); err != nil {
			b.Fatal(err)
		}
	}
}

// The Set benchmarks come in pairs to show what the directory fsync costs.
func BenchmarkSet1MiB(b *testing.B)          { benchSet(b, mib) }
func BenchmarkSet1MiBNoDirSync(b *testing.B) { benchSet(b, mib, WithDirSync(false)) }
func BenchmarkSet4KiB(b *testing.B)          { benchSet(b, 4<<10) }
func BenchmarkSet4KiBNoDirSync(b *testing.B) { benchSet(b, 4<<10, WithDirSync(false)) }

func BenchmarkConditionalSet4KiB(b *testing.B) {
	s := benchStore(b, WithDirSync(false))
	data := make([]byte, 4<<10)
	version, err := s.Set(b.Context(), "k", data, store.Condition{})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if version, err = s.Set(b.Context(), "k", data, store.Condition{IfMatch: version}); err != nil {
			b.Fatal(err)
		}
	}
}

func benchGet(b *testing.B, size int, r store.ByteRange, want int) {
	s := benchStore(b)
	if _, err := s.Set(b.Context(), "a/c/0/0", make([]byte, size), store.Condition{}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(want))
	b.ReportAllocs()
	for b.Loop() {
		v, err := s.Get(b.Context(), "a/c/0/0", r)
		if err != nil || len(v.Data) != want {
			b.Fatalf("Get: %d bytes, %v", len(v.Data), err)
		}
	}
}

func BenchmarkGet1MiB(b *testing.B)            { benchGet(b, mib, store.ByteRange{}, mib) }
func BenchmarkGet4KiB(b *testing.B)            { benchGet(b, 4<<10, store.ByteRange{}, 4<<10) }
func BenchmarkGetRange4KiBOf1MiB(b *testing.B) { benchGet(b, mib, store.Range(mib/2, 4<<10), 4<<10) }
func BenchmarkGetSuffix16BOf1MiB(b *testing.B) { benchGet(b, mib, store.Last(16), 16) }

func BenchmarkStat(b *testing.B) {
	s := benchStore(b)
	if _, err := s.Set(b.Context(), "a/c/0/0", []byte("x"), store.Condition{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Stat(b.Context(), "a/c/0/0"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkListDir1000(b *testing.B) {
	s := benchStore(b, WithDirSync(false))
	for i := range 1000 {
		if _, err := s.Set(b.Context(), "c/"+strconv.Itoa(i), nil, store.Condition{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		d, err := s.ListDir(b.Context(), "c/")
		if err != nil || len(d.Keys) != 1000 {
			b.Fatalf("ListDir: %d keys, %v", len(d.Keys), err)
		}
	}
}

// A 4 KiB value read by OpenFile into the caller's buffer (the gateway's
// small-value path), against BenchmarkGet4KiB's Get.
func BenchmarkOpenFile4K(b *testing.B) {
	s := benchStore(b)
	if _, err := s.Set(b.Context(), "a/c/0/0", make([]byte, 4096), store.Condition{}); err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 4096)
	b.ReportAllocs()
	for b.Loop() {
		f, info, err := s.OpenFile(b.Context(), "a/c/0/0", buf)
		if err != nil || f != nil || info.Size != 4096 {
			b.Fatalf("OpenFile: %v, %v, %d", f, err, info.Size)
		}
	}
}
