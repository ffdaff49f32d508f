package gateway

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Serve answers requests on ln until ctx ends, then stops taking new ones
// and waits up to the server block's shutdown_timeout for those in flight
// (streams longer than that are cut). It serves HTTPS when the server
// block names a certificate and key.
func (g *Gateway) Serve(ctx context.Context, ln net.Listener) error {
	return g.serve(ctx, ln, g)
}

// ServeS3 answers the S3 API on ln as Serve answers the gateway's own.
func (g *Gateway) ServeS3(ctx context.Context, ln net.Listener) error {
	if g.s3 == nil {
		return errors.New("the configuration has no s3 block")
	}
	return g.serve(ctx, ln, g.s3)
}

func (g *Gateway) serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	s := g.Cfg.Server
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: s.ReadHeaderTimeout,
		ReadTimeout:       s.ReadTimeout,
		WriteTimeout:      s.WriteTimeout,
		IdleTimeout:       s.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	done := make(chan error, 1)
	go func() {
		if s.TLSCertFile != "" {
			done <- srv.ServeTLS(ln, s.TLSCertFile, s.TLSKeyFile)
		} else {
			done <- srv.Serve(ln)
		}
	}()
	select {
	case err := <-done:
		return fmt.Errorf("serving %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	// Drain first: /readyz fails and every response closes its
	// connection, while requests are still served, so that a load
	// balancer stops sending here before the listener closes (a request
	// sent to a closed listener is an error the balancer may not retry).
	srv.SetKeepAlivesEnabled(false)
	g.drain(s.DrainDelay)
	g.Log.Info("shutting down", "timeout", s.ShutdownTimeout.String())
	sctx, cancel := context.WithTimeout(context.Background(), s.ShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		srv.Close()
		err = fmt.Errorf("requests still running after shutdown_timeout (%s) were cut", s.ShutdownTimeout)
	}
	<-done // http.ErrServerClosed
	return err
}

// drain marks the gateway as draining and waits until delay has passed
// since the first listener began to drain (both listeners drain together).
func (g *Gateway) drain(delay time.Duration) {
	g.drainOnce.Do(func() {
		g.drainEnd = time.Now().Add(delay)
		g.Draining.Store(true)
		if delay > 0 {
			g.Log.Info("draining: /readyz fails while requests are still served", "drain_delay", delay.String())
		}
	})
	timer := time.NewTimer(time.Until(g.drainEnd))
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-g.hurry:
	}
}

// Hurry ends a drain now (a second SIGTERM or Ctrl-C does it: whoever
// sends it does not want to wait out drain_delay); requests in flight
// still get shutdown_timeout. Calling it again does nothing.
func (g *Gateway) Hurry() {
	g.hurryOnce.Do(func() { close(g.hurry) })
}
