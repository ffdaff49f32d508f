package pluginapi

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/status"

	pb "github.com/zarrgw/zarrgw/pluginapi/zarrgwv1"
)

// Conn is a connection to one running plugin process. It is made by
// go-plugin's handshake (the launcher dispenses it) and lives as long as
// that process.
type Conn struct {
	cc     grpc.ClientConnInterface
	broker *plugin.GRPCBroker // nil where the peer offers none (the host's next store)
	broken atomic.Bool
	// checking is set while a liveness check runs (see suspect).
	checking atomic.Bool
	// probing admits one check of a failed call's connection at a time
	// (see gone), so that the calls a dead process leaves behind share it.
	probing sync.Mutex

	featuresOnce sync.Once
	feats        *pb.Features

	arenaMu  sync.Mutex
	arena    *arena
	noArena  bool // the plugin or the system cannot share memory
	creating bool
	released bool
}

// sharedArena returns the connection's arena, creating it on first use;
// nil when payloads must travel in frames.
func (c *Conn) sharedArena(ctx context.Context) *arena {
	c.arenaMu.Lock()
	if c.arena != nil || c.noArena || c.released || c.creating {
		// While one call sets the arena up, others use frames rather than
		// wait on it past their deadlines.
		a := c.arena
		c.arenaMu.Unlock()
		return a
	}
	c.creating = true
	c.arenaMu.Unlock()
	var a *arena
	err := errNoSharedMemory
	if c.features(ctx).SharedMemory {
		a, err = newArena(ctx, pb.NewPluginClient(c.cc))
	}
	c.arenaMu.Lock()
	defer c.arenaMu.Unlock()
	c.creating = false
	switch {
	case err != nil:
		// A plugin without MapArena, or no shared memory here: frames it
		// is, for good. A call that merely ran out of time tries again.
		c.noArena = ctx.Err() == nil
		return nil
	case c.released:
		a.release()
		return nil
	}
	c.arena = a
	return a
}

// errNoSharedMemory is a plugin's answer, by its features, that it maps no
// arenas.
var errNoSharedMemory = errors.New("the plugin does not share memory")

// features returns what optional parts of the protocol the plugin serves,
// asked once per process (connection). A plugin that does not say (built
// before features were declared) serves them all; one whose answer does
// not come gets the plain path (frames, one call per stream), which every
// plugin serves.
func (c *Conn) features(ctx context.Context) *pb.Features {
	c.featuresOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), PingTimeout)
		defer cancel()
		resp, err := pb.NewPluginClient(c.cc).Info(ctx, &pb.InfoRequest{})
		switch {
		case err != nil:
			c.feats = &pb.Features{}
		case resp.Features == nil:
			c.feats = &pb.Features{Batch: true, SharedMemory: true}
		default:
			c.feats = resp.Features
		}
	})
	return c.feats
}

// Release frees the shared memory the host holds for this connection once
// the calls still using it return. The launcher calls it when it discards
// the connection (its process exited or is being ended).
func (c *Conn) Release() {
	c.arenaMu.Lock()
	defer c.arenaMu.Unlock()
	c.released = true
	if c.arena != nil {
		c.arena.release()
	}
}

// Broken reports whether a call on this connection failed because the
// connection broke: the process behind it is gone or going, and the next
// Connect must start a new one rather than hand this one out again.
func (c *Conn) Broken() bool { return c.broken.Load() }

// PingTimeout is how long a plugin suspected of hanging has to answer a
// liveness check before its connection counts as broken.
const PingTimeout = 5 * time.Second

// suspect checks, one check at a time and without holding up the caller,
// whether the plugin still answers after a call ran out of time. A plugin
// that answers is left alone (the call was merely slow, or only it is
// stuck); one that does not answer within PingTimeout either is taken for
// hung: its connection is marked broken, so the next call ends the process
// and starts a new one instead of waiting out its own deadline too.
func (c *Conn) suspect() {
	if !c.checking.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer c.checking.Store(false)
		if !c.answers() {
			c.broken.Store(true)
		}
	}()
}

// answers reports whether the plugin answers a liveness check within
// PingTimeout. An answer of any kind is life: the host's own server of
// the store below a transformer has no Info, and says so.
func (c *Conn) answers() bool {
	ctx, cancel := context.WithTimeout(context.Background(), PingTimeout)
	defer cancel()
	_, err := pb.NewPluginClient(c.cc).Info(ctx, &pb.InfoRequest{})
	return err == nil || status.Code(err) == codes.Unimplemented
}

// lostBy reports whether a call on c that failed with err failed because
// the connection is gone (the plugin's process exited, or the host ended
// it), so that the call may be made again on the process that replaces
// it, rather than with an answer of the plugin. gRPC reports a connection
// that broke as Unavailable, and one the host has closed meanwhile (the
// launcher ends the process of a broken connection before it starts the
// next) as Canceled, "the client connection is closing". The plugin's
// own errors carry the protocol's error detail (both SDKs send it with
// every error), and a plugin that still answers is alive whatever the
// code said; a caller that gave up has its own reason.
func (c *Conn) lostBy(ctx context.Context, err error) bool {
	if callerGaveUp(ctx) != nil {
		return false
	}
	st, ok := status.FromError(err)
	if !ok || st.Code() != codes.Unavailable && st.Code() != codes.Canceled {
		return false
	}
	for _, d := range st.Details() {
		if _, ok := d.(*pb.ErrorDetail); ok {
			return false
		}
	}
	return c.gone()
}

// gone reports whether the connection is dead: found so before, closed by
// the host, or silent to a liveness check made now, after which it stays
// dead (broken). The calls a process leaves behind when it dies share
// one check: the first makes it, the others find its verdict.
func (c *Conn) gone() bool {
	if c.broken.Load() {
		return true
	}
	if cc, ok := c.cc.(*grpc.ClientConn); ok && cc.GetState() == connectivity.Shutdown {
		c.broken.Store(true)
		return true
	}
	c.probing.Lock()
	defer c.probing.Unlock()
	if c.broken.Load() {
		return true
	}
	if c.answers() {
		return false
	}
	c.broken.Store(true)
	return true
}

// Connector gives the connection to a plugin, starting or restarting its
// process as needed. host/runtime/launcher implements it.
type Connector interface {
	// Name names the plugin in every error about it.
	Name() string
	Connect(ctx context.Context) (*Conn, error)
}

// staticConnector is a connection that never changes: the one a plugin
// dials to reach the store below a transformer, which the host serves.
type staticConnector struct {
	name string
	conn *Conn
}

func (s staticConnector) Name() string { return s.name }

func (s staticConnector) Connect(context.Context) (*Conn, error) { return s.conn, nil }
