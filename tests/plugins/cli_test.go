package plugins

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// zarrgw plugins list shows the bundled extensions and, started on demand,
// what a plugin binary serves, its version and its state; a binary whose
// checksum does not match is listed as failed, not run, and the listing
// exits non-zero.
func TestPluginsListCommand(t *testing.T) {
	out, err := exec.Command(zarrgwBin, "plugins", "list", "--plugin", bitshaveBin).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	row := regexp.MustCompile(`(?m)^bitshave +codec +1\.0\.0 +\S+ +running \(pid \d+\) +https://example.org/acme/zarr-codecs/bitshave/1.0$`)
	if !row.Match(out) || !strings.Contains(string(out), "zstd ") || !strings.Contains(string(out), "in process") {
		t.Fatalf("listing:\n%s", out)
	}
	out, err = exec.Command(zarrgwBin, "plugins", "list", "--plugin", bitshaveBin+"@"+strings.Repeat("0", 64)).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "failed: ") || !strings.Contains(string(out), "does not match its pinned sha256") {
		t.Fatalf("mismatched checksum listed as:\n%s (%v)", out, err)
	}
}
