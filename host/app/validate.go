package app

import (
	"context"
	"io"
	"log/slog"

	"github.com/zarrgw/zarrgw/host/app/location"
	"github.com/zarrgw/zarrgw/host/runtime/config"
)

// ValidateOptions are what `zarrgw validate` takes from its flags.
type ValidateOptions struct {
	File   string    // the configuration
	Stderr io.Writer // diagnostics, and the logs of plugins started to check their blocks
}

// Validation counts what a valid configuration declares.
type Validation struct{ Datasets, Stores, Plugins int }

// Report is the JSON document of `zarrgw validate --json`: the
// diagnostics, and what the configuration declares.
type Report = config.Report

// Validate checks a configuration as serve would, without serving:
// syntax, references, extension names and their configuration, plugin
// binaries against their pins, the roots of fs stores. Its diagnostics
// go to o.Stderr as HCL prints them; the error is the first.
func Validate(ctx context.Context, set Set, o ValidateOptions) (Validation, error) {
	opts, err := validateOptions(ctx, set, o)
	if err != nil {
		return Validation{}, err
	}
	cfg, err := config.Check(o.File, opts, o.Stderr)
	if err != nil {
		return Validation{}, err
	}
	return Validation{Datasets: len(cfg.Datasets), Stores: len(cfg.Stores), Plugins: len(cfg.Plugins)}, nil
}

// ValidateReport checks a configuration as Validate does, its diagnostics
// collected in the report rather than written. The error is one that
// kept the check from running (report.Valid says whether the
// configuration is valid).
func ValidateReport(ctx context.Context, set Set, o ValidateOptions) (Report, error) {
	opts, err := validateOptions(ctx, set, o)
	if err != nil {
		return Report{}, err
	}
	return config.NewReport(config.CheckDiagnostics(o.File, opts)), nil
}

// validateOptions are the options a configuration is checked with: pinned
// plugins present on this machine are started once to ask what they
// serve, so that their blocks are checked against their schemas; their
// logs at warning level and above go to stderr.
func validateOptions(ctx context.Context, set Set, o ValidateOptions) (config.Options, error) {
	logger := slog.New(slog.NewTextHandler(o.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	return location.ConfigOptions(ctx, set, o.File, logger)
}
