package pluginapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/transformer"
	"github.com/zarrgw/zarrgw/pluginapi/telemetry"
	pb "github.com/zarrgw/zarrgw/pluginapi/zarrgwv1"
)

// storeInstances are the stores and transformers a plugin has opened,
// keyed by the StoreRef that names them. A restarted plugin starts empty
// and reopens each on the first call that names it.
type storeInstances struct {
	srv    *server
	broker *plugin.GRPCBroker
	mu     sync.Mutex
	m      map[string]*instance
}

type instance struct {
	once sync.Once
	st   store.Store
	next *grpc.ClientConn // the host's connection for a transformer's next store
	err  error
}

func newStoreInstances(srv *server) *storeInstances {
	return &storeInstances{srv: srv, m: map[string]*instance{}}
}

func refKey(ref *pb.StoreRef) string {
	return fmt.Sprintf("%s\x00%d\x00%s", ref.GetName(), ref.GetNext(), ref.GetConfiguration())
}

// open returns the instance ref names, building it on first use. Building
// happens outside the map's lock, so a slow store does not hold up others.
func (si *storeInstances) open(ctx context.Context, ref *pb.StoreRef) (store.Store, error) {
	key := refKey(ref)
	si.mu.Lock()
	inst := si.m[key]
	if inst == nil {
		inst = &instance{}
		si.m[key] = inst
	}
	si.mu.Unlock()
	inst.once.Do(func() {
		inst.st, inst.next, inst.err = si.build(ctx, ref)
		if inst.err == nil && telemetry.Enabled() {
			// The plugin's own span for each operation, below the span of
			// the call that asked for it.
			inst.st = telemetry.Store(inst.st, ref.GetName())
		}
	})
	if inst.err != nil {
		si.mu.Lock()
		if si.m[key] == inst {
			delete(si.m, key) // let a later call try again
		}
		si.mu.Unlock()
		return nil, inst.err
	}
	return inst.st, nil
}

func (si *storeInstances) build(ctx context.Context, ref *pb.StoreRef) (store.Store, *grpc.ClientConn, error) {
	config := json.RawMessage(ref.GetConfiguration())
	if ref.GetNext() == 0 {
		for _, e := range si.srv.ext.Stores {
			if e.Manifest.AnswersTo(ref.GetName()) {
				st, err := e.New(ctx, config)
				if err != nil {
					return nil, nil, fmt.Errorf("store %s: %w", ref.GetName(), err)
				}
				return st, nil, nil
			}
		}
		return nil, nil, fmt.Errorf("%w: this plugin serves no store named %q", store.ErrUnsupported, ref.GetName())
	}
	for _, e := range si.srv.ext.Transformers {
		if e.Manifest.AnswersTo(ref.GetName()) {
			return si.buildTransformer(ctx, e, ref)
		}
	}
	return nil, nil, fmt.Errorf("%w: this plugin serves no transformer named %q", store.ErrUnsupported, ref.GetName())
}

// buildTransformer dials the store the host serves below the transformer
// and wraps it.
func (si *storeInstances) buildTransformer(ctx context.Context, e transformer.Registration, ref *pb.StoreRef) (store.Store, *grpc.ClientConn, error) {
	if si.broker == nil {
		return nil, nil, errors.New("no broker to reach the next store")
	}
	cc, err := si.broker.DialWithOptions(ref.GetNext(), DialOptions()...)
	if err != nil {
		return nil, nil, fmt.Errorf("transformer %s: reach the next store: %w", ref.GetName(), err)
	}
	next, err := newClient(staticConnector{name: "host", conn: &Conn{cc: cc}}).openStore(ctx, &pb.StoreRef{}, nil)
	if err == nil {
		var st store.Store
		if st, err = e.New(ctx, json.RawMessage(ref.GetConfiguration()), next); err == nil {
			return st, cc, nil
		}
	}
	cc.Close()
	return nil, nil, fmt.Errorf("transformer %s: %w", ref.GetName(), err)
}

// close closes and forgets the instance ref names.
func (si *storeInstances) close(ref *pb.StoreRef) error {
	key := refKey(ref)
	si.mu.Lock()
	inst := si.m[key]
	delete(si.m, key)
	si.mu.Unlock()
	if inst == nil {
		return nil
	}
	inst.once.Do(func() {}) // a build in progress finishes first
	if inst.st == nil {
		return nil
	}
	err := inst.st.Close()
	if inst.next != nil {
		err = errors.Join(err, inst.next.Close())
	}
	return err
}
