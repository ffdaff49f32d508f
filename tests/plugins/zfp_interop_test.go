package plugins

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/tests/support/binary"
	"github.com/zarrgw/zarrgw/tests/support/pyenv"
)

// zfpInteropScript is the PyPI zfpy side of TestZfpInterop.
func zfpInteropScript() string {
	return filepath.Join(repoRoot(), "tests", "plugins", "testdata", "zfp_interop.py")
}

// runZfpy runs the script's command on dir with the reference
// environment's python and decodes the JSON it prints into out.
func runZfpy(t *testing.T, py, command, dir string, out any) {
	t.Helper()
	stdout, stderr, err := run(exec.Command(py, zfpInteropScript(), command, dir))
	if err != nil {
		t.Fatalf("zfpy %s: %v\n%s", command, err, stderr)
	}
	if err := json.Unmarshal(stdout, out); err != nil {
		t.Fatalf("zfpy %s printed %.300q: %v", command, stdout, err)
	}
}

// run runs cmd and returns what it printed on its standard output and
// error.
func run(cmd *exec.Cmd) (stdout, stderr []byte, err error) {
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.Bytes(), e.Bytes(), err
}

// zeroDim is the 0-dimensional array of zfp_interop.py.
const zeroDim = "r_f64_rev_0d"

// checkZeroDim reads the 0-dimensional array: a zfp field of one value,
// which the bridge sends back as a 0-dimensional array (the Python SDK
// keeps the shape numpy's ascontiguousarray would make [1]).
func checkZeroDim(t *testing.T, url, name, want string) {
	t.Helper()
	code, got := httpDo(t, http.MethodGet, url+"/d/z/"+name+"?format=raw", nil)
	switch {
	case code != http.StatusOK:
		t.Errorf("array API %s (0-dimensional): %d %s", name, code, got)
	case hex.EncodeToString(got) != want:
		t.Errorf("array API %s: %s, zfpy decodes %s", name, abbrev(hex.EncodeToString(got)), abbrev(want))
	}
}

// httpDo sends a request and returns the status and body.
func httpDo(t *testing.T, method, url string, body []byte) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, url, err)
	}
	return resp.StatusCode, b
}

// zarrgwFails runs zarrgw with args in dir, which must fail, and returns
// what it printed on standard error.
func zarrgwFails(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(zarrgwBin, args...)
	cmd.Dir = dir
	stdout, stderr, err := run(cmd)
	if err == nil {
		t.Fatalf("zarrgw %v succeeded (printed %d bytes), want an error", args, len(stdout))
	}
	return string(stderr)
}

