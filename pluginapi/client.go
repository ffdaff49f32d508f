package pluginapi

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
	pb "github.com/zarrgw/zarrgw/pluginapi/zarrgwv1"
)

// DefaultTimeout bounds calls made without a context of their own.
const DefaultTimeout = time.Minute

// Client is the host's side of one plugin: what it serves, and codecs and
// stores that run in it. It is safe for concurrent use, and survives
// restarts of the plugin: every call asks the Connector for the live
// connection.
type Client struct {
	conn  Connector
	batch *batcher
	// Timeout bounds calls made without a context: a store's Close, which
	// io.Closer gives none.
	Timeout time.Duration
}

// NewClient returns a client of the plugin c connects to.
func NewClient(c Connector) *Client { return newClient(c) }

func newClient(c Connector) *Client {
	cl := &Client{conn: c, Timeout: DefaultTimeout}
	cl.batch = newBatcher(cl)
	return cl
}

// Name is the plugin's name.
func (c *Client) Name() string { return c.conn.Name() }

func (c *Client) connect(ctx context.Context) (*Conn, error) {
	conn, err := c.conn.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return conn, nil
}

// fail turns a call's error into one naming the plugin: one wrapping
// ErrConnectionLost when the call failed because the connection is gone
// (which marks it broken, so that the next call starts a new process), and
// has the plugin checked for life when the call ran out of time.
func (c *Client) fail(ctx context.Context, conn *Conn, err error) error {
	if conn.lostBy(ctx, err) {
		return fmt.Errorf("plugin %s: %w: %s", c.conn.Name(), ErrConnectionLost, status.Convert(err).Message())
	}
	if code := status.Code(err); callerGaveUp(ctx) != nil && (code == codes.DeadlineExceeded || code == codes.Canceled) {
		conn.suspect()
	}
	return fromStatus(ctx, c.conn.Name(), err)
}

// Manifests returns the manifest of every extension the plugin serves.
func (c *Client) Manifests(ctx context.Context) ([]extension.Manifest, error) {
	resp, err := unary(ctx, c, func(conn *Conn) (*pb.InfoResponse, error) {
		return pb.NewPluginClient(conn.cc).Info(ctx, &pb.InfoRequest{})
	})
	if err != nil {
		return nil, err
	}
	out := make([]extension.Manifest, len(resp.Manifests))
	for i, m := range resp.Manifests {
		out[i] = manifestFromPB(m)
	}
	return out, nil
}

// Validate checks a configuration for the plugin's extension of kind named
// name, returning the problems found (none: valid).
func (c *Client) Validate(ctx context.Context, kind extension.Kind, name string, config json.RawMessage) ([]FieldError, error) {
	resp, err := unary(ctx, c, func(conn *Conn) (*pb.ValidateResponse, error) {
		return pb.NewPluginClient(conn.cc).Validate(ctx, &pb.ValidateRequest{Kind: string(kind), Name: name, Configuration: config})
	})
	if err != nil {
		return nil, err
	}
	var out []FieldError
	for _, f := range resp.Errors {
		out = append(out, FieldError{Path: f.Path, Message: f.Message})
	}
	return out, nil
}

// Codec builds the plugin's codec name with configuration and returns a
// codec that runs it there. The result implements ArrayArray, ArrayBytes
// or BytesBytes according to the codec's kind.
func (c *Client) Codec(ctx context.Context, name string, config json.RawMessage) (codec.Codec, error) {
	ref := &pb.CodecRef{Name: name, Configuration: config}
	info, err := unary(ctx, c, func(conn *Conn) (*pb.CodecInfo, error) {
		return pb.NewCodecClient(conn.cc).Describe(ctx, ref)
	})
	if err != nil {
		return nil, err
	}
	rc := &remoteCodec{c: c, ref: ref, name: info.Name, kind: codecKindFromPB(info.Kind), sized: info.Sized}
	if len(info.Configuration) > 0 {
		rc.config = json.RawMessage(info.Configuration)
	}
	switch rc.kind {
	case codec.ArrayToArray:
		return &remoteArrayArray{rc}, nil
	case codec.ArrayToBytes:
		switch {
		case info.Partial && info.Layout:
			return &remoteLayout{remotePartial{remoteArrayBytes{rc}}}, nil
		case info.Partial:
			return &remotePartial{remoteArrayBytes{rc}}, nil
		}
		return &remoteArrayBytes{rc}, nil
	case codec.BytesToBytes:
		return &remoteBytesBytes{rc}, nil
	}
	return nil, fmt.Errorf("plugin %s: codec %s has unknown kind %v", c.Name(), name, info.Kind)
}

// Resolver returns a codec.Resolver building codecs in the plugin. A name
// the plugin does not serve wraps codec.ErrUnavailable.
func (c *Client) Resolver() codec.Resolver { return clientResolver{c} }

type clientResolver struct{ c *Client }

func (r clientResolver) Codec(ctx context.Context, name string, config json.RawMessage) (codec.Codec, error) {
	return r.c.Codec(ctx, name, config)
}
