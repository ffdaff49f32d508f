package pluginapi

import (
	"context"
	"errors"
	"sync"

	"google.golang.org/grpc"

	"github.com/zarrgw/zarrgw/core/store"
	pb "github.com/zarrgw/zarrgw/pluginapi/zarrgwv1"
)

// nextServer serves the store below a transformer to the plugin, on a
// broker ID of the plugin's current connection. A restarted plugin has a
// new broker, so the store is served again on the first call after.
type nextServer struct {
	store   store.Store
	mu      sync.Mutex
	conn    *Conn
	id      uint32
	srv     *grpc.Server
	stopped bool
}

func (n *nextServer) on(conn *Conn) (uint32, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.stopped {
		return 0, errors.New("transformer is closed")
	}
	if n.conn == conn {
		return n.id, nil
	}
	if conn.broker == nil {
		return 0, errors.New("the connection has no broker to serve the next store on")
	}
	n.stopLocked()
	n.conn, n.id = conn, conn.broker.NextId()
	svc := &storeService{
		open:  func(context.Context, *pb.StoreRef) (store.Store, error) { return n.store, nil },
		close: func(*pb.StoreRef) error { return nil }, // the host owns next
	}
	go conn.broker.AcceptAndServe(n.id, func(opts []grpc.ServerOption) *grpc.Server {
		s := grpc.NewServer(append(opts, ServerOptions()...)...)
		pb.RegisterStoreServer(s, svc)
		n.mu.Lock()
		defer n.mu.Unlock()
		if n.stopped || n.conn != conn {
			s.Stop() // superseded before it started
		} else {
			n.srv = s
		}
		return s
	})
	return n.id, nil
}

// current is the broker ID and connection the store is served on, if any.
func (n *nextServer) current() (uint32, *Conn) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.id, n.conn
}

func (n *nextServer) stopLocked() {
	if n.srv != nil {
		n.srv.Stop()
		n.srv = nil
	}
}

func (n *nextServer) stop() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.stopped = true
	n.stopLocked()
}
