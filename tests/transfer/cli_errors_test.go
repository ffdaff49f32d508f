package transfer

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	bin "github.com/zarrgw/zarrgw/tests/support/binary"
)

// must runs zarrgw with a cache directory of the test's own, stdin as its
// standard input, and fails the test unless it succeeds; it returns
// standard output.
func must(t *testing.T, cache string, stdin []byte, args ...string) string {
	t.Helper()
	cmd := exec.Command(zarrgw, args...)
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache)
	cmd.Stdin = bytes.NewReader(stdin)
	stdout, stderr, code := bin.Run(t, cmd)
	if code != 0 {
		t.Fatalf("zarrgw %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
	}
	return stdout
}

// float32Source makes, with zarrgw, a v3 array a of 40x30 float32 in
// chunks of 10x10 below dir, every element written (element i holds
// i+1.5).
func float32Source(t *testing.T, cache, dir string) {
	t.Helper()
	must(t, cache, nil, "create", dir, "--path", "a", "--shape", "40,30", "--chunks", "10,10", "--dtype", "float32")
	raw := make([]byte, 40*30*4)
	for i := range 40 * 30 {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(float32(i)+1.5))
	}
	must(t, cache, raw, "write", dir, "--path", "a", "--format", "raw")
}

// The --codecs mistake of the issue: "bytes" without "endian" on a
// float32 source. cp refuses it before anything is written, naming the
// codec and what it lacks; the destination does not exist afterwards,
// for a plain rewrite and a sharded one (the mistake in the shards'
// inner chain, which a shard of fill values never reaches).
func TestCpRefusesCodecsThatCannotStore(t *testing.T) {
	cache, dir := t.TempDir(), t.TempDir()
	src := filepath.Join(dir, "src.zarr")
	float32Source(t, cache, src)
	for i, extra := range [][]string{nil, {"--chunks-per-shard", "2"}} {
		dst := filepath.Join(dir, fmt.Sprintf("dst%d.zarr", i))
		args := append([]string{src, dst, "--codecs", `[{"name":"bytes"},{"name":"zstd"}]`}, extra...)
		_, stderr, code := cp(t, cache, args...)
		if code == 0 || !strings.Contains(stderr, "bytes") || !strings.Contains(stderr, `"endian"`) || !strings.Contains(stderr, "nothing was written") {
			t.Errorf("cp %v: exit %d, want a refusal naming the bytes codec and its endian:\n%s", extra, code, stderr)
		}
		if _, err := os.Stat(dst); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("cp %v refused, but the destination exists: %v %v", extra, err, tree(t, dst))
		}
	}
}

// A rewrite one of whose source chunks cannot be read (damaged) copies
// the rest but leaves that array without metadata and exits non-zero
// naming the chunk: the destination never reads the missing chunk as
// fill values (cat fails there, as there is no array). Mended, the same
// copy resumes and completes: the destination reads as the source.
func TestCpLeavesNoMetadataForAFailedArray(t *testing.T) {
	cache, dir := t.TempDir(), t.TempDir()
	src, dst := filepath.Join(dir, "src.zarr"), filepath.Join(dir, "dst.zarr")
	float32Source(t, cache, src)
	chunk := filepath.Join(src, "a", "c", "2", "1")
	good, err := os.ReadFile(chunk)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(chunk, []byte("damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{src, dst, "--codecs", `[{"name":"bytes","configuration":{"endian":"little"}},{"name":"gzip","configuration":{"level":1}}]`, "--quiet"}
	_, stderr, code := cp(t, cache, args...)
	if code == 0 || !strings.Contains(stderr, "a/c/2/1") {
		t.Fatalf("cp from a damaged chunk: exit %d, want a failure naming a/c/2/1:\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dst, "a", "zarr.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the array's metadata was written though a chunk failed: %v", err)
	}
	if out, stderr, code := zarrgwIn(t, cache, "cat", dst, "--path", "a"); code == 0 {
		t.Fatalf("cat of the array whose copy failed: exit 0, printing %.200s (%s)", out, stderr)
	}
	if err := os.WriteFile(chunk, good, 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = cp(t, cache, args[:len(args)-1]...)
	if code != 0 || !strings.Contains(stderr, "resuming") {
		t.Fatalf("cp again, the source mended: exit %d, want it to resume and complete:\n%s", code, stderr)
	}
	want := must(t, cache, nil, "cat", src, "--path", "a", "--format", "json")
	if got := must(t, cache, nil, "cat", dst, "--path", "a", "--format", "json"); got != want {
		t.Fatalf("after the resumed copy, the destination reads\n%.300s\nthe source\n%.300s", got, want)
	}
}
