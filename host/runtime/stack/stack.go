// Package stack turns a configuration into running parts: the plugin
// processes it declares, its stores, and for each dataset the stack of
// storage transformers over its store, below its prefix. The CLI and the
// gateway reach datasets only through it.
package stack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"sort"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/internal/telemetry"
	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/launcher"
	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
)

// Host holds the plugins and stores of one configuration. Plugins start
// when first used; Close ends them and closes the stores.
type Host struct {
	cfg      *config.Config
	launcher *launcher.Launcher
	parts    *registry.Parts

	mu     sync.Mutex
	stores map[config.StoreRef]store.Store
	// wrap, when set, wraps each store as it is opened (the gateway bounds
	// and measures store calls with it).
	wrap func(config.StoreRef, store.Store) store.Store
}

// WrapStores has every store opened from now on wrapped by wrap, once,
// below the datasets' prefixes and transformers.
func (h *Host) WrapStores(wrap func(config.StoreRef, store.Store) store.Store) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.wrap = wrap
}

// Start registers every plugin of cfg with a launcher (nothing runs yet)
// and returns the host, whose extensions are set's, in process, and the
// plugins'. Every name (in metadata, in the configuration) is resolved in
// one order: a configured plugin's extension wins over a bundled one of
// the same name.
func Start(cfg *config.Config, set registry.Set, logger *slog.Logger) (*Host, error) {
	l := launcher.New(launcher.Options{Logger: logger})
	for _, p := range cfg.Plugins {
		if _, err := l.Add(Spec(cfg, p)); err != nil {
			l.Close()
			return nil, fmt.Errorf("%s: %w", p.DeclRange, err) // the error names the plugin
		}
	}
	return &Host{
		cfg:      cfg,
		launcher: l,
		parts:    set.InProcess().WithPlugins(l),
		stores:   map[config.StoreRef]store.Store{},
	}, nil
}

// Spec is the launcher's description of a plugin of cfg.
func Spec(cfg *config.Config, p config.Plugin) launcher.Spec {
	spec := specOf(p)
	spec.Manifests, spec.Remedy = p.Manifests, cfg.Remedy(p)
	return spec
}

// specOf is what the launcher needs to run the plugin p.
func specOf(p config.Plugin) launcher.Spec {
	return launcher.Spec{
		Name: p.Source, Path: p.Path, SHA256: p.SHA256, Modules: p.Modules,
		Args: p.Args, Env: p.Env, InheritEnv: p.InheritEnv, OTELHeaders: p.OTELHeaders,
	}
}

// Probe starts a configured plugin, asks what it serves and ends it, for
// config.Options.Probe: names it provides are then checked against their
// schemas. A binary that is absent or does not match its pin (or whose
// Python files do not) is not started (config.VerifyPlugins reports it).
func Probe(ctx context.Context, logger *slog.Logger) func(config.Plugin) ([]extension.Manifest, error) {
	return func(p config.Plugin) ([]extension.Manifest, error) {
		sum, err := pluginpkg.FileSHA256(p.Path)
		if errors.Is(err, fs.ErrNotExist) || (err == nil && sum != p.SHA256) || modulesDiffer(p) {
			return nil, fmt.Errorf("%s: %w", p.Path, config.ErrNotProbed)
		}
		return launcher.Probe(ctx, specOf(p), launcher.Options{Logger: logger})
	}
}

// modulesDiffer reports whether the Python files beside p's script are no
// longer those pinned, as config.VerifyPlugins then reports.
func modulesDiffer(p config.Plugin) bool {
	if p.Modules == "" {
		return false
	}
	h1, err := pluginpkg.PythonModules(p.Path)
	return err == nil && h1 != p.Modules
}

// ArrayOptions resolves codecs and storage transformers named in array
// metadata: bundled ones in process, the rest in the configured plugins;
// arrays are opened within the configuration's limits (the server
// block's max_chunk_bytes and the like). With traces on, each codec call
// and each transformer's store call has a span.
func (h *Host) ArrayOptions() array.Options {
	opts := h.parts.ArrayOptions()
	opts.Limits = h.cfg.Server.ArrayLimits
	if telemetry.Enabled() {
		return telemetry.ArrayOptions(opts)
	}
	return opts
}

// Launcher is the host's plugin launcher, for listing plugin states.
func (h *Host) Launcher() *launcher.Launcher { return h.launcher }

// Close ends every plugin process and closes the stores.
func (h *Host) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	var errs []error
	for ref, s := range h.stores {
		if err := s.Close(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", ref, err))
		}
	}
	h.stores = map[config.StoreRef]store.Store{}
	return errors.Join(append(errs, h.launcher.Close())...)
}

// Dataset is one declared dataset, opened.
type Dataset struct {
	Config *config.Dataset
	// Store is the dataset's stack: its transformers over its store, below
	// its prefix, read-only when the dataset is.
	Store store.Store
}

// Dataset opens the dataset called name. Stores are opened once and
// shared by the datasets over them.
func (h *Host) Dataset(ctx context.Context, name string) (*Dataset, error) {
	ds, ok := h.cfg.Dataset(name)
	if !ok {
		return nil, fmt.Errorf("%s: no dataset %q (declared: %v)", h.cfg.Filename, name, h.datasetNames())
	}
	return h.Open(ctx, ds)
}

