package pluginapi

import (
	"context"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/zarrgw/zarrgw/pluginapi/telemetry"
)

// flushTimeout bounds the export of the spans left when the plugin ends:
// the host kills a plugin that has not exited 3 s after asking it to end.
const flushTimeout = 2 * time.Second

// startTelemetry sets up the plugin's traces from the OTEL_* variables,
// as the host does (telemetry.Setup): zarrgw's launcher passes them on,
// with OTEL_SERVICE_NAME set to the plugin's name; without it the spans
// are named for the executable. The spans of the plugin's calls are the
// children of the host's, whose context comes in each call's metadata.
// It returns the function that sends the spans left and stops the
// exporter, once, whichever way the plugin ends first (Serve returns, the
// host's connection closes, see hostWatch).
func startTelemetry() (end func(), err error) {
	shutdown, err := telemetry.Setup(context.Background(), telemetry.Options{
		ServiceName: filepath.Base(os.Args[0]),
		Errors:      func(err error) { Logger().Warn("traces", "error", err) },
	})
	if err != nil {
		return nil, err
	}
	end = sync.OnceFunc(func() {
		ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
		defer cancel()
		if err := shutdown(ctx); err != nil {
			Logger().Warn("traces: spans left at exit not sent", "error", err)
		}
	})
	if telemetry.Enabled() {
		flushOnSignal()
	}
	return end, nil
}

// flushOnSignal sends the spans ended so far when SIGTERM comes, then lets
// the signal do what it would have done without this handler: a plugin
// that handles none ends, and one whose main handles SIGTERM (zarrgw's
// own "plugin serve") goes on serving until its host ends it, tracing
// still. go-plugin ignores SIGINT in plugins: the host ends them.
func flushOnSignal() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM)
	go func() {
		<-ch
		ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
		if err := telemetry.Flush(ctx); err != nil {
			Logger().Warn("traces: spans not sent at SIGTERM", "error", err)
		}
		cancel()
		signal.Stop(ch)
		if p, err := os.FindProcess(os.Getpid()); err == nil {
			p.Signal(syscall.SIGTERM)
		}
	}()
}
