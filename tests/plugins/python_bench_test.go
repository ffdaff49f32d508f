package plugins

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/host/runtime/launcher"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// noopPython is the Python twin of testdata/noopplugin: a bytes->bytes
// codec whose encode and decode return their input.
const noopPython = `"""bench.noop: returns its input, to measure what a call costs."""

import zarrgw_plugin as zp


class Noop(zp.BytesBytesCodec):
    manifest = zp.Manifest("bench.noop", version="0.1.0")

    def __init__(self, config):
        pass

    def configuration(self):
        return {}

    def encode(self, data, spec):
        return data

    def decode(self, data, spec):
        return data
`

// pyProfileHook profiles the SDK's codec calls with cProfile when
// ZARRGW_BENCH_PYPROFILE names a file: every 100 calls it writes the
// stats there and the process's CPU seconds to FILE.cpu. Calls are
// serialized while profiled (one cProfile.Profile is not thread-safe),
// so profiled runs measure where the time goes, not how fast it is.
const pyProfileHook = `import os
if os.environ.get("ZARRGW_BENCH_PYPROFILE"):
    import cProfile, threading
    from zarrgw_plugin import service
    _path, _lock, _prof, _calls = os.environ["ZARRGW_BENCH_PYPROFILE"], threading.Lock(), cProfile.Profile(), [0]

    def _profiled(fn, stream):
        def call(self, request, context):
            with _lock:
                _prof.enable()
                try:
                    r = list(fn(self, request, context)) if stream else fn(self, request, context)
                finally:
                    _prof.disable()
                _calls[0] += 1
                if _calls[0] % 100 == 0:
                    _prof.dump_stats(_path)
                    with open(_path + ".cpu", "w") as f:
                        t = os.times()
                        f.write("%d calls, %.3f s user, %.3f s system\n" % (_calls[0], t.user, t.system))
            return iter(r) if stream else r
        return call

    service.CodecService.Run = _profiled(service.CodecService.Run, True)
    service.CodecService.Batch = _profiled(service.CodecService.Batch, False)
`

// parallelCallers is how many goroutines call at once in the parallel
// benchmarks: enough for the host's batcher to form batches.
const parallelCallers = 16

// BenchmarkNoopCodec measures what one codec call costs out of process
// when the codec does nothing: a Go plugin, a Python plugin with every
// part of the protocol (batches, shared memory) and a Python plugin
// without them (one stream per call, payloads in frames). serial is one
// caller, so every batch holds one call; parallel is 16 callers, whose
// calls the host batches.
//
//	go test -run XXX -bench NoopCodec -benchtime=2s -count=3 ./tests/plugins/
func BenchmarkNoopCodec(b *testing.B) {
	variants := []struct {
		name  string
		entry func(b *testing.B) string // the plugin's executable
	}{
		{"go", func(b *testing.B) string { return buildNoopGo(b) }},
		{"python", func(b *testing.B) string { return noopPythonPlugin(b, "") }},
		{"python-plain", func(b *testing.B) string {
			return noopPythonPlugin(b, "batch=False, shared_memory=False")
		}},
	}
	sizes := []struct {
		name string
		n    int
	}{{"64KiB", 64 << 10}, {"1MiB", 1 << 20}}
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			l := benchLauncher(b)
			var env map[string]string
			if prof := os.Getenv("ZARRGW_BENCH_PYPROFILE"); prof != "" {
				env = map[string]string{"ZARRGW_BENCH_PYPROFILE": prof + "." + v.name}
			}
			addPlugin(b, l, "bench/noop-"+v.name, v.entry(b), env)
			codecs := registry.Bundled().InProcess().WithPlugins(l).Codecs()
			c, err := remoteOnly{codecs}.Codec(context.Background(), "bench.noop", nil)
			if err != nil {
				b.Fatal(err)
			}
			bb, ok := c.(codec.BytesBytes)
			if !ok {
				b.Fatalf("bench.noop is %T, not a bytes->bytes codec", c)
			}
			for _, size := range sizes {
				in := make([]byte, size.n)
				rand.Read(in)
				spec := codec.Spec{DataType: dtype.Named("uint8"), Shape: []int{size.n},
					DecodedSize: int64(size.n), MaxDecodedSize: int64(size.n)}
				call := func() error {
					out, err := bb.DecodeBytes(context.Background(), spec, in)
					if err != nil {
						return err
					}
					if len(out) != len(in) || out[0] != in[0] || out[len(out)-1] != in[len(in)-1] {
						return fmt.Errorf("bench.noop changed its input (%d bytes back for %d)", len(out), len(in))
					}
					return nil
				}
				// The first calls build the codec and map the arenas.
				for range 4 {
					if err := call(); err != nil {
						b.Fatal(err)
					}
				}
				if out, _ := bb.DecodeBytes(context.Background(), spec, in); !bytes.Equal(out, in) {
					b.Fatal("bench.noop changed its input")
				}
				b.Run(size.name, func(b *testing.B) {
					b.Run("serial", func(b *testing.B) {
						b.SetBytes(int64(size.n))
						b.ResetTimer()
						for range b.N {
							if err := call(); err != nil {
								b.Fatal(err)
							}
						}
						reportCalls(b)
					})
					b.Run("parallel", func(b *testing.B) {
						b.SetBytes(int64(size.n))
						b.SetParallelism((parallelCallers + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
						b.ResetTimer()
						b.RunParallel(func(pb *testing.PB) {
							for pb.Next() {
								if err := call(); err != nil {
									b.Error(err)
									return
								}
							}
						})
						reportCalls(b)
					})
				})
			}
		})
	}
}

