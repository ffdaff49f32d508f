package plugins

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/launcher"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/pluginapi"
	bin "github.com/zarrgw/zarrgw/tests/support/binary"
)

// pyFailCodecs is a Python module of xorpy's twins (the walk-through's
// codec under other names), each failing in one of the ways a codec in
// Python can fail. Markers and notes go beside the module, in the test's
// own directory.
const pyFailCodecs = `"""xorpy's twins, each failing in one way a Python codec can fail."""

import os
import sys
import time

import xor_codec
import zarrgw_plugin as zp

HERE = os.path.dirname(os.path.abspath(__file__))


def _manifest(name):
    return zp.Manifest(name, uris=["https://example.com/zarr/codecs/%s/1.0" % name], version="1.0.0",
                       config_schema=xor_codec.Xor.manifest.config_schema)


def _note(name, text):
    with open(os.path.join(HERE, name), "a") as f:
        f.write(text)


class Raises(xor_codec.Xor):
    """A bug in a codec: an ordinary exception."""
    manifest = _manifest("pyfail.raises")

    def decode(self, data, spec):
        raise ValueError("pyfail.raises cannot decode %d bytes" % len(data))


class Corrupt(xor_codec.Xor):
    """Input the codec finds damaged."""
    manifest = _manifest("pyfail.corrupt")

    def decode(self, data, spec):
        raise zp.CorruptError("pyfail.corrupt: checksum mismatch in %d bytes" % len(data))


class DiesOnce(xor_codec.Xor):
    """The process dies in the first decode ever made (the marker file
    remembers it across processes), then decodes as xorpy."""
    manifest = _manifest("pyfail.diesonce")

    def decode(self, data, spec):
        if not os.path.exists(os.path.join(HERE, "died")):
            _note("died", "%d\n" % os.getpid())
            os._exit(3)
        return super().decode(data, spec)


class DiesAlways(xor_codec.Xor):
    """The process dies in every decode; each death is noted."""
    manifest = _manifest("pyfail.diesalways")

    def decode(self, data, spec):
        _note("deaths", "%d\n" % os.getpid())
        os._exit(3)


class Chatty(xor_codec.Xor):
    """Prints and logs in every decode."""
    manifest = _manifest("pyfail.chatty")

    def decode(self, data, spec):
        print("chatty: print() to stdout")
        print("chatty: print() to stderr", file=sys.stderr)
        log = zp.logger()
        log.debug("chatty: a debug line", extra={"chunk_bytes": len(data)})
        log.info("chatty: an info line")
        log.warning("chatty: a warning line")
        log.error("chatty: an error line")
        return super().decode(data, spec)


class Blocks(xor_codec.Xor):
    """Never finishes a decode: its host waits until it is killed."""
    manifest = _manifest("pyfail.blocks")

    def decode(self, data, spec):
        _note("blocked", "%d\n" % os.getpid())
        while True:
            time.sleep(3600)


class Exits(xor_codec.Xor):
    """Calls sys.exit in decode, as some libraries do on what they cannot handle."""
    manifest = _manifest("pyfail.exits")

    def decode(self, data, spec):
        sys.exit("pyfail.exits: giving up on %d bytes" % len(data))


class Burst(xor_codec.Xor):
    """Prints more lines at once than the stdio stream carries at once."""
    manifest = _manifest("pyfail.burst")

    def decode(self, data, spec):
        for i in range(3000):
            print("burst line %d" % i)
        return super().decode(data, spec)


ALL = [Raises, Corrupt, DiesOnce, DiesAlways, Chatty, Blocks, Exits, Burst]
`

// pyHandshakeTee keeps a copy of the handshake line the SDK writes to the
// real stdout (sys.__stdout__), so that a test can see what the host got:
// with AutoMTLS the host passes PLUGIN_CLIENT_CERT and the line ends in
// the plugin's certificate; without it the SDK serves in the clear and
// the line has five fields.
const pyHandshakeTee = `"""Keeps a copy of this process's go-plugin handshake line."""

import os
import sys


class _Tee:
    def __init__(self, out, path):
        self.out, self.path = out, path

    def write(self, s):
        with open(self.path, "a") as f:
            f.write(s)
        return self.out.write(s)

    def flush(self):
        self.out.flush()

    def __getattr__(self, name):
        return getattr(self.out, name)


sys.__stdout__ = _Tee(sys.__stdout__, os.path.join(os.path.dirname(os.path.abspath(__file__)), "handshakes"))
`

