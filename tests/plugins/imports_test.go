package plugins

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The example plugin modules, each a module of its own as a team's plugin
// is, import of zarrgw only what plugin authors are given: core and
// pluginapi. The host's packages are zarrgw's to change.
func TestExamplePluginsImportOnlyCoreAndPluginapi(t *testing.T) {
	for _, m := range []string{"plugins/codecs/bitshave", "plugins/stores/zipstore", "plugins/transformers/keyprefix"} {
		cmd := exec.Command("go", "list", "-deps", "./...")
		cmd.Dir = filepath.Join(repoRoot(), m)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list in %s: %v", m, err)
		}
		own := "github.com/zarrgw/zarrgw/" + m
		for _, pkg := range strings.Fields(string(out)) {
			rest, ours := strings.CutPrefix(pkg, "github.com/zarrgw/zarrgw/")
			if !ours || strings.HasPrefix(pkg, own) {
				continue
			}
			if !strings.HasPrefix(rest, "core/") && rest != "pluginapi" && !strings.HasPrefix(rest, "pluginapi/") {
				t.Errorf("%s imports %s: plugin modules import only core and pluginapi", m, pkg)
			}
		}
	}
}
