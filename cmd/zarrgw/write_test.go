package main

import (
	bin "encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// npyInt16 is a .npy document of int16 written by hand from the format's
// description, in the byte order order ('<' or '>').
func npyInt16(order byte, shape string, v []int16) []byte {
	dict := fmt.Sprintf("{'descr': '%ci2', 'fortran_order': False, 'shape': %s, }", order, shape)
	dict += strings.Repeat(" ", 63-(10+len(dict))%64) + "\n"
	out := append([]byte("\x93NUMPY\x01\x00"), byte(len(dict)), byte(len(dict)>>8))
	out = append(out, dict...)
	for _, x := range v {
		if order == '>' {
			out = bin.BigEndian.AppendUint16(out, uint16(x))
		} else {
			out = bin.LittleEndian.AppendUint16(out, uint16(x))
		}
	}
	return out
}

// create, then write a big-endian .npy into a strided selection, then cat:
// the elements land where the selection says, the rest stay fill.
func TestCreateWriteCat(t *testing.T) {
	dir := t.TempDir()
	if _, e, code := run(t, "create", dir, "--path", "g/a", "--shape", "4,5", "--chunks", "3,2", "--dtype", "int16", "--fill-value", "-1"); code != 0 {
		t.Fatalf("create: %s", e)
	}
	in := filepath.Join(dir, "in.npy")
	if err := os.WriteFile(in, npyInt16('>', "(2, 3)", []int16{10, 11, 12, 13, 14, 15}), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, e, code := run(t, "write", dir, "--path", "g/a", "--slice", "1:4:2,0:5:2", "--from", in); code != 0 {
		t.Fatalf("write: %s", e)
	}
	out, e, code := run(t, "cat", dir, "--path", "g/a")
	want := `"data": [-1, -1, -1, -1, -1, 10, -1, 11, -1, 12, -1, -1, -1, -1, -1, 13, -1, 14, -1, 15]`
	if code != 0 || !strings.Contains(out, want) {
		t.Fatalf("cat = %s (%s), want %s", out, e, want)
	}
}

// Input that does not fit is refused with one line naming the problem, and
// what is stored stays as it was.
func TestWriteRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	if _, e, code := run(t, "create", dir, "--path", "a", "--shape", "2,3", "--dtype", "int16"); code != 0 {
		t.Fatalf("create: %s", e)
	}
	good := npyInt16('<', "(2, 3)", []int16{1, 2, 3, 4, 5, 6})
	cases := []struct {
		name, want string
		doc        []byte
	}{
		{"wrong shape", "does not match the selection", npyInt16('<', "(3, 2)", []int16{1, 2, 3, 4, 5, 6})},
		{"huge shape", "does not match the selection", npyInt16('<', "(4000000000, 4000000000)", nil)},
		{"wrong type", "does not match the array's int16", []byte(strings.Replace(string(good), "<i2", "<f2", 1))},
		{"truncated", "holds 137 bytes, but a selection of [2 3] int16 elements needs 140", good[:len(good)-3]},
		{"too long", "holds 142 bytes", append(append([]byte{}, good...), 0, 0)},
		{"not npy", "not a .npy document", []byte("hello")},
	}
	for _, c := range cases {
		f := filepath.Join(dir, "bad.npy")
		if err := os.WriteFile(f, c.doc, 0o644); err != nil {
			t.Fatal(err)
		}
		_, e, code := run(t, "write", dir, "--path", "a", "--from", f)
		if code != 1 || !strings.Contains(e, c.want) || strings.Count(e, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q; want one line with %q", c.name, code, e, c.want)
		}
	}
	// From a pipe the size is not known in advance: a short document is
	// found when it ends.
	if _, e, code := runWithInput(t, good[:len(good)-3], "write", dir, "--path", "a", "--slice", "0:1"); code != 1 || !strings.Contains(e, "does not match") {
		t.Errorf("piped, wrong shape: exit %d, stderr %q", code, e)
	}
	if _, e, code := runWithInput(t, good[:len(good)-3], "write", dir, "--path", "a"); code != 1 || !strings.Contains(e, "standard input: data ends after 0 of 12 bytes: unexpected EOF") {
		t.Errorf("piped, truncated: exit %d, stderr %q", code, e)
	}
	if out, _, _ := run(t, "cat", dir, "--path", "a"); !strings.Contains(out, `"data": [0, 0, 0, 0, 0, 0]`) {
		t.Fatalf("array changed by refused writes: %s", out)
	}
	if _, e, code := run(t, "create", dir, "--path", "a", "--shape", "9", "--dtype", "int16"); code != 1 || !strings.Contains(e, "exists") {
		t.Fatalf("create over an array: exit %d, %s", code, e)
	}
}