// pyFailures writes the failing codecs beside the walk-through's plugin,
// with two entry points serving them all: pyfail.py with every optional
// part of the protocol (a small call goes in a batch, payloads in shared
// memory) and pyfail_plain.py without (each call on a stream of its own,
// payloads in frames), and returns the directory.
func pyFailures(t *testing.T) string {
	t.Helper()
	dir := pythonWalkthrough(t)
	for name, body := range map[string]string{"pyfail_codecs.py": pyFailCodecs, "handshake_tee.py": pyHandshakeTee} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const entry = `
import handshake_tee
import pyfail_codecs
import zarrgw_plugin
zarrgw_plugin.serve(*pyfail_codecs.ALL%s)
`
	writePythonPlugin(t, dir, "pyfail.py", strings.ReplaceAll(entry, "%s", ""))
	writePythonPlugin(t, dir, "pyfail_plain.py", strings.ReplaceAll(entry, "%s", ", batch=False, shared_memory=False"))
	return dir
}

// pyFailName is the name the Python plugin is added under.
const pyFailName = "example.com/tmp/pyfail"

// pyModes are the two entry points: the protocol's batches and shared
// memory, and the plain path. A failure must cross the boundary on both.
var pyModes = []struct{ name, entry string }{{"batch", "pyfail.py"}, {"plain", "pyfail_plain.py"}}

// startPyFail adds the entry point of dir to a new launcher (the
// launcher's defaults: AutoMTLS among them) and returns it, its log and
// the plugin.
func startPyFail(t *testing.T, dir, entry string) (*launcher.Launcher, *logBuffer, *launcher.Plugin) {
	t.Helper()
	l, logs := newLauncher(t)
	p := addPlugin(t, l, pyFailName, filepath.Join(dir, entry), nil)
	return l, logs, p
}

