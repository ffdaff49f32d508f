// Package location opens the place a command names: a directory, or a
// dataset of a configuration (its whole stack of plugins, transformers and
// store). Cloud and HTTP URLs join as their stores arrive.
package location

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/config"
	"github.com/zarrgw/zarrgw/host/registry"
	"github.com/zarrgw/zarrgw/host/stack"
	"github.com/zarrgw/zarrgw/plugins/stores/fs"
)

// Open returns a store for loc: a directory path or a file:// URL.
func Open(loc string) (store.Store, error) {
	path := strings.TrimPrefix(loc, "file://")
	if strings.Contains(path, "://") {
		return nil, fmt.Errorf("location %q: unsupported scheme (use a directory path)", loc)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("location %q: %w", loc, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("location %q: not a directory", loc)
	}
	return fs.New(path)
}

// Target is what a command reads or writes: a store, how to open arrays
// in it, and the codecs new arrays get there.
type Target struct {
	Store   store.Store
	Options array.Options
	// Codecs are the dataset's codec overrides; nil for a directory.
	Codecs []meta.Extension
	close  func() error
}

// Close releases the store and ends any plugin processes.
func (t *Target) Close() error {
	if t.close == nil {
		return nil
	}
	return t.close()
}

// Resolve opens loc. Without a configuration file loc is a directory and
// every extension is bundled and in process. With one, loc names a
// dataset of it: the configuration is checked (its diagnostics go to
// diag, its plugins are probed), its plugins are launched as needed and
// their logs at warning level and above go to diag.
func Resolve(ctx context.Context, configFile, loc string, diag io.Writer) (*Target, error) {
	if configFile == "" {
		s, err := Open(loc)
		if err != nil {
			return nil, err
		}
		opts := array.Options{Codecs: registry.Codecs(), Transformers: registry.Transformers()}
		return &Target{Store: s, Options: opts, close: s.Close}, nil
	}
	logger := slog.New(slog.NewTextHandler(diag, &slog.HandlerOptions{Level: slog.LevelWarn}))
	cfg, err := config.Check(configFile, config.Options{Catalog: registry.Bundled(), Probe: stack.Probe(ctx, logger)}, diag)
	if err != nil {
		return nil, err
	}
	h, err := stack.Start(cfg, logger)
	if err != nil {
		return nil, err
	}
	ds, err := h.Dataset(ctx, loc)
	if err != nil {
		return nil, errors.Join(err, h.Close())
	}
	return &Target{Store: ds.Store, Options: h.ArrayOptions(), Codecs: ds.Codecs(), close: h.Close}, nil
}