// benchLauncher is a launcher logging at info, zarrgw's default level:
// newLauncher's debug level would have both SDKs log every batch, a cost
// a deployment does not pay.
func benchLauncher(b *testing.B) *launcher.Launcher {
	logs := &logBuffer{}
	l := launcher.New(launcher.Options{
		Logger:       slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo})),
		StartTimeout: time.Minute,
	})
	b.Cleanup(func() {
		l.Close()
		if b.Failed() {
			b.Logf("host log:\n%s", tail(logs.String(), 40))
		}
	})
	return l
}

// reportCalls reports the benchmark's calls per second and microseconds
// per call (the latter is ns/op for serial runs; for parallel ones it is
// wall time divided by calls, the inverse of the throughput).
func reportCalls(b *testing.B) {
	sec := b.Elapsed().Seconds()
	if sec <= 0 || b.N == 0 {
		return
	}
	b.ReportMetric(float64(b.N)/sec, "calls/s")
	b.ReportMetric(sec*1e6/float64(b.N), "µs/call")
}

// buildNoopGo builds testdata/noopplugin, as TestMain builds the other
// test plugins (Go's build cache makes it quick after the first time).
func buildNoopGo(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "noopplugin")
	cmd := exec.Command("go", "build", "-o", bin, "./tests/plugins/testdata/noopplugin")
	cmd.Dir = repoRoot()
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build noopplugin: %v\n%s", err, out)
	}
	return bin
}

// noopPythonPlugin writes the Python no-op codec, a copy of the SDK and
// an entry point that serves it with serveArgs into a new directory, and
// returns the entry point.
func noopPythonPlugin(b *testing.B, serveArgs string) string {
	b.Helper()
	out, err := exec.Command(debianPython, "-c", "import grpc, google.protobuf, numpy, cryptography").CombinedOutput()
	if err != nil {
		servers.Unavailable(b, "Debian's Python cannot run plugins (%v: %s): run scripts/setup.sh", err, out)
	}
	dir := b.TempDir()
	if err := copySDK(filepath.Join(repoRoot(), "pluginapi", "python", "zarrgw_plugin"), filepath.Join(dir, "zarrgw_plugin")); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "noop_codec.py"), []byte(noopPython), 0o644); err != nil {
		b.Fatal(err)
	}
	if serveArgs != "" {
		serveArgs = ", " + serveArgs
	}
	entry := filepath.Join(dir, "plugin.py")
	body := "#!" + debianPython + "\nimport noop_codec\nimport zarrgw_plugin\n" + pyProfileHook +
		"zarrgw_plugin.serve(noop_codec.Noop" + serveArgs + ")\n"
	if err := os.WriteFile(entry, []byte(body), 0o755); err != nil {
		b.Fatal(err)
	}
	return entry
}

// copySDK copies the SDK's .py files (no bytecode) from src to dst.
func copySDK(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			if d.Name() == "__pycache__" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !strings.HasSuffix(path, ".py") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
}
