package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	bin "github.com/zarrgw/zarrgw/tests/support/binary"
)

// A plugin's path naming a FIFO or a device is refused at once by
// validate and by serve, naming the plugin and what the file is: opening
// a FIFO to hash it waited for a writer that never came, and /dev/zero
// was hashed without end. Each command is killed after two minutes, so a
// hang fails the test (without the output it wants) instead of stalling
// the suite.
func TestPluginPathNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "zarrgw-codec-fifo")
	if err := syscall.Mkfifo(fifo, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, "/dev/zero"} {
		config := filepath.Join(dir, "zarrgw.hcl")
		src := fmt.Sprintf(`plugin "example.org/acme/odd" {
  path   = %q
  sha256 = "%s"
}
store "fs" "local" {
  root        = %q
  create_root = true
}
dataset "d" {
  store = store.fs.local
}
server {
  listen = "127.0.0.1:0"
}
`, path, strings.Repeat("0", 64), filepath.Join(dir, "data"))
		if err := os.WriteFile(config, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, command := range []string{"validate", "serve"} {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			cmd := exec.CommandContext(ctx, binary, command, "-c", config)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "ZARRGW_CLI_CONFIG_FILE=", "XDG_CONFIG_HOME="+t.TempDir())
			_, stderr, code := bin.Run(t, cmd)
			cancel()
			if code == 0 {
				t.Errorf("%s with plugin path %s: exit 0", command, path)
			}
			said := strings.Join(strings.Fields(stderr), " ") // diagnostics wrap their lines
			for _, want := range []string{"example.org/acme/odd", path, "not a regular file"} {
				if !strings.Contains(said, want) {
					t.Errorf("%s with plugin path %s: exit %d, stderr lacks %q:\n%s", command, path, code, want, stderr)
				}
			}
		}
	}
}
