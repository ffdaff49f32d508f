package plugins

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/launcher"
	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
)

// logBuffer collects the host's log, which is where plugin logs land.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// newLauncher returns a launcher closed when the test ends, and its log.
func newLauncher(t testing.TB) (*launcher.Launcher, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	l := launcher.New(launcher.Options{
		Logger:       slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		StartTimeout: time.Minute,
		RestartDelay: 50 * time.Millisecond,
	})
	t.Cleanup(func() {
		l.Close()
		if t.Failed() {
			t.Logf("host log:\n%s", tail(logs.String(), 40))
		}
	})
	return l, logs
}

// addPlugin adds bin (pinned to its checksum, and a Python script's
// modules to theirs) run with args.
func addPlugin(t testing.TB, l *launcher.Launcher, name, bin string, env map[string]string, args ...string) *launcher.Plugin {
	t.Helper()
	sum, err := launcher.Checksum(bin)
	if err != nil {
		t.Fatal(err)
	}
	modules, err := pluginpkg.PythonModules(bin)
	if err != nil {
		t.Fatal(err)
	}
	p, err := l.Add(launcher.Spec{Name: name, Path: bin, SHA256: sum, Modules: modules, Args: args, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// fsOpener opens fs stores through parts (in a plugin, out of process).
func fsOpener(parts *registry.Parts) func(dir string) (store.Store, error) {
	return func(dir string) (store.Store, error) {
		return parts.OpenStore(context.Background(), fsstore.Name, fsstore.Config(dir))
	}
}
