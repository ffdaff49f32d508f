package install

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/tests/walkthrough"
)

// runWalkthrough runs the walk-through name of the Markdown file doc (a
// path in the repository) in a new directory beside this checkout, with
// the zarrgw built for the tests on PATH and a fresh configuration
// directory (none of the user's CLI configuration applies), and returns
// the directory.
func runWalkthrough(t *testing.T, doc, name string) string {
	t.Helper()
	dir := t.TempDir()
	blocks, err := walkthrough.Prepare(repoRoot(), doc, name, dir)
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	out, err := walkthrough.Run(dir, blocks,
		"PATH="+filepath.Dir(zarrgwBin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "ZARRGW_CLI_CONFIG_FILE=", "ZARRGW_PLUGIN_CACHE_DIR=")
	if err != nil {
		t.Fatalf("%s, walk-through %q: %v\n%s", doc, name, err, out)
	}
	return dir
}

// The top-level README's installation walk-through: publish, declare by
// constraint, init, validate, use.
func TestReadmeInstallWalkthrough(t *testing.T) {
	dir := runWalkthrough(t, "README.md", "install")
	e := lockOf(t, dir)
	if e.Version != "1.0.0" || e.Constraints != "~> 1.0" || len(e.Hashes) != 2 || !slices.Equal(e.Serves.Codecs, []string{"bitshave"}) {
		t.Fatalf("lock entry %+v", e)
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "t", "zarr.json")); err != nil {
		t.Fatalf("create through the installed plugin: %v", err)
	}
	if entries, err := os.ReadDir(filepath.Join(dir, "plugin-cache")); err != nil || len(entries) == 0 {
		t.Fatalf("nothing in the plugin cache: %v", err)
	}
}

// pluginapi/README.md's publishing walk-through: packages for two
// platforms in a mirror, a lock file vouching for both, an install.
func TestPublishWalkthrough(t *testing.T) {
	dir := runWalkthrough(t, "pluginapi/README.md", "publish")
	e := lockOf(t, dir)
	h1s := 0
	for _, h := range e.Hashes {
		if strings.HasPrefix(h, "h1:") {
			h1s++
		}
	}
	if e.Version != "1.1.0" || h1s < 1 || len(e.Hashes) < 2 {
		t.Fatalf("lock entry %+v", e)
	}
	if here != "linux_arm64" && (h1s != 2 || len(e.Hashes) != 4) {
		t.Fatalf("lock entry %+v: want the h1: and zh: hashes of two platforms", e)
	}
	if _, err := os.Stat(installed(dir, "1.1.0")); err != nil {
		t.Fatal(err)
	}
}
