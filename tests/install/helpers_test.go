package install

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/host/runtime/config"
)

const address = "example.org/acme/bitshave"

// here is this machine's platform.
var here = runtime.GOOS + "_" + runtime.GOARCH

// publish puts binary into the mirror dir as each version, for platform,
// in the packed layout with its network mirror documents, the way a plugin
// author does: "zarrgw plugins package --mirror".
func publish(t *testing.T, dir, binary, platform string, versions ...string) {
	t.Helper()
	m := newMachine(t, "")
	for _, v := range versions {
		m.must(t.TempDir(), "plugins", "package", "--address", address, "--version", v, "--platform", platform, "--mirror", dir, binary)
	}
}

// unpacked lays binary out in dir as each version for this platform, in
// the unpacked layout of a filesystem mirror.
func unpacked(t *testing.T, dir, binary string, versions ...string) {
	t.Helper()
	for _, v := range versions {
		exe := filepath.Join(dir, filepath.FromSlash(address), v, here, "zarrgw-plugin-bitshave_v"+v)
		write(t, exe, string(read(t, binary)))
		if err := os.Chmod(exe, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// fsMirror is a CLI configuration installing from the filesystem mirror dir.
func fsMirror(dir string) string {
	return fmt.Sprintf("plugin_installation {\n  filesystem_mirror {\n    path = %q\n  }\n}\n", dir)
}

// netMirror is a CLI configuration installing from the network mirror at
// url, with a plugin cache when cache is not "".
func netMirror(url, cache string) string {
	s := fmt.Sprintf("plugin_installation {\n  network_mirror {\n    url = %q\n  }\n}\n", url)
	if cache != "" {
		s += fmt.Sprintf("plugin_cache_dir = %q\n", cache)
	}
	return s
}

// project writes a configuration whose dataset takes its first codec from
// the plugin, installed by version, and returns its directory.
func project(t *testing.T, constraint string) string {
	t.Helper()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "zarrgw.hcl"), fmt.Sprintf(`plugin %q {
  version = %q
}

store "fs" "local" {
  root        = "./data"
  create_root = true
}

dataset "lab" {
  store = store.fs.local
  codec "bitshave" {
    keepbits = 3
  }
  codec "bytes" {
    endian = "little"
  }
}
`, address, constraint))
	return dir
}

// values are what the tests write; shaved, what reads return.
var values = []float32{1.1, 2.2, 3.3, 4.4}

func shaved(v float32) float32 { return math.Float32frombits(math.Float32bits(v) &^ (1<<(23-3) - 1)) }

// writeData creates an array in the project's dataset and writes values.
func writeData(t *testing.T, m *machine, dir string) {
	t.Helper()
	m.must(dir, "create", "-c", "zarrgw.hcl", "lab", "--path", "t", "--shape", "4", "--dtype", "float32")
	raw := make([]byte, 0, 16)
	for _, v := range values {
		raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(v))
	}
	in := filepath.Join(t.TempDir(), "in.raw")
	write(t, in, string(raw))
	m.must(dir, "write", "-c", "zarrgw.hcl", "lab", "--path", "t", "--format", "raw", "--from", in)
}

// readData reads the array back through the plugin and checks it.
func readData(t *testing.T, m *machine, dir string) {
	t.Helper()
	out := m.must(dir, "cat", "-c", "zarrgw.hcl", "lab", "--path", "t")
	var doc struct{ Data []float64 }
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Data) != len(values) {
		t.Fatalf("cat printed %q (%v)", out, err)
	}
	for i, v := range values {
		if float32(doc.Data[i]) != shaved(v) {
			t.Fatalf("element %d: %v, want %v", i, doc.Data[i], shaved(v))
		}
	}
}

// lockOf reads the project's lock entry of the plugin.
func lockOf(t *testing.T, dir string) config.LockedPlugin {
	t.Helper()
	lock, diags := config.LoadLock(filepath.Join(dir, config.LockFileName))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	e, ok := lock.Plugins[address]
	if !ok {
		t.Fatalf("no lock entry for %s: %+v", address, lock.Plugins)
	}
	return e
}

// everyCommandRefuses runs every command that starts the project's
// plugins (writing from the file in) and checks that each fails with a
// message holding every one of wants; what names the damage.
func everyCommandRefuses(t *testing.T, m *machine, dir, in, what string, wants ...string) {
	t.Helper()
	for _, args := range [][]string{
		{"cat", "-c", "zarrgw.hcl", "lab", "--path", "t"},
		{"validate", "-c", "zarrgw.hcl"},
		{"serve", "-c", "zarrgw.hcl", "--listen", "127.0.0.1:0"},
		{"write", "-c", "zarrgw.hcl", "lab", "--path", "t", "--format", "raw", "--from", in},
		{"cp", "-c", "zarrgw.hcl", "lab", t.TempDir()},
	} {
		_, stderr, code := m.run(dir, args...)
		flat := strings.Join(strings.Fields(stderr), " ")
		for _, want := range wants {
			if code == 0 || !strings.Contains(flat, want) {
				t.Fatalf("%s with %s: exit %d, the message lacks %q:\n%s", args[0], what, code, want, stderr)
			}
		}
	}
}

// installed is where version v of the plugin is installed in a project.
func installed(dir, v string) string {
	return filepath.Join(dir, ".zarrgw", "plugins", filepath.FromSlash(address), v, here)
}

// server is a network mirror: an HTTP server on loopback over a directory,
// counting the requests for each path; zip files are served after delay.
type server struct {
	URL string
	mu  sync.Mutex
	hit map[string]int
}

func serve(t *testing.T, dir string, delay time.Duration) *server {
	t.Helper()
	s := &server{hit: map[string]int{}}
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hit[r.URL.Path]++
		s.mu.Unlock()
		if strings.HasSuffix(r.URL.Path, ".zip") {
			time.Sleep(delay)
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL + "/"
	return s
}

// zips counts the requests for zip files.
func (s *server) zips() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for p, n := range s.hit {
		if strings.HasSuffix(p, ".zip") {
			out[filepath.Base(p)] = n
		}
	}
	return out
}
