package pluginapi

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/store/storetest"
	pb "github.com/zarrgw/zarrgw/pluginapi/zarrgwv1"
)

// olderPlugin serves the protocol as a plugin built with an SDK from
// before EraseMany: its Store service has no such method, so gRPC answers
// it Unimplemented, as such a binary does.
type olderPlugin struct{ grpcPlugin }

func (p *olderPlugin) GRPCServer(broker *plugin.GRPCBroker, g *grpc.Server) error {
	s := p.srv
	s.stores.broker = broker
	pb.RegisterPluginServer(g, &pluginService{srv: s})
	pb.RegisterCodecServer(g, &codecService{srv: s})
	desc := pb.Store_ServiceDesc
	desc.Methods = slices.DeleteFunc(slices.Clone(desc.Methods), func(m grpc.MethodDesc) bool { return m.MethodName == "EraseMany" })
	g.RegisterService(&desc, &storeService{open: s.stores.open, close: s.stores.close, arenas: &s.arenas})
	return nil
}

// inProcessOlder is inProcess with a plugin of the older SDK.
func inProcessOlder(t testing.TB, ext Extensions) *Client {
	t.Helper()
	return inProcessAs(t, "older", ext, func(srv *server) plugin.Plugin { return &olderPlugin{grpcPlugin{srv: srv}} })
}

// opCounts counts the calls a hooked store saw, by operation.
type opCounts struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *opCounts) hook(ctx context.Context, op, _ string, call func(context.Context) error) error {
	c.mu.Lock()
	c.n[op]++
	c.mu.Unlock()
	return call(ctx)
}

func (c *opCounts) get(op string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[op]
}

// EraseMany crosses the plugin boundary as one call that reaches the
// plugin's store as one EraseMany; a plugin of the older SDK, which has no
// EraseMany, gets the keys one Erase each, and the batch still erases
// them all.
func TestEraseManyAcrossTheBoundary(t *testing.T) {
	for _, older := range []bool{false, true} {
		t.Run(fmt.Sprintf("older=%v", older), func(t *testing.T) {
			counts := &opCounts{n: map[string]int{}}
			ext := Extensions{Stores: []store.Registration{storeExtension("counted", func() store.Store {
				return store.WithHook(store.NewMemory(), counts.hook)
			})}}
			c := inProcess(t, ext)
			if older {
				c = inProcessOlder(t, ext)
			}
			s, err := c.Store(t.Context(), "counted", nil)
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for i := range 50 {
				keys = append(keys, fmt.Sprintf("k/%d", i))
				if _, err := s.Set(t.Context(), keys[i], []byte("v"), store.Condition{}); err != nil {
					t.Fatal(err)
				}
			}
			for range 2 { // the second time, an older plugin is not asked again
				if err := s.EraseMany(t.Context(), append(slices.Clone(keys), "missing")); err != nil {
					t.Fatal(err)
				}
			}
			left, err := store.ListAll(t.Context(), s, "")
			if err != nil || len(left) > 0 {
				t.Fatalf("after EraseMany: %q, %v", left, err)
			}
			wantMany, wantEach := 2, 0
			if older {
				wantMany, wantEach = 0, 2*51
			}
			if m, e := counts.get("erase_many"), counts.get("erase"); m != wantMany || e != wantEach {
				t.Fatalf("the plugin's store saw %d EraseMany and %d Erase, want %d and %d", m, e, wantMany, wantEach)
			}
		})
	}
}

// A store served by a plugin of the older SDK passes the suite, EraseMany
// included, through the host's fallback.
func TestStoreConformanceOlderPlugin(t *testing.T) {
	c := inProcessOlder(t, Extensions{Stores: []store.Registration{
		storeExtension("memory", func() store.Store { return store.NewMemory() }),
	}})
	var ids instances
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := c.Store(t.Context(), "memory", ids.next())
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
