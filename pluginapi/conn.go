package pluginapi

import (
	"context"
	"sync/atomic"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
)

// Conn is a connection to one running plugin process. It is made by
// go-plugin's handshake (the launcher dispenses it) and lives as long as
// that process.
type Conn struct {
	cc     grpc.ClientConnInterface
	broker *plugin.GRPCBroker // nil where the peer offers none (the host's next store)
	broken atomic.Bool
}

// Broken reports whether a call on this connection failed because the
// connection broke: the process behind it is gone or going, and the next
// Connect must start a new one rather than hand this one out again.
func (c *Conn) Broken() bool { return c.broken.Load() }

// Connector gives the connection to a plugin, starting or restarting its
// process as needed. host/launcher implements it.
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
