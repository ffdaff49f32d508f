package store

import (
	"errors"
	"testing"
)

func TestValidateKey(t *testing.T) {
	valid := []string{"a", "a/b", "zarr.json", ".zattrs", "c/0/0", "c.0.1", "a b/ü/日本", "..a/b..", "a/.b", "..."}
	for _, key := range valid {
		if err := ValidateKey(key); err != nil {
			t.Errorf("ValidateKey(%q) = %v, want nil", key, err)
		}
	}
	invalid := []string{"", "/", "/a", "a/", "a//b", ".", "..", "./a", "a/.", "../x", "a/../b",
		"a\x00b", `a\b`, "\xff", "a/\xc3"}
	for _, key := range invalid {
		if err := ValidateKey(key); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("ValidateKey(%q) = %v, want ErrInvalidKey", key, err)
		}
	}
}

func TestValidatePrefix(t *testing.T) {
	for _, p := range []string{"", "a/", "a/b/", ".zgroup/"} {
		if err := ValidatePrefix(p); err != nil {
			t.Errorf("ValidatePrefix(%q) = %v, want nil", p, err)
		}
	}
	for _, p := range []string{"a", "/", "//", "a//", "/a/", "../", "a/./", "a\\/"} {
		if err := ValidatePrefix(p); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("ValidatePrefix(%q) = %v, want ErrInvalidKey", p, err)
		}
	}
}

func TestValidateKeyDoesNotAllocate(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() {
		if ValidateKey("group/array/c/0/12/7") != nil {
			t.Fatal("valid key refused")
		}
	})
	if allocs != 0 {
		t.Fatalf("ValidateKey allocated %v times", allocs)
	}
}

func TestSliceRange(t *testing.T) {
	data := []byte("0123456789")
	cases := []struct {
		r    ByteRange
		want string
	}{
		{ByteRange{}, "0123456789"}, {Range(2, 3), "234"}, {Range(8, 5), "89"},
		{Range(12, 1), ""}, {From(7), "789"}, {Last(2), "89"}, {Last(20), "0123456789"},
	}
	for _, c := range cases {
		got, err := SliceRange(data, c.r)
		if err != nil || string(got) != c.want {
			t.Errorf("SliceRange(%s) = %q, %v; want %q", c.r, got, err, c.want)
		}
	}
	if _, err := SliceRange(data, Range(-1, 2)); err == nil {
		t.Error("negative offset accepted")
	}
	part, _ := SliceRange(data, Range(0, 2))
	if part = append(part, 'x'); data[2] != '2' {
		t.Error("appending to a slice overwrote the value behind it")
	}
}