// wantMTLS checks that every process of the plugin in dir handshook with
// a certificate of its own (AutoMTLS: the host passed its client
// certificate, the plugin served TLS requiring it and sent its own in
// the handshake line) and returns how many processes did. A host without
// AutoMTLS fails this: no line would carry a sixth field.
func wantMTLS(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "handshakes"))
	if err != nil {
		t.Fatalf("no handshake recorded: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	seen := map[string]bool{}
	for _, line := range lines {
		f := strings.Split(line, "|")
		if len(f) != 6 || f[2] != "unix" || f[4] != "grpc" {
			t.Fatalf("handshake line %q: want CORE|APP|unix|SOCKET|grpc|CERT (AutoMTLS)", line)
		}
		der, err := base64.RawStdEncoding.DecodeString(f[5])
		if err != nil {
			t.Fatalf("handshake certificate %q: %v", f[5], err)
		}
		cert, err := x509.ParseCertificate(der)
		if err != nil {
			t.Fatalf("handshake certificate: %v", err)
		}
		if seen[string(der)] {
			t.Fatalf("two plugin processes handshook with one certificate: each must make its own")
		}
		seen[string(der)] = true
		if cert.Subject.CommonName != "localhost" {
			t.Fatalf("handshake certificate for %q, want localhost", cert.Subject.CommonName)
		}
	}
	return len(lines)
}

// pyArray creates an array of one chunk of 8 uint8 ("abcdefgh") whose
// chain ends in codecName (xorpy's configuration) in a memory store; the
// write only encodes, which every twin does as xorpy does.
func pyArray(t *testing.T, l *launcher.Launcher, codecName string) *array.Array {
	t.Helper()
	opts := registry.Bundled().InProcess().WithPlugins(l).ArrayOptions()
	m := &meta.ArrayMeta{
		Format: meta.V3, Shape: []int{8}, ChunkShape: []int{8}, DataType: dtype.Named("uint8"),
		FillValue: []byte{0}, ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"},
		Attributes: json.RawMessage(`{}`),
		Codecs:     []meta.Extension{{Name: "bytes"}, {Name: codecName, Configuration: json.RawMessage(`{"key": 42}`)}},
	}
	ctx := context.Background()
	a, err := hierarchy.CreateArray(ctx, store.NewMemory(), "a", m, opts)
	if err != nil {
		t.Fatal(err)
	}
	data := ndarray.New(dtype.Named("uint8"), []int{8})
	copy(data.Data, "abcdefgh")
	if err := a.WriteAll(ctx, data); err != nil {
		t.Fatalf("write through %s: %v", codecName, err)
	}
	return a
}

// readAll reads a whole array with a generous bound: a read that hangs
// fails the test with the deadline instead of stalling it.
func readAll(a *array.Array) (*ndarray.Array, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	return a.ReadAll(ctx)
}

// wantLog waits for a record of the host log for which match is true and
// returns it: plugin output reaches the log on its own time (the stdio
// stream, stderr's reader). The bound is a failure, not a timing
// assertion: a line not there after a minute is lost.
func wantLog(t *testing.T, logs *logBuffer, what string, match func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		for _, r := range logRecords(t, logs.String()) {
			if match(r) {
				return r
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s in the host log:\n%s", what, tail(logs.String(), 40))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func str(r map[string]any, k string) string {
	s, _ := r[k].(string)
	return s
}

// pyZarrgw runs zarrgw in dir without the CLI configuration of the user
// running the tests.
func pyZarrgw(t *testing.T, dir, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := pyZarrgwCmd(dir, args...)
	cmd.Stdin = strings.NewReader(stdin)
	return bin.Run(t, cmd)
}

func pyZarrgwCmd(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command(zarrgwBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(dir, ".config"), "ZARRGW_CLI_CONFIG_FILE=")
	return cmd
}

// pyDataset configures dataset "ds" of dir with codec (the failing
// plugin's, xorpy's configuration), locks the plugin, creates array t
// (4x4 uint8 in chunks of 2x2) and writes abcdefghijklmnop to it, all
// with the zarrgw command as the walk-through does. The array is made
// and written through pyfail.chatty, whose decode works (create tries
// the chain on a chunk of fill values, which the failing codecs fail, or
// block in), then its metadata and the dataset name codec: every pyfail
// codec encodes as xorpy, so the chunks are what codec would write.
func pyDataset(t *testing.T, dir, codecName string) {
	t.Helper()
	const working = "pyfail.chatty"
	config := func(codec string) {
		cfg := `plugin "` + pyFailName + `" {
  path = "./pyfail.py"
}

store "fs" "local" {
  root        = "./data"
  create_root = true
}

dataset "ds" {
  store  = store.fs.local
  prefix = "ds.zarr"
  codec "bytes" {
    endian = "little"
  }
  codec "` + codec + `" {
    key = 42
  }
}
`
		if err := os.WriteFile(filepath.Join(dir, "pyfail.hcl"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	config(working)
	for _, step := range []struct {
		stdin string
		args  []string
	}{
		{"", []string{"plugins", "lock", "-c", "pyfail.hcl"}},
		{"", []string{"create", "-c", "pyfail.hcl", "ds", "--path", "t", "--shape", "4,4", "--chunks", "2,2", "--dtype", "uint8"}},
		{"abcdefghijklmnop", []string{"write", "-c", "pyfail.hcl", "ds", "--path", "t", "--format", "raw"}},
	} {
		if stdout, stderr, code := pyZarrgw(t, dir, step.stdin, step.args...); code != 0 {
			t.Fatalf("zarrgw %v: exit %d\n%s%s", step.args, code, stdout, stderr)
		}
	}
	doc := filepath.Join(dir, "data", "ds.zarr", "t", "zarr.json")
	b, err := os.ReadFile(doc)
	if err != nil || !bytes.Contains(b, []byte(`"`+working+`"`)) {
		t.Fatalf("%s: %v, naming %s: %s", doc, err, working, b)
	}
	if err := os.WriteFile(doc, bytes.ReplaceAll(b, []byte(`"`+working+`"`), []byte(`"`+codecName+`"`)), 0o644); err != nil {
		t.Fatal(err)
	}
	config(codecName)
}

// A Python codec that raises an ordinary exception in decode fails the
// read: zarrgw cat exits non-zero, prints no values (no chunk read as
// fill values), and says which codec failed, how, and in which chunk;
// the plugin's traceback is in the log, filed under the plugin's name.
// Through core/array, on both paths of the protocol, the error names the
// plugin, the codec, the exception and the chunk's key, and is neither
// corruption nor a lost connection (it would then be reported as a
// corrupt chunk, or retried in a new process).
//
// It fails if the SDK swallowed the exception into output (values
// printed), dropped its name or traceback, if the host read a failed
// chunk as fill values, or if core/array stopped naming the chunk.
func TestPythonCodecRaises(t *testing.T) {
	dir := pyFailures(t)
	pyDataset(t, dir, "pyfail.raises")
	stdout, stderr, code := pyZarrgw(t, dir, "", "cat", "-c", "pyfail.hcl", "ds", "--path", "t")
	// cat streams: the header goes out before the first chunk is read;
	// no element may follow it.
	if _, data, _ := strings.Cut(stdout, `"data": [`); code == 0 || strings.TrimSpace(data) != "" {
		t.Fatalf("cat through a codec that raises: exit %d, printed %q\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"codec pyfail.raises: decode: ValueError: pyfail.raises cannot decode 4 bytes", "plugin " + pyFailName} {
		if !strings.Contains(stderr, want) {
			t.Fatalf("cat's error lacks %q:\n%s", want, stderr)
		}
	}
	if !regexp.MustCompile(`array /t: chunk t/c/[01]/[01]: decode pyfail.raises: `).MatchString(stderr) {
		t.Fatalf("cat's error names no chunk:\n%s", stderr)
	}
	// The CLI logs plugin records at warning level and above, as text.
	if !regexp.MustCompile(`level=ERROR msg="codec pyfail.raises: decode: ValueError: [^"]*" plugin=` + regexp.QuoteMeta(pyFailName) + ` .*traceback="Traceback \(most recent call last\):.*pyfail_codecs.py.*in decode`).MatchString(stderr) {
		t.Fatalf("no traceback under the plugin's name in cat's log:\n%s", stderr)
	}
	wantMTLS(t, dir)

	for _, mode := range pyModes {
		t.Run(mode.name, func(t *testing.T) {
			l, logs, _ := startPyFail(t, dir, mode.entry)
			a := pyArray(t, l, "pyfail.raises")
			got, err := readAll(a)
			if err == nil {
				t.Fatalf("read %q through a codec that raises, want an error", got.Data)
			}
			wantErr(t, err, "array /a: chunk a/c/0: ", "plugin "+pyFailName, "codec pyfail.raises: decode: ValueError: pyfail.raises cannot decode 8 bytes")
			if errors.Is(err, codec.ErrCorrupt) || errors.Is(err, pluginapi.ErrConnectionLost) {
				t.Fatalf("a codec's bug reported as corruption or a crash: %v", err)
			}
			r := wantLog(t, logs, "traceback", func(r map[string]any) bool {
				return strings.HasPrefix(str(r, "msg"), "codec pyfail.raises: decode: ValueError")
			})
			tb := str(r, "traceback")
			if str(r, "plugin") != pyFailName || str(r, "level") != "ERROR" ||
				!strings.HasPrefix(tb, "Traceback (most recent call last):") || !strings.Contains(tb, "pyfail_codecs.py") ||
				!strings.Contains(tb, "in decode") || !strings.Contains(tb, "ValueError: pyfail.raises cannot decode 8 bytes") {
				t.Fatalf("traceback record: %v", r)
			}
		})
	}
	wantMTLS(t, dir)
}

// A Python codec that raises CorruptError is codec.ErrCorrupt on the host,
// on both paths of the protocol, in an error naming the chunk and the
// codec. It fails if the SDK sent the error without its kind (the
// status code alone does not carry it) or as another kind.
func TestPythonCodecCorrupt(t *testing.T) {
	dir := pyFailures(t)
	for _, mode := range pyModes {
		t.Run(mode.name, func(t *testing.T) {
			l, _, _ := startPyFail(t, dir, mode.entry)
			a := pyArray(t, l, "pyfail.corrupt")
			got, err := readAll(a)
			if !errors.Is(err, codec.ErrCorrupt) {
				t.Fatalf("read through a codec that finds its input corrupt: %v, want codec.ErrCorrupt (read %v)", err, got)
			}
			wantErr(t, err, "array /a: chunk a/c/0: ", "plugin "+pyFailName, "codec pyfail.corrupt: decode: pyfail.corrupt: checksum mismatch in 8 bytes")
		})
	}
	if n := wantMTLS(t, dir); n != 2 {
		t.Fatalf("%d plugin processes, want one a mode", n)
	}
}

// A Python plugin whose process dies in its first decode serves the read
// anyway: the launcher starts a new process (a new handshake, a new
// certificate) and the decode is made once more. It fails if the host
// gave up at the first death, or if the death went unnoticed (the read
// would hang until its bound).
func TestPythonPluginDiesOnce(t *testing.T) {
	dir := pyFailures(t)
	for _, mode := range pyModes {
		t.Run(mode.name, func(t *testing.T) {
			os.Remove(filepath.Join(dir, "died"))
			l, _, p := startPyFail(t, dir, mode.entry)
			a := pyArray(t, l, "pyfail.diesonce")
			got, err := readAll(a)
			if err != nil {
				t.Fatalf("read through a plugin that died once: %v", err)
			}
			if string(got.Data) != "abcdefgh" {
				t.Fatalf("read %q, want abcdefgh", got.Data)
			}
			died, err := strconv.Atoi(strings.TrimSpace(waitFile(t, filepath.Join(dir, "died"))))
			if err != nil {
				t.Fatal(err)
			}
			if st := p.Status(); st.Restarts != 1 || st.PID == died || st.State != launcher.Running {
				t.Fatalf("status %+v after process %d died, want one restart", st, died)
			}
		})
	}
	if n := wantMTLS(t, dir); n != 4 {
		t.Fatalf("%d plugin processes, want two a mode (the first died)", n)
	}
}

// A Python plugin whose process dies in every decode fails the read with
// an error naming the plugin and the chunk and saying the connection was
// lost, after exactly two deaths (the call and its one retry): no hang,
// no endless restarts. It fails if the host retried more than once, not
// at all, or waited for the read's bound.
func TestPythonPluginDiesAlways(t *testing.T) {
	dir := pyFailures(t)
	for _, mode := range pyModes {
		t.Run(mode.name, func(t *testing.T) {
			deaths := filepath.Join(dir, "deaths")
			os.Remove(deaths)
			l, _, _ := startPyFail(t, dir, mode.entry)
			a := pyArray(t, l, "pyfail.diesalways")
			got, err := readAll(a)
			if err == nil {
				t.Fatalf("read %q through a plugin that dies in every decode", got.Data)
			}
			if errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, pluginapi.ErrConnectionLost) {
				t.Fatalf("read through a plugin that dies in every decode: %v, want the lost connection", err)
			}
			wantErr(t, err, "array /a: chunk a/c/0: ", "plugin "+pyFailName)
			b, _ := os.ReadFile(deaths)
			if pids := strings.Fields(string(b)); len(pids) != 2 || pids[0] == pids[1] {
				t.Fatalf("decodes died in processes %v, want two (the call and its one retry)", pids)
			}
		})
	}
	wantMTLS(t, dir)
}

// What a Python plugin prints after the handshake (stdout and stderr
// both) reaches the host's log under the plugin's name, a line a record;
// its zarrgw_plugin.logger() lines come in at their own levels (the
// host's level, debug here, lets all through), with their attributes.
// It fails if print() went anywhere but the stdio stream (the real stdout
// is the handshake's pipe) or a level were lost on the way.
func TestPythonPluginOutputReachesHostLog(t *testing.T) {
	dir := pyFailures(t)
	l, logs, _ := startPyFail(t, dir, "pyfail.py")
	a := pyArray(t, l, "pyfail.chatty")
	got, err := readAll(a)
	if err != nil || string(got.Data) != "abcdefgh" {
		t.Fatalf("read through the chatty codec: %v", err)
	}
	for msg, level := range map[string]string{
		"chatty: print() to stdout": "INFO",
		"chatty: print() to stderr": "INFO",
		"chatty: a debug line":      "DEBUG",
		"chatty: an info line":      "INFO",
		"chatty: a warning line":    "WARN",
		"chatty: an error line":     "ERROR",
	} {
		r := wantLog(t, logs, strconv.Quote(msg), func(r map[string]any) bool { return str(r, "msg") == msg })
		if str(r, "plugin") != pyFailName || str(r, "level") != level {
			t.Errorf("%q logged as %v, want level %s under plugin %s", msg, r, level, pyFailName)
		}
		if msg == "chatty: a debug line" && r["chunk_bytes"] != float64(8) {
			t.Errorf("the debug line's attribute chunk_bytes: %v", r)
		}
	}
	wantMTLS(t, dir)
}

// Lines a Python plugin prints faster than the stdio stream sends them
// all arrive, in order, once each. It fails if the SDK drops what does not
// fit its queue while the host reads (it lost about 2,500 of these 3,000
// lines), or splits a line's text from its newline.
func TestPythonPluginPrintBurst(t *testing.T) {
	dir := pyFailures(t)
	l, logs, _ := startPyFail(t, dir, "pyfail.py")
	a := pyArray(t, l, "pyfail.burst")
	if got, err := readAll(a); err != nil || string(got.Data) != "abcdefgh" {
		t.Fatalf("read through the burst codec: %v", err)
	}
	wantLog(t, logs, "last printed line", func(r map[string]any) bool { return str(r, "msg") == "burst line 2999" })
	var lines []string
	for _, r := range logRecords(t, logs.String()) {
		if m := str(r, "msg"); strings.Contains(m, "burst line") {
			lines = append(lines, m)
		}
	}
	if len(lines) != 3000 {
		t.Fatalf("%d of 3000 printed lines in the host log", len(lines))
	}
	for i, m := range lines {
		if m != "burst line "+strconv.Itoa(i) {
			t.Fatalf("printed line %d arrived as %q", i, m)
		}
	}
}

// Ending the launcher ends a Python plugin: it gets the host's Shutdown
// (or sees its connection close), says so in its log and exits. It fails
// if the process stays (waitGone's bound); and if the SDK ignored the
// host, the launcher's SIGKILL would end it, but then the plugin's own
// "plugin exiting" record would be missing.
func TestPythonPluginExitsOnClose(t *testing.T) {
	dir := pyFailures(t)
	l, logs, p := startPyFail(t, dir, "pyfail.py")
	if err := startErr(t, p); err != nil {
		t.Fatal(err)
	}
	pid := p.Status().PID
	if !alive(pid) {
		t.Fatalf("plugin process %d is not running", pid)
	}
	l.Close()
	waitGone(t, pid)
	wantLog(t, logs, "plugin exiting record", func(r map[string]any) bool {
		return str(r, "msg") == "plugin exiting" && str(r, "plugin") == pyFailName
	})
	// The host's side of AutoMTLS: go-plugin says it set it up (a plugin
	// serving in the clear then fails its start: the host dials TLS).
	wantLog(t, logs, "automatic mTLS record", func(r map[string]any) bool {
		return str(r, "msg") == "configuring client automatic mTLS" && str(r, "plugin") == pyFailName
	})
	wantMTLS(t, dir)
}

// A Python plugin outlives no zarrgw process that started it: zarrgw cat,
// killed with SIGKILL (no Shutdown, no chance to end its plugins) while
// the plugin is inside a decode that never returns, leaves the plugin to
// find out on its own, and it exits. It fails if the plugin keeps
// running (waitGone's bound), as one that waited for its host's word
// would.
func TestPythonPluginExitsWhenHostKilled(t *testing.T) {
	dir := pyFailures(t)
	pyDataset(t, dir, "pyfail.blocks")
	cat := pyZarrgwCmd(dir, "cat", "-c", "pyfail.hcl", "ds", "--path", "t")
	if err := cat.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	defer func() {
		if !killed {
			cat.Process.Kill()
			cat.Wait()
		}
	}()
	pid, err := strconv.Atoi(strings.Fields(waitFile(t, filepath.Join(dir, "blocked")))[0])
	if err != nil {
		t.Fatal(err)
	}
	// Should the plugin outlive the test, end it; only it, by its pid, and
	// only while it is still this plugin.
	t.Cleanup(func() {
		if cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); alive(pid) && strings.Contains(string(cmdline), "pyfail.py") {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	if ppid := parentOf(t, pid); ppid != cat.Process.Pid {
		t.Fatalf("the plugin %d is the child of %d, not of zarrgw cat (%d)", pid, ppid, cat.Process.Pid)
	}
	if err := cat.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cat.Wait()
	killed = true
	waitGone(t, pid)
	wantMTLS(t, dir)
}

// parentOf is pid's parent process id, from /proc.
func parentOf(t *testing.T, pid int) int {
	t.Helper()
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	ppid, err := strconv.Atoi(fields[1])
	if err != nil {
		t.Fatal(err)
	}
	return ppid
}

// A Python codec that calls sys.exit in decode (SystemExit, which is no
// Exception) fails the call like any other exception: the read fails
// naming the codec, the exception and the chunk, instead of waiting for
// an answer that never comes. It fails (at the read's bound) if the SDK
// lets SystemExit end the worker thread without answering the call.
func TestPythonCodecExits(t *testing.T) {
	dir := pyFailures(t)
	for _, mode := range pyModes {
		t.Run(mode.name, func(t *testing.T) {
			l, _, p := startPyFail(t, dir, mode.entry)
			a := pyArray(t, l, "pyfail.exits")
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			got, err := a.ReadAll(ctx)
			if err == nil {
				t.Fatalf("read %q through a codec that calls sys.exit", got.Data)
			}
			if errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("the call to a codec that called sys.exit was never answered: %v", err)
			}
			wantErr(t, err, "array /a: chunk a/c/0: ", "plugin "+pyFailName, "codec pyfail.exits: decode: SystemExit: pyfail.exits: giving up on 8 bytes")
			if st := p.Status(); st.Restarts != 0 {
				t.Fatalf("status %+v: the plugin process ended", st)
			}
		})
	}
}