// Open opens a dataset declared as ds, which need not be one of the
// configuration's (the S3 API's CreateBucket makes datasets at run time,
// over the configuration's stores).
func (h *Host) Open(ctx context.Context, ds *config.Dataset) (*Dataset, error) {
	name := ds.Name
	base, err := h.store(ctx, ds.Store)
	if err != nil {
		return nil, fmt.Errorf("dataset %q: %w", name, err)
	}
	s, err := store.Sub(base, ds.Prefix)
	if err != nil {
		return nil, fmt.Errorf("dataset %q: %w", name, err)
	}
	if s, err = stackOver(s, ds, func(ext config.Extension, next store.Store) (store.Store, error) {
		return h.transformer(ctx, ext, next)
	}); err != nil {
		return nil, fmt.Errorf("dataset %q: %w", name, err)
	}
	return &Dataset{Config: ds, Store: s}, nil
}

// stackOver builds ds's stack over s: read-only when ds is, then its
// transformers, the last declared first (directly over s), each by build
// over the one below.
func stackOver(s store.Store, ds *config.Dataset, build func(config.Extension, store.Store) (store.Store, error)) (store.Store, error) {
	if ds.ReadOnly {
		// Below the transformers, so nothing they do can write either.
		s = store.ReadOnly(s)
	}
	for i := len(ds.Transformers) - 1; i >= 0; i-- {
		var err error
		if s, err = build(ds.Transformers[i], s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// CheckStacks judges every dataset's stack as Open builds it, over an
// empty store in place of the dataset's, with each bundled transformer
// judged as building it judges it (registry.Parts.CheckTransformer)
// without opening anything: a stack that opening would refuse (a cache
// over the sharding transformer) is an error of the configuration, at the
// transformer's block, found by "zarrgw validate" as by "zarrgw serve".
// A plugin's transformer is left to its plugin.
func CheckStacks(ctx context.Context, cfg *config.Config, set registry.Set) hcl.Diagnostics {
	parts := set.InProcess()
	var diags hcl.Diagnostics
	for _, ds := range cfg.Datasets {
		s, err := stackOver(store.NewMemory(), &ds, func(ext config.Extension, next store.Store) (store.Store, error) {
			if ext.Plugin != "" {
				return next, nil
			}
			s, err := parts.CheckTransformer(ctx, extName(ext), ext.Config, next)
			if err != nil {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Storage transformer refused",
					Detail: fmt.Sprintf("Dataset %q, transformer %q: %s.", ds.Name, ext.Name, err), Subject: ext.DeclRange.Ptr()})
			}
			return s, err
		})
		if err == nil {
			s.Close()
		}
	}
	return diags
}

func (h *Host) datasetNames() []string {
	var names []string
	for _, d := range h.cfg.Datasets {
		names = append(names, d.Name)
	}
	sort.Strings(names)
	return names
}

func (h *Host) store(ctx context.Context, ref config.StoreRef) (store.Store, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s, ok := h.stores[ref]; ok {
		return s, nil
	}
	decl, ok := h.cfg.Store(ref)
	if !ok {
		return nil, fmt.Errorf("%s is not declared", ref)
	}
	ext := decl.Extension
	// A store naming others (a references store's targets) opens them
	// through the host, later, when it first reads them: h.mu is held now.
	s, err := h.parts.OpenStore(store.WithDeclaredOpener(ctx, declared{h}), extName(ext), ext.Config)
	if err != nil {
		return nil, fmt.Errorf("%s (%s): %w", ref, ext.DeclRange, err)
	}
	if h.wrap != nil {
		s = h.wrap(ref, s)
	}
	if telemetry.Enabled() {
		// Outside the gateway's wrapper: the span lasts as long as the
		// caller waits, a place under the store's concurrency bound included.
		s = telemetry.Store(s, extName(ext))
	}
	h.stores[ref] = s
	return s, nil
}

// declared opens the stores of the configuration by identity
// (store.DeclaredOpener), the host's own, shared and closed by it.
type declared struct{ h *Host }

func (d declared) OpenDeclared(ctx context.Context, ref string) (store.Store, error) {
	parts := strings.Split(ref, ".")
	if len(parts) != 3 || parts[0] != "store" {
		return nil, fmt.Errorf("%q is not a store's identity (store.TYPE.NAME)", ref)
	}
	return d.h.store(ctx, config.StoreRef{Type: parts[1], Name: parts[2]})
}

func (h *Host) transformer(ctx context.Context, ext config.Extension, next store.Store) (store.Store, error) {
	s, err := h.parts.NewTransformer(ctx, extName(ext), ext.Config, next)
	if err != nil {
		return nil, fmt.Errorf("transformer %q (%s): %w", ext.Name, ext.DeclRange, err)
	}
	if telemetry.Enabled() {
		s = telemetry.Store(s, extName(ext)) // its calls, with its store's below
	}
	return s, nil
}

// extName is the name an extension is built under: its manifest's when
// the configuration was checked against one, else the name as written.
func extName(ext config.Extension) string {
	if ext.Checked && ext.Manifest.Name != "" {
		return ext.Manifest.Name
	}
	return ext.Name
}

// Codecs returns the dataset's codec overrides as the codecs of a new
// array's metadata, or nil when it declares none.
func (d *Dataset) Codecs() []meta.Extension {
	var out []meta.Extension
	for _, c := range d.Config.Codecs {
		conf := c.Config
		if len(conf) == 0 {
			conf = json.RawMessage(`{}`)
		}
		out = append(out, meta.Extension{Name: extName(c), Configuration: conf, MustUnderstand: true})
	}
	return out
}
