package cli

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
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

// runWith is run with env added to the environment, the process killed
// if it lasts longer than two minutes (a serve that starts instead of
// refusing its configuration fails the test, never hangs it).
func runWith(t *testing.T, dir string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "ZARRGW_CLI_CONFIG_FILE=", "XDG_CONFIG_HOME="+t.TempDir()), env...)
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
		_, stderr, code := runWith(t, dir, nil, args...)
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

// sensitiveRoot declares the fs store's root and the dataset's prefix as
// sensitive variables (where a path names a customer, say).
const sensitiveRoot = `variable "root" {
  env       = "TEST_SECRET_ROOT"
  default   = ""
  sensitive = true
}
variable "prefix" {
  env       = "TEST_SECRET_PREFIX"
  default   = ""
  sensitive = true
}
store "fs" "data" {
  root = var.root
}
dataset "d" {
  store  = store.fs.data
  prefix = var.prefix
}
server {
  listen = "127.0.0.1:0"
}
`

// The value of a sensitive variable used as an fs store's root or a
// dataset's prefix shows in no output: validate, in text and as JSON
// (whose "root" and "prefix" name the variable instead), inspect --json's
// location, the errors of cat and create, and serve's pages and log.
func TestSensitiveValuesRedactedEverywhere(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "customer-acme-2031")
	const prefix = "project-skunkworks"
	must(t, dir, "create", filepath.Join(root, prefix), "--path", "a", "--shape", "4", "--dtype", "int8")
	file := filepath.Join(dir, "zarrgw.hcl")
	write(t, file, sensitiveRoot)
	env := []string{"TEST_SECRET_ROOT=" + root, "TEST_SECRET_PREFIX=" + prefix}
	leaks := func(what, out string) {
		t.Helper()
		for _, secret := range []string{root, "customer-acme-2031", prefix} {
			if strings.Contains(out, secret) {
				t.Errorf("%s shows the sensitive value %q:\n%s", what, secret, out)
			}
		}
	}
	runEnv := func(args ...string) (string, int) {
		t.Helper()
		stdout, stderr, code := runWith(t, dir, env, args...)
		return stdout + stderr, code
	}
	out, code := runEnv("validate", "-c", file, "--json")
	var report struct {
		Valid    bool                      `json:"valid"`
		Stores   []struct{ Root string }   `json:"stores"`
		Datasets []struct{ Prefix string } `json:"datasets"`
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil || code != 0 || !report.Valid {
		t.Fatalf("validate --json: exit %d, %v:\n%s", code, err, out)
	}
	if report.Stores[0].Root != "(the value of var.root)" || report.Datasets[0].Prefix != "(the value of var.prefix)" {
		t.Errorf("validate --json: root %q, prefix %q: want the variables named", report.Stores[0].Root, report.Datasets[0].Prefix)
	}
	leaks("validate --json", out)
	out, _ = runEnv("validate", "-c", file)
	leaks("validate", out)
	out, code = runEnv("inspect", "-c", file, "d", "--json")
	if code != 0 {
		t.Fatalf("inspect --json: exit %d:\n%s", code, out)
	}
	leaks("inspect --json", out)
	out, code = runEnv("cat", "-c", file, "d", "--path", "missing")
	if code == 0 {
		t.Fatalf("cat of a missing array: exit 0:\n%s", out)
	}
	leaks("cat's error", out)
	out, code = runEnv("create", "-c", file, "d", "--path", "a", "--shape", "4", "--dtype", "int8")
	if code == 0 {
		t.Fatalf("create over an array: exit 0:\n%s", out)
	}
	leaks("create's error", out)

	g := bin.Serve(t, binary, file, env...)
	for _, page := range []string{"/ui/", "/ui/d/d/", "/d/d/missing?slice=0"} {
		resp, err := http.Get(g.URL + page)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		leaks("GET "+page, string(body))
	}
	g.Stop(t)
	leaks("serve's log", g.Log.String())
}
