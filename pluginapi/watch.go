package pluginapi

import (
	"context"
	"os"
	"sync/atomic"

	"google.golang.org/grpc/stats"
)

// hostWatch ends the plugin when its last connection from the host closes.
// go-plugin's server keeps running when the host dies without shutting it
// down (SIGKILL, a crash): its stdin is the host's stdin, which stays open.
// The host's gRPC connection, however, closes with the host's process, so
// a plugin never outlives its host. The host disables gRPC's idle timeout
// so a quiet but live host keeps its connection.
type hostWatch struct {
	live atomic.Int64
	exit func()
}

func newHostWatch() *hostWatch {
	return &hostWatch{exit: func() {
		Logger().Info("connection to the host closed; exiting")
		os.Exit(0)
	}}
}

func (h *hostWatch) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context { return ctx }

func (h *hostWatch) HandleRPC(context.Context, stats.RPCStats) {}

func (h *hostWatch) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }

func (h *hostWatch) HandleConn(_ context.Context, s stats.ConnStats) {
	switch s.(type) {
	case *stats.ConnBegin:
		h.live.Add(1)
	case *stats.ConnEnd:
		if h.live.Add(-1) == 0 {
			h.exit()
		}
	}
}
