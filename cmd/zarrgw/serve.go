package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"

	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/host/config"
	"github.com/zarrgw/zarrgw/host/gateway"
	"github.com/zarrgw/zarrgw/host/registry"
	"github.com/zarrgw/zarrgw/host/stack"
)

func newServe(set registry.Set) *cobra.Command {
	var path, listen string
	cmd := &cobra.Command{
		Use:   "serve --config FILE",
		Short: "Serve the datasets of a configuration over HTTP until interrupted",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			file, err := configPath(path, args)
			if err != nil {
				return err
			}
			return serve(cmd.Context(), set, file, listen, cmd.ErrOrStderr())
		},
	}
	addConfigFlag(cmd, &path)
	cmd.Flags().StringVar(&listen, "listen", "", "address to listen on, HOST:PORT (default: the server block's listen)")
	return cmd
}

// serve runs the gateway until ctx ends (SIGINT or SIGTERM), then drains
// requests in flight and ends the plugins. Its log, one JSON record per
// request, goes to stderr.
func serve(ctx context.Context, set registry.Set, file, listen string, stderr io.Writer) error {
	logger := slog.New(slog.NewJSONHandler(stderr, nil))
	opts, err := stack.Options(ctx, set, file, logger)
	if err != nil {
		return err
	}
	cfg, err := config.Check(file, opts, stderr)
	if err != nil {
		return err
	}
	if listen != "" {
		cfg.Server.Listen = listen
	}
	host, err := stack.Start(cfg, set, logger)
	if err != nil {
		return err
	}
	defer host.Close()
	g, err := gateway.New(ctx, cfg, host, gateway.Options{Logger: logger})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Server.Listen)
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	printURLs(stderr, cfg, ln.Addr().String())
	return g.Serve(ctx, ln)
}

// printURLs tells a person where to look.
func printURLs(w io.Writer, cfg *config.Config, addr string) {
	scheme := "http"
	if cfg.Server.TLSCertFile != "" {
		scheme = "https"
	}
	base := scheme + "://" + addr
	fmt.Fprintf(w, "zarrgw: serving %d datasets at %s/d/ (API: %s/openapi.json, metrics: %s/metrics)\n", len(cfg.Datasets), base, base, base)
	for _, ds := range cfg.Datasets {
		fmt.Fprintf(w, "  %s/d/%s/\n", base, ds.Name)
	}
}
