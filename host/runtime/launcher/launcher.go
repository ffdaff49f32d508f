// Package launcher runs plugins: it starts each plugin process through
// go-plugin (handshake, protocol version negotiation, AutoMTLS), running
// the very file it verified before every start (its owner and modes, its
// SHA-256, a Python script's modules), restarts a crashed plugin with
// backoff on the next call, files plugin logs into the host's log under
// the plugin's name, and ends every plugin process on Close. A plugin
// also ends on its own when the host dies (pluginapi watches the host's
// connection).
//
// Each Plugin is a pluginapi.Connector; its Client gives codecs and stores
// that implement the core interfaces.
package launcher

import (
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/zarrgw/zarrgw/core/extension"
)

// Options tune a Launcher; zero values take the defaults.
type Options struct {
	// Logger receives go-plugin's messages and the plugins' logs, each
	// with the attribute plugin=<name>. Default: slog.Default().
	Logger *slog.Logger
	// StartTimeout bounds a start up to the handshake. Default: 30s.
	StartTimeout time.Duration
	// RestartDelay is the delay before the second of consecutive restarts
	// (the first is immediate); it doubles per failure up to
	// MaxRestartDelay. Defaults: 250ms and 30s.
	RestartDelay, MaxRestartDelay time.Duration
	// CallTimeout bounds plugin calls made without a context (a store's
	// Close releasing its instance in the plugin). Default:
	// pluginapi.DefaultTimeout.
	CallTimeout time.Duration
}

// Spec describes one plugin binary.
type Spec struct {
	// Name names the plugin in logs and errors: its source address
	// ("example.org/acme/bitshave") or, for a bundled extension, its name.
	Name string
	Path string
	// SHA256 is the binary's checksum in hex. It is required, and the
	// binary is verified against it before every start, restarts included,
	// through the descriptor the process then runs it by (on Linux).
	SHA256 string
	// Modules is the h1: hash of the Python files a plugin that is a
	// Python script may import from its directory (pluginpkg.HashPython of
	// pluginpkg.PythonDir): required for such a plugin, and verified with
	// SHA256. Every file checked, and each directory above it, must be
	// changeable by zarrgw's user or root only.
	Modules string
	Args    []string
	// Env is added to the plugin's environment, which is otherwise only
	// the host's variables that InheritedEnv names; InheritEnv passes the
	// host's whole environment instead (bundled extensions, which are
	// zarrgw itself).
	Env        map[string]string
	InheritEnv bool
	// OTELHeaders passes the host's OTEL_*_HEADERS variables (an OTLP
	// collector's credentials), which InheritedEnv otherwise leaves out;
	// InheritEnv passes them too.
	OTELHeaders bool
	// Remedy says how to fix a binary that does not match SHA256 ("record
	// it with: zarrgw plugins lock -c FILE"); errors about it end with it.
	Remedy string
	// Manifests are the extensions the plugin is known to serve (bundled,
	// or probed before); when empty, Manifests asks the plugin.
	Manifests []extension.Manifest
}

// Launcher owns a set of plugins. It is safe for concurrent use.
type Launcher struct {
	opts    Options
	mu      sync.Mutex
	plugins map[string]*Plugin
	closed  bool
}

// ErrClosed is returned for plugins of a closed launcher.
var ErrClosed = errors.New("plugin launcher is closed")

// ErrUnavailable is wrapped by errors of calls that found their plugin
// not running and could not start it (yet): the condition is temporary
// for a plugin that crashed and is waiting to restart.
var ErrUnavailable = errors.New("plugin unavailable")

// New returns a launcher with no plugins.
func New(opts Options) *Launcher {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 30 * time.Second
	}
	if opts.RestartDelay <= 0 {
		opts.RestartDelay = 250 * time.Millisecond
	}
	if opts.MaxRestartDelay <= 0 {
		opts.MaxRestartDelay = 30 * time.Second
	}
	return &Launcher{opts: opts, plugins: map[string]*Plugin{}}
}

// Add registers a plugin without starting it: it starts on first use.
func (l *Launcher) Add(spec Spec) (*Plugin, error) {
	if spec.Name == "" || spec.Path == "" {
		return nil, fmt.Errorf("plugin %q: a name and a path are required", spec.Name)
	}
	if _, err := decodeChecksum(spec.SHA256); err != nil {
		return nil, fmt.Errorf("plugin %s: %w", spec.Name, err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, ErrClosed
	}
	if _, dup := l.plugins[spec.Name]; dup {
		return nil, fmt.Errorf("plugin %s is already added", spec.Name)
	}
	p := newPlugin(l, spec)
	l.plugins[spec.Name] = p
	return p, nil
}

// Plugin returns the plugin added under name.
func (l *Launcher) Plugin(name string) (*Plugin, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	p, ok := l.plugins[name]
	return p, ok
}

// Plugins returns every plugin, sorted by name.
func (l *Launcher) Plugins() []*Plugin {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]*Plugin, 0, len(l.plugins))
	for _, p := range l.plugins {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].spec.Name < out[j].spec.Name })
	return out
}

// Close ends every plugin process and refuses further use. go-plugin asks
// each to exit and kills it if it does not within two seconds.
func (l *Launcher) Close() error {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range l.Plugins() {
		wg.Go(p.close)
	}
	wg.Wait()
	return nil
}

func (l *Launcher) isClosed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closed
}
