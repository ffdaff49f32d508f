package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/zarrgw/zarrgw/host/app/location"
	"github.com/zarrgw/zarrgw/host/internal/logbatch"
	"github.com/zarrgw/zarrgw/host/internal/telemetry"
	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/stack"
	"github.com/zarrgw/zarrgw/host/serve/gateway"
)

// ServeOptions are what `zarrgw serve` takes from its flags.
type ServeOptions struct {
	File     string    // the configuration
	Listen   string    // overrides the server block's listen when set
	S3Listen string    // overrides the s3 block's listen when set
	Stderr   io.Writer // log records and messages for a person
}

// Serve runs the gateway of the configuration in o.File until ctx ends (SIGINT or SIGTERM), then drains
// requests in flight and ends the plugins. Its log, one JSON record per
// request, goes to stderr in batches (every line written while the
// previous write was under way goes out in the next), and so does all
// else it prints, in order.
func Serve(ctx context.Context, set Set, o ServeOptions) (err error) {
	file, listen, s3Listen, stderr := o.File, o.Listen, o.S3Listen, o.Stderr
	lines := logbatch.New(stderr, 0)
	defer lines.Close() // deferred first: the last to run, after every log line
	stderr = lines
	logger := slog.New(slog.NewJSONHandler(stderr, nil))
	// traces first: plugins started from here on inherit the OTEL_* setup
	shutdown, err := telemetry.Setup(ctx, "zarrgw")
	if err != nil {
		return err
	}
	defer flushTraces(shutdown, logger)
	opts, err := location.ConfigOptions(ctx, set, file, logger)
	if err != nil {
		return err
	}
	cfg, err := config.Check(file, opts, stderr)
	if err != nil {
		return err
	}
	// from here on, what is logged or returned may quote a sensitive value
	logger = cfg.RedactLogger(logger)
	defer func() { err = cfg.RedactError(err) }()
	if listen != "" {
		cfg.Server.Listen = listen
	}
	if s3Listen != "" {
		if cfg.Server.S3 == nil {
			return fmt.Errorf("--s3-listen: %s has no s3 block in its server block", file)
		}
		cfg.Server.S3.Listen = s3Listen
	}
	host, err := stack.Start(cfg, set, logger)
	if err != nil {
		return err
	}
	defer host.Close()
	g, err := gateway.New(ctx, cfg, host, gateway.Options{Logger: logger, AccessLog: lines})
	if err != nil {
		return err
	}
	defer g.Close()
	defer hurryOnSecondSignal(ctx, g)()
	ln, err := net.Listen("tcp", cfg.Server.Listen)
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	printURLs(stderr, cfg, ln.Addr().String())
	if cfg.Server.S3 == nil {
		return g.Serve(ctx, ln)
	}
	s3ln, err := net.Listen("tcp", cfg.Server.S3.Listen)
	if err != nil {
		ln.Close()
		return fmt.Errorf("server s3: %w", err)
	}
	fmt.Fprintf(stderr, "zarrgw: S3 API at %s://%s (region %s; each dataset a bucket)\n", scheme(cfg), s3ln.Addr(), cfg.Server.S3.Region)
	// both listeners end together: when one fails, the other drains
	grp, gctx := errgroup.WithContext(ctx)
	grp.Go(func() error { return g.Serve(gctx, ln) })
	grp.Go(func() error { return g.ServeS3(gctx, s3ln) })
	return grp.Wait()
}

// hurryOnSecondSignal has a signal after the one that began the shutdown
// (ctx ended) end the drain at once. It returns the function that stops
// listening.
func hurryOnSecondSignal(ctx context.Context, g *gateway.Gateway) (stop func()) {
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
		case <-done:
			return
		}
		again := make(chan os.Signal, 1)
		signal.Notify(again, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(again)
		select {
		case <-again:
			g.Hurry()
		case <-done:
		}
	}()
	return func() { close(done) }
}

// flushTraces sends the spans still batched, within a bound: a collector
// that is down must not hold the shutdown.
func flushTraces(shutdown func(context.Context) error, logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := shutdown(ctx); err != nil {
		logger.Warn("sending the last traces", "error", err)
	}
}

func scheme(cfg *config.Config) string {
	if cfg.Server.TLSCertFile != "" {
		return "https"
	}
	return "http"
}

// printURLs tells a person where to look.
func printURLs(w io.Writer, cfg *config.Config, addr string) {
	base := scheme(cfg) + "://" + addr
	fmt.Fprintf(w, "zarrgw: serving %d datasets at %s/d/ (API: %s/openapi.json, metrics: %s/metrics)\n", len(cfg.Datasets), base, base, base)
	for _, ds := range cfg.Datasets {
		fmt.Fprintf(w, "  %s/d/%s/\n", base, ds.Name)
	}
	fmt.Fprintf(w, "zarrgw: pages for a browser at %s/ui/\n", base)
}
