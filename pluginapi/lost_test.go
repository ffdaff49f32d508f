package pluginapi

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/zarrgw/zarrgw/pluginapi/zarrgwv1"
)

// unavailablePlugin serves the protocol, but its codecs answer Describe
// with Unavailable and no error detail, as a plugin written without the
// SDK may for a service of its own that is down: it is alive and well.
type unavailablePlugin struct{ grpcPlugin }

func (p *unavailablePlugin) GRPCServer(broker *plugin.GRPCBroker, g *grpc.Server) error {
	s := p.srv
	s.stores.broker = broker
	pb.RegisterPluginServer(g, &pluginService{srv: s})
	pb.RegisterCodecServer(g, unavailableCodecs{&codecService{srv: s}})
	return nil
}

type unavailableCodecs struct{ *codecService }

func (unavailableCodecs) Describe(context.Context, *pb.CodecRef) (*pb.CodecInfo, error) {
	return nil, status.Error(codes.Unavailable, "the codec's licence server is down")
}

func connOf(c *Client) *Conn { return c.conn.(staticConnector).conn }

// An Unavailable the plugin answered is the plugin's error, not a lost
// connection: the call is not made again and the process is not ended
// (its connection stays unbroken). Fails where every Unavailable counts
// as the connection lost.
func TestPluginsUnavailableIsNotALostConnection(t *testing.T) {
	c := inProcessAs(t, "unavailable", Extensions{}, func(srv *server) plugin.Plugin { return &unavailablePlugin{grpcPlugin{srv: srv}} })
	_, err := c.Codec(context.Background(), "x", nil)
	if err == nil || errors.Is(err, ErrConnectionLost) || !strings.Contains(err.Error(), "licence server is down") {
		t.Fatalf("a plugin's Unavailable came back as %v", err)
	}
	if connOf(c).Broken() {
		t.Fatal("a plugin that answered is taken for dead")
	}
}

// A call on a connection the host has closed (the launcher ends the
// process of a broken connection before it starts the next one, with
// other calls still under way) fails with gRPC's Canceled "the client
// connection is closing": that is a lost connection, which those calls
// are made again after, not an error of the plugin. Fails where only
// Unavailable counts as lost.
func TestClosedConnectionIsLost(t *testing.T) {
	client, _, conn := dial(t, Extensions{}, plainPlugin)
	c := NewClient(staticConnector{name: "closed", conn: conn})
	client.Close()
	_, err := c.Codec(context.Background(), "x", nil)
	if !errors.Is(err, ErrConnectionLost) || !strings.Contains(err.Error(), "plugin closed") {
		t.Fatalf("a call on a closed connection: %v", err)
	}
	if !conn.Broken() {
		t.Fatal("a closed connection is not marked broken")
	}
}

// A connection whose peer has gone (its server stopped, as a process that
// died) fails its calls with Unavailable, and a liveness check confirms
// it: the connection is lost and marked broken.
func TestDeadPeerIsLost(t *testing.T) {
	_, server, conn := dial(t, Extensions{}, plainPlugin)
	c := NewClient(staticConnector{name: "dead", conn: conn})
	server.Stop()
	_, err := c.Codec(context.Background(), "x", nil)
	if !errors.Is(err, ErrConnectionLost) || !strings.Contains(err.Error(), "plugin dead") {
		t.Fatalf("a call to a dead peer: %v", err)
	}
	if !conn.Broken() {
		t.Fatal("a dead peer's connection is not marked broken")
	}
}
