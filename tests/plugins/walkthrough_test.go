package plugins

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/tests/walkthrough"
)

// readmeBlocks are the fenced blocks of pluginapi/README.md.
func readmeBlocks(t *testing.T) []walkthrough.Block {
	t.Helper()
	blocks, err := walkthrough.Parse(filepath.Join(repoRoot(), "pluginapi", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return blocks
}

// runWalkthrough writes the files of the README's walk-through name into a
// new directory beside a zarrgw checkout (this one), runs its commands
// there with the zarrgw built for the tests on PATH, and returns the
// directory.
func runWalkthrough(t *testing.T, name string) string {
	t.Helper()
	return runWalkthroughOf(t, "pluginapi/README.md", name)
}

// runWalkthroughOf runs the walk-through name of the Markdown file doc
// (relative to the repository root), as runWalkthrough does.
func runWalkthroughOf(t *testing.T, doc, name string) string {
	t.Helper()
	dir := t.TempDir()
	blocks, err := walkthrough.Prepare(repoRoot(), doc, name, dir)
	if err != nil {
		t.Fatal(err)
	}
	// A CLI configuration of the user running the tests must not apply.
	out, err := walkthrough.Run(dir, blocks, "PATH="+filepath.Dir(zarrgwBin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"XDG_CONFIG_HOME="+t.TempDir(), "ZARRGW_CLI_CONFIG_FILE=")
	if err != nil {
		t.Fatalf("walk-through %q: %v\n%s", name, err, out)
	}
	return dir
}

// catJSON runs zarrgw cat with args in dir and decodes its output.
func catJSON(t *testing.T, dir string, args ...string) []float64 {
	t.Helper()
	cmd := exec.Command(zarrgwBin, append([]string{"cat"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("zarrgw cat %v: %v", args, err)
	}
	var doc struct{ Data []float64 }
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("cat printed %q: %v", out, err)
	}
	return doc.Data
}

// The codec walk-through, as a new user follows it: a module of its own in
// an empty directory, built against this checkout through its replace
// line, tested with codectest, served as a plugin under an address whose
// last segment is not the codec's name, locked (which learns that name by
// asking the plugin), and used by a dataset whose chunks really are XORed.
func TestCodecWalkthrough(t *testing.T) {
	dir := filepath.Join(runWalkthrough(t, "codec"), "xor")
	lock, diags := config.LoadLock(filepath.Join(dir, config.LockFileName))
	entry, ok := lock.Plugins["example.com/tmp/zarrgw-codec-xor"]
	if diags.HasErrors() || !ok || strings.Join(entry.Serves.Codecs, ",") != "xor" || entry.SHA256 == "" {
		t.Fatalf("lock file: %+v %v", lock.Plugins, diags)
	}
	chunk := readXorWalkthrough(t, dir)
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	raw, err := dec.DecodeAll(chunk, nil)
	if err != nil {
		t.Fatalf("chunk 0/0 is not zstd: %v", err)
	}
	if want := xoredChunk00; string(raw) != string(want) {
		t.Fatalf("chunk 0/0 holds % x, want % x", raw, want)
	}
}

// readXorWalkthrough checks that a xor walk-through's dataset reads
// "abcdefghijklmnop" (written into a 4x4 uint8 array of 2x2 chunks) and
// returns its stored chunk 0/0.
func readXorWalkthrough(t *testing.T, dir string) []byte {
	t.Helper()
	got := catJSON(t, dir, "-c", "zarrgw.hcl", "lab", "--path", "t")
	for i, c := range "abcdefghijklmnop" {
		if i >= len(got) || got[i] != float64(c) {
			t.Fatalf("read %v, want the bytes of abcdefghijklmnop", got)
		}
	}
	chunk, err := os.ReadFile(filepath.Join(dir, "data", "lab.zarr", "t", "c", "0", "0"))
	if err != nil {
		t.Fatal(err)
	}
	return chunk
}

// xoredChunk00 is chunk 0/0 of the xor walk-throughs before compression:
// rows 0-1, columns 0-1, "ab" and "ef", XORed with 42.
var xoredChunk00 = []byte{'a' ^ 42, 'b' ^ 42, 'e' ^ 42, 'f' ^ 42}

// The store walk-through: the zipstore example serves the zipped sample
// hierarchy, read through a dataset exactly as the directory reads.
func TestStoreWalkthrough(t *testing.T) {
	dir := runWalkthrough(t, "store")
	fromZip, err := os.ReadFile(filepath.Join(dir, "from-zip.json"))
	if err != nil || len(fromZip) < 20 {
		t.Fatalf("nothing read from the zip: %q %v", fromZip, err)
	}
}

// The transformer walk-through: the keyprefix example keeps the keys of a
// dataset under v1/ of its store.
func TestTransformerWalkthrough(t *testing.T) {
	dir := runWalkthrough(t, "transformer")
	if _, err := os.Stat(filepath.Join(dir, "data", "v1", "t", "zarr.json")); err != nil {
		t.Fatalf("the array is not under the prefix: %v", err)
	}
	if got := catJSON(t, dir, "-c", "prefix.hcl", "versioned", "--path", "t"); len(got) != 4 || got[0] != 'w' || got[3] != 'z' {
		t.Fatalf("read %v", got)
	}
}

// The README's excerpts of the example modules are in them, as quoted.
func TestReadmeQuotesTheExamples(t *testing.T) {
	if err := walkthrough.Quoted(repoRoot(), readmeBlocks(t)); err != nil {
		t.Fatal(err)
	}
}
