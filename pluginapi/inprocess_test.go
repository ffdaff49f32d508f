package pluginapi

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/go-plugin"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/transformer"
)

// inProcess serves ext over go-plugin's in-process gRPC connection (a Unix
// socket and a broker, as a plugin process has, without building one) and
// returns the host's client of it: the whole protocol in a test of
// seconds.
func inProcess(t testing.TB, ext Extensions) *Client {
	t.Helper()
	return inProcessAs(t, "in-process", ext, func(srv *server) plugin.Plugin { return &grpcPlugin{srv: srv} })
}

// inProcessAs is inProcess with the plugin side made by as (a plugin of
// an older SDK, say), its client named name.
func inProcessAs(t testing.TB, name string, ext Extensions, as func(*server) plugin.Plugin) *Client {
	t.Helper()
	_, _, conn := dial(t, ext, as)
	t.Cleanup(conn.Release)
	return NewClient(staticConnector{name: name, conn: conn})
}

// dial serves ext, by the plugin as makes, over go-plugin's in-process
// connection, and returns both ends and the host's connection, closed
// when the test ends. Closing the client stops the server too (go-plugin's
// Shutdown call); stopping it as well is for tests of a plugin that dies.
func dial(t testing.TB, ext Extensions, as func(*server) plugin.Plugin) (*plugin.GRPCClient, *plugin.GRPCServer, *Conn) {
	t.Helper()
	srv, err := newServer(ext)
	if err != nil {
		t.Fatal(err)
	}
	client, server := plugin.TestPluginGRPCConn(t, false, map[string]plugin.Plugin{PluginName: as(srv)})
	t.Cleanup(func() { client.Close() })
	raw, err := client.Dispense(PluginName)
	if err != nil {
		t.Fatal(err)
	}
	return client, server, raw.(*Conn)
}

// plainPlugin is the plugin of the SDK as it is, for dial.
func plainPlugin(srv *server) plugin.Plugin { return &grpcPlugin{srv: srv} }

// storeExtension serves the store build returns, one per configuration.
func storeExtension(name string, build func() store.Store) store.Registration {
	return store.Registration{
		Manifest: extension.Manifest{Kind: extension.Store, Name: name},
		New:      func(context.Context, json.RawMessage) (store.Store, error) { return build(), nil },
	}
}

// instances names a fresh store instance on each call: the plugin keeps
// one per configuration.
type instances struct{ n atomic.Int64 }

func (i *instances) next() json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"instance":%d}`, i.n.Add(1)))
}

// subTransformer is a storage transformer that keeps its keys under "t/"
// of the store below, which the host serves back to it.
var subTransformer = transformer.Registration{
	Manifest: extension.Manifest{Kind: extension.Transformer, Name: "sub"},
	New: func(_ context.Context, _ json.RawMessage, next store.Store) (store.Store, error) {
		return store.Sub(next, "t")
	},
}
