package store

import "testing"

const mib = 1 << 20

func BenchmarkMemorySet1MiB(b *testing.B) {
	m := NewMemory()
	data := make([]byte, mib)
	b.SetBytes(mib)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Set(b.Context(), "a/c/0/0", data, Condition{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMemoryGet1MiB(b *testing.B) {
	m := NewMemory()
	if _, err := m.Set(b.Context(), "a/c/0/0", make([]byte, mib), Condition{}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(mib)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Get(b.Context(), "a/c/0/0", ByteRange{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateKey(b *testing.B) {
	for b.Loop() {
		if ValidateKey("group/array/c/0/12/7") != nil {
			b.Fatal("valid key refused")
		}
	}
}