// The registered zfp codec, served by the numcodecs bridge (Debian's zfp
// 1.0.0 through python3-zfpy) to one `zarrgw serve`, against PyPI's zfpy
// 1.0.1, a separate zfp build: zarrgw's array API reads exactly the values zfpy decodes from the headerless
// chunks it wrote (each mode, 0 to 4 dimensions, edge chunks, float32/64,
// int32/64, uint32/64 and the promoted int16 and uint8), and every chunk
// zarrgw writes of the same values (a PUT of the array) is zfpy's own stream bit for bit, with
// or without the header zfpy writes, and decodes with zfpy to the chunk
// (reversible) or to zfpy's own decoding (lossy modes); the
// 0-dimensional array is written and read back so too. A truncated chunk
// is an error, never values; the expert mode, which zfpy cannot set, is
// refused naming the codec and the mode; without the bridge zarrgw says
// how to declare it.
func TestZfpInterop(t *testing.T) {
	needPythonSDK(t)
	needZfpy(t)
	py := pyenv.Python(t, "zfpy", "numpy")
	dir := t.TempDir()
	var want map[string]string
	runZfpy(t, py, "make", dir, &want)
	config := `plugin "zarrgw.dev/python/numcodecs" {
  path = "` + numcodecsBridge() + `"
}
store "fs" "local" {
  root = "."
}
dataset "z" {
  store = store.fs.local
  access {
    read  = ["*"]
    write = ["*"]
  }
}
`
	if err := os.WriteFile(filepath.Join(dir, "zarrgw.hcl"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	zarrgwIn(t, dir, "", "plugins", "lock", "-c", "zarrgw.hcl")

	truncated := map[string]string{"r_f64_rev_2d": "c/0/0", "r_f64_rate_1d": "c/1", "r_i32_prec_4d": "c/0/1/1/0"}
	for array, chunk := range truncated {
		cut := filepath.Join(dir, "cut_"+array)
		if err := os.CopyFS(cut, os.DirFS(filepath.Join(dir, array))); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(cut, chunk))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(cut, chunk), b[:len(b)/2], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gw := binary.Serve(t, zarrgwBin, filepath.Join(dir, "zarrgw.hcl"))
	names := make([]string, 0, len(want))
	for name := range want {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if name == zeroDim {
			checkZeroDim(t, gw.URL, name, want[name])
		} else if code, got := httpDo(t, http.MethodGet, gw.URL+"/d/z/"+name+"?format=raw", nil); code != http.StatusOK || hex.EncodeToString(got) != want[name] {
			t.Errorf("array API %s: %d %s, zfpy decodes %s", name, code, abbrev(hex.EncodeToString(got)), abbrev(want[name]))
		}
		raw, err := os.ReadFile(filepath.Join(dir, strings.TrimPrefix(name, "r_")+".raw"))
		if err != nil {
			t.Fatal(err)
		}
		w := "w_" + strings.TrimPrefix(name, "r_")
		if code, body := httpDo(t, http.MethodPut, gw.URL+"/d/z/"+w+"?format=raw", raw); code/100 != 2 {
			t.Errorf("array API PUT %s: %d %s", w, code, body)
		}
	}
	var checked struct {
		Checked  int
		Failures []string
	}
	runZfpy(t, py, "check", dir, &checked)
	for _, f := range checked.Failures {
		t.Error(f)
	}
	t.Logf("%d arrays read, %d chunks zarrgw wrote checked against zfpy (%s)", len(names), checked.Checked, py)
	if checked.Checked == 0 {
		t.Error("zfpy checked no chunk")
	}

	// A chunk cut short (in a copy of the array, which the gateway has
	// not read yet): an error naming the codec, never values.
	for array := range truncated {
		if code, body := httpDo(t, http.MethodGet, gw.URL+"/d/z/cut_"+array+"?format=raw", nil); code != http.StatusBadGateway ||
			!strings.Contains(string(body), "zfp: the stream ends before its last block") {
			t.Errorf("array API cut_%s, a chunk cut short: %d %s, want 502 for a short zfp stream", array, code, abbrev(string(body)))
		}
	}

	expert := `{"zarr_format":3,"node_type":"array","shape":[4],"data_type":"float64",
"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[4]}},
"chunk_key_encoding":{"name":"default","configuration":{"separator":"/"}},"fill_value":0,
"codecs":[{"name":"zfp","configuration":{"mode":"expert","minbits":1,"maxbits":13,"maxprec":19,"minexp":-2}}]}`
	if err := os.MkdirAll(filepath.Join(dir, "expert"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "expert", "zarr.json"), []byte(expert), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, body := httpDo(t, http.MethodGet, gw.URL+"/d/z/expert?format=raw", nil); code == http.StatusOK ||
		!strings.Contains(string(body), `zfp: mode "expert" is not served`) {
		t.Errorf("array API of an expert-mode zfp array: %d %s, want the mode refused", code, body)
	}

	// Without the bridge: the reason, and the plugin block to declare.
	bare := strings.SplitN(config, "store ", 2)[1]
	if err := os.WriteFile(filepath.Join(dir, "bare.hcl"), []byte("store "+bare), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"cat", "-c", "bare.hcl", "z", "--path", "r_f64_rev_2d", "--format", "raw"},
		{"cat", filepath.Join(dir, "r_f64_rev_2d"), "--format", "raw"},
	} {
		if msg := zarrgwFails(t, dir, args...); !strings.Contains(msg, `the numcodecs bridge serves it`) ||
			!strings.Contains(msg, `plugin "zarrgw.dev/python/numcodecs"`) {
			t.Errorf("zarrgw %v without the bridge: %s, want the bridge's plugin block", args, msg)
		}
	}
}
