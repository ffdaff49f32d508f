package launcher

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/hashicorp/go-plugin"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/pluginapi"
)

// State is where a plugin is in its life.
type State string

const (
	NotStarted State = "not started"
	Running    State = "running"
	Exited     State = "exited" // crashed or killed; restarts on the next call
	Failed     State = "failed" // the last start failed; retried with backoff
	Closed     State = "closed"
)

// Status is a plugin's state for listings.
type Status struct {
	State    State
	PID      int
	Restarts int
	// Err is the last start failure or crash, nil when there was none.
	Err error
}

// Plugin is one plugin binary and its current process. It implements
// pluginapi.Connector.
type Plugin struct {
	l      *Launcher
	spec   Spec
	log    *slog.Logger
	client *pluginapi.Client
	// starting admits one start at a time; a channel rather than a mutex so
	// that callers waiting behind a slow start still honour their context.
	starting chan struct{}

	mu        sync.Mutex
	proc      *plugin.Client
	conn      *pluginapi.Conn
	state     State
	pid       int
	since     time.Time // when the current process started
	failures  int       // consecutive crashes and failed starts
	notBefore time.Time // no start before this (backoff)
	restarts  int
	lastErr   error
	manifests []extension.Manifest
}

func newPlugin(l *Launcher, spec Spec) *Plugin {
	p := &Plugin{
		l:         l,
		spec:      spec,
		log:       l.opts.Logger.With("plugin", spec.Name),
		starting:  make(chan struct{}, 1),
		state:     NotStarted,
		manifests: spec.Manifests,
	}
	p.client = pluginapi.NewClient(p)
	if l.opts.CallTimeout > 0 {
		p.client.Timeout = l.opts.CallTimeout
	}
	return p
}

// Name is the plugin's name.
func (p *Plugin) Name() string { return p.spec.Name }

// Spec is what the plugin was added with.
func (p *Plugin) Spec() Spec { return p.spec }

// Client returns the plugin's client: its manifests, codecs and stores.
func (p *Plugin) Client() *pluginapi.Client { return p.client }

// Status returns the plugin's state.
func (p *Plugin) Status() Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := Status{State: p.state, Restarts: p.restarts, Err: p.lastErr}
	// A process that exited, or whose connection broke (it stopped
	// answering), is replaced on the next call.
	if p.state == Running && p.proc != nil && (p.proc.Exited() || p.conn.Broken()) {
		s.State = Exited
	}
	if s.State == Running {
		s.PID = p.pid
	}
	return s
}

// Start starts the plugin unless it is running.
func (p *Plugin) Start(ctx context.Context) error {
	_, err := p.Connect(ctx)
	return err
}

// Manifests returns the extensions the plugin serves: those of its Spec,
// else those it reports (which starts it), remembered from then on.
func (p *Plugin) Manifests(ctx context.Context) ([]extension.Manifest, error) {
	p.mu.Lock()
	ms := p.manifests
	p.mu.Unlock()
	if ms != nil {
		return ms, nil
	}
	ms, err := p.client.Manifests(ctx)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.manifests = ms
	p.mu.Unlock()
	return ms, nil
}

// Codec builds one of the plugin's codecs.
func (p *Plugin) Codec(ctx context.Context, name string, config json.RawMessage) (codec.Codec, error) {
	return p.client.Codec(ctx, name, config)
}

// Store opens one of the plugin's store types.
func (p *Plugin) Store(ctx context.Context, name string, config json.RawMessage) (store.Store, error) {
	return p.client.Store(ctx, name, config)
}

// Transformer opens one of the plugin's storage transformers over next.
func (p *Plugin) Transformer(ctx context.Context, name string, config json.RawMessage, next store.Store) (store.Store, error) {
	return p.client.Transformer(ctx, name, config, next)
}
