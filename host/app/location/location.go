// Package location opens the place a command names: a directory, a URL
// whose scheme a store declares (store.Registration.Schemes: file:// here,
// s3:// and the like as their stores join the set), or a dataset of a
// configuration (its whole stack of plugins, transformers and store).
package location

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/zarrgw/zarrgw/plugins/builtin"
	"io"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/install"
	"github.com/zarrgw/zarrgw/host/install/cliconfig"
	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/host/runtime/stack"
)

// Open returns the store loc names: a URL whose scheme one of the set's
// stores declares, or, without a scheme, a directory (a "file" URL).
// The store is opened by parts, in process or in a plugin.
func Open(ctx context.Context, parts *registry.Parts, loc string) (store.Store, error) {
	return parts.OpenURL(ctx, loc)
}

// Remote reports whether loc names a store across a network: a URL of
// any scheme but "file" (a dataset of a configuration counts as local).
func Remote(loc string) bool {
	return strings.Contains(loc, "://") && !strings.HasPrefix(loc, "file://")
}

// Target is what a command reads or writes: a store, how to open arrays
// in it, and the codecs new arrays get there.
type Target struct {
	Store   store.Store
	Options array.Options
	// Codecs are the dataset's codec overrides; nil for a directory.
	Codecs []meta.Extension
	// Where says what was opened, for messages: a directory made absolute,
	// a URL, or a dataset with its declaration and, over an fs store, its
	// directory.
	Where string
	// Dataset is the dataset's declaration; nil without a configuration.
	Dataset *config.Dataset
	cfg     *config.Config // nil without a configuration
	close   func() error
}

// Close releases the store and ends any plugin processes.
func (t *Target) Close() error {
	if t.close == nil {
		return nil
	}
	return t.close()
}

// Resolve opens loc with the extensions of set. Without a configuration
// file loc is a directory or a store's URL and every extension runs in
// process. With one, loc names a dataset of it: the configuration is
// checked (its diagnostics go to diag, its plugins are probed), its
// plugins are launched as needed and their logs at warning level and
// above go to diag.
func Resolve(ctx context.Context, set registry.Set, configFile, loc string, diag io.Writer) (*Target, error) {
	if configFile == "" {
		s, err := Open(ctx, set.InProcess(), loc)
		if err != nil {
			return nil, err
		}
		return &Target{Store: s, Options: DirectoryOptions(set), Where: where(loc), close: s.Close}, nil
	}
	logger := slog.New(slog.NewTextHandler(diag, &slog.HandlerOptions{Level: slog.LevelWarn}))
	opts, err := ConfigOptions(ctx, set, configFile, logger)
	if err != nil {
		return nil, err
	}
	cfg, err := config.Check(configFile, opts, diag)
	if err != nil {
		return nil, err
	}
	h, err := stack.Start(cfg, set, logger)
	if err != nil {
		return nil, cfg.RedactError(err)
	}
	ds, err := h.Dataset(ctx, loc)
	if err != nil {
		return nil, cfg.RedactError(errors.Join(err, h.Close()))
	}
	return &Target{Store: ds.Store, Options: h.ArrayOptions(), Codecs: ds.Codecs(),
		Where: datasetWhere(cfg, ds.Config), Dataset: ds.Config, cfg: cfg, close: h.Close}, nil
}

// Redact hides the values of the configuration's sensitive variables in
// err (config.Config.RedactError), as a command on the target prints
// every error it meets: a store's error quotes its root, its endpoint.
func (t *Target) Redact(err error) error { return t.cfg.RedactError(err) }

// DirectoryOptions are how arrays open in a location without a
// configuration (a directory, a URL): with the set's extensions, in
// process.
func DirectoryOptions(set registry.Set) array.Options {
	opts := set.InProcess().ArrayOptions()
	opts.Codecs = bundledOnly{opts.Codecs}
	return opts
}

// where describes a LOCATION: a directory as an absolute path, a URL as
// it is.
func where(loc string) string {
	dir := loc
	if strings.Contains(loc, "://") {
		u, err := url.Parse(loc)
		if err != nil || u.Scheme != "file" {
			return loc
		}
		dir = u.Host + u.Path
	}
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

// datasetWhere describes a dataset: its name and declaration, and over an
// fs store the directory its keys are in (sensitive values hidden).
func datasetWhere(cfg *config.Config, ds *config.Dataset) string {
	out := fmt.Sprintf("dataset %q (%s)", ds.Name, config.At(ds.DeclRange))
	if st, ok := cfg.Store(ds.Store); ok && st.Root != "" {
		out += " at " + filepath.Join(st.Root, filepath.FromSlash(ds.Prefix))
	}
	return cfg.Redact(out)
}

// bundledOnly resolves codecs without a configuration: only the bundled
// ones exist, and a codec named in metadata that is not among them says
// where it would come from.
type bundledOnly struct{ codec.Resolver }

func (b bundledOnly) Codec(ctx context.Context, name string, config json.RawMessage) (codec.Codec, error) {
	c, err := b.Resolver.Codec(ctx, name, config)
	if why, ok := builtin.Unbundled()[name]; ok && errors.Is(err, codec.ErrUnavailable) {
		return nil, fmt.Errorf("%w: %s: %s; declare such a plugin in a configuration file and read the data with --config FILE", codec.ErrUnavailable, name, why)
	}
	if errors.Is(err, codec.ErrUnavailable) {
		return nil, fmt.Errorf("%w: %q is not bundled with zarrgw, so a plugin must provide it: "+
			"declare the plugin in a configuration file, and read the data as a dataset of it with --config FILE", codec.ErrUnavailable, name)
	}
	return c, err
}

// ConfigOptions are the options every command loads the configuration file
// with: set's catalog, pinned plugins probed, and plugins installed by
// "zarrgw init" or overridden for development located as the CLI
// configuration (cliconfig.Load) says.
func ConfigOptions(ctx context.Context, set registry.Set, file string, logger *slog.Logger) (config.Options, error) {
	cli, err := cliconfig.Load(nil)
	if err != nil {
		return config.Options{}, err
	}
	loc := install.Locator{ConfigFile: file, CLI: cli, Platform: pluginpkg.Current()}
	stacks := func(cfg *config.Config) hcl.Diagnostics { return stack.CheckStacks(ctx, cfg, set) }
	return loc.Options(config.Options{Catalog: set.Catalog(), Probe: stack.Probe(ctx, logger), Stacks: stacks}), nil
}
