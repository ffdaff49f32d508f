package cli

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bin "github.com/zarrgw/zarrgw/tests/support/binary"
)

// The --codecs mistake of the issue ("bytes" without "endian" for a
// float32 array): create refuses it before making anything, naming the
// codec and what it lacks. A new directory is not made; in an existing
// hierarchy no node appears.
func TestCreateRefusesCodecsThatCannotStore(t *testing.T) {
	dir := t.TempDir()
	fresh := filepath.Join(dir, "new.zarr")
	args := []string{"--path", "t", "--shape", "100,100", "--chunks", "10,10", "--dtype", "float32",
		"--codecs", `[{"name":"bytes"},{"name":"zstd"}]`}
	fails(t, dir, append([]string{"create", fresh}, args...), "--codecs", "bytes", `"endian"`, "float32")
	if _, err := os.Stat(fresh); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("create refused, but its directory was made: %v", err)
	}
	existing := filepath.Join(dir, "old.zarr")
	must(t, dir, "create", existing, "--path", "other", "--shape", "4", "--dtype", "int8")
	fails(t, dir, append([]string{"create", existing}, args...), "--codecs", "bytes", `"endian"`)
	if _, err := os.Stat(filepath.Join(existing, "t")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused create made the node's directory: %v", err)
	}
	// the same chain in a shard's inner chain, which a shard of fill
	// values never reaches
	sharded := `[{"name":"sharding_indexed","configuration":{"chunk_shape":[5,5],"codecs":[{"name":"bytes"}]}}]`
	fails(t, dir, []string{"create", fresh, "--path", "t", "--shape", "100,100", "--chunks", "10,10", "--dtype", "float32", "--codecs", sharded},
		"sharding_indexed", "bytes", `"endian"`)
	if _, err := os.Stat(fresh); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("create refused, but its directory was made: %v", err)
	}
	// given right, the same chain is taken
	must(t, dir, append([]string{"create", fresh}, append(args[:len(args)-1], `[{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd"}]`)...)...)
}

// runWithin is run, the process killed if it lasts longer than bound.
func runWithin(t *testing.T, dir string, bound time.Duration, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ZARRGW_CLI_CONFIG_FILE=", "XDG_CONFIG_HOME="+t.TempDir())
	return bin.Run(t, cmd)
}

// misplacedCache declares a cache over the sharding transformer (declared
// before it), which opening the dataset refuses.
const misplacedCache = `store "fs" "data" {
  root = "data"
}
dataset "d" {
  store = store.fs.data
  transformer "cache" {
    memory = "16MiB"
  }
  transformer "sharding" {
    chunks_per_shard = [2, 2]
  }
}
`

// validate refuses a stack that serve and cat refuse (a cache over the
// sharding transformer), at the cache's block, in text and as JSON; with
// the cache below the transformer, all three take it.
func TestValidateRefusesWhatServeRefuses(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "zarrgw.hcl"), misplacedCache)
	must(t, dir, "create", filepath.Join(dir, "data"), "--path", "a", "--shape", "8,8", "--chunks", "2,2", "--dtype", "uint8")
	line := lineRef("zarrgw.hcl", lineOf(t, misplacedCache, `transformer "cache"`))
	for _, args := range [][]string{{"validate", "-c", "zarrgw.hcl"}, {"cat", "-c", "zarrgw.hcl", "d", "--path", "a"},
		{"serve", "-c", "zarrgw.hcl", "--listen", "127.0.0.1:0"}} {
		_, stderr, code := runWithin(t, dir, time.Minute, args...) // a serve that starts is killed, and fails here
		if code == 0 || !strings.Contains(stderr, "over the sharding transformer") {
			t.Errorf("zarrgw %s: exit %d, want the cache over the sharding transformer refused:\n%s", args[0], code, stderr)
		}
		if args[0] == "validate" && !strings.Contains(stderr, line) {
			t.Errorf("validate: the refusal does not point at %s:\n%s", line, stderr)
		}
	}
	stdout, _, code := run(t, dir, "validate", "-c", "zarrgw.hcl", "--json")
	var report struct {
		Valid       bool `json:"valid"`
		Diagnostics []struct {
			Detail string `json:"detail"`
			Range  struct {
				Start struct{ Line int } `json:"start"`
			} `json:"range"`
		} `json:"diagnostics"`
	}
	if err := json.Unmarshal([]byte(stdout), &report); err != nil {
		t.Fatalf("validate --json: %v\n%s", err, stdout)
	}
	if code == 0 || report.Valid || len(report.Diagnostics) != 1 ||
		!strings.Contains(report.Diagnostics[0].Detail, "over the sharding transformer") ||
		report.Diagnostics[0].Range.Start.Line != lineOf(t, misplacedCache, `transformer "cache"`) {
		t.Errorf("validate --json: exit %d, want one error at the cache's block:\n%s", code, stdout)
	}
	// the cache where it belongs, below the sharding transformer
	fixed := strings.Replace(strings.Replace(misplacedCache, `transformer "cache" {
    memory = "16MiB"
  }
`, "", 1), "  }\n}\n", "  }\n  transformer \"cache\" {\n    memory = \"16MiB\"\n  }\n}\n", 1)
	write(t, filepath.Join(dir, "zarrgw.hcl"), fixed)
	must(t, dir, "validate", "-c", "zarrgw.hcl")
	must(t, dir, "cat", "-c", "zarrgw.hcl", "d", "--path", "a")
}
