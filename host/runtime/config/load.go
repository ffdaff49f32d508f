package config

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/zclconf/go-cty/cty"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/host/runtime/config/access"
	"github.com/zarrgw/zarrgw/host/runtime/config/hclread"
	"github.com/zarrgw/zarrgw/host/runtime/config/lockfile"
	"github.com/zarrgw/zarrgw/host/runtime/config/redact"
	"github.com/zarrgw/zarrgw/host/runtime/config/server"
)

// Options tune LoadWith and ParseWith.
type Options struct {
	Catalog *extension.Catalog
	// Lock pins plugin checksums. When nil, LoadWith reads the
	// configuration's lock file, NAME.lock.hcl beside NAME.hcl, or while
	// that does not exist the directory's shared zarrgw.lock.hcl of
	// earlier versions (a missing one is empty), and ParseWith uses none.
	Lock *Lock
	// Probe launches a pinned plugin and returns the manifests it reports,
	// so that the names it provides are checked against their schemas.
	// Without it, or when it returns ErrNotProbed, such names are
	// accepted with a warning.
	Probe func(Plugin) ([]extension.Manifest, error)
	// LookupEnv reads environment variables; os.LookupEnv when nil.
	LookupEnv func(string) (string, bool)
	// AllowUnpinned is for writing the lock file ("plugins lock", "init"):
	// a plugin given by path is pinned to its binary as it is now, so that
	// it can be probed, and one installed by version needs no lock entry
	// and is not located.
	AllowUnpinned bool
	// Installing is for "zarrgw init": plugins given by path are left as
	// they are (unpinned when the lock file has no entry), and installed
	// ones need no lock entry and are not located.
	Installing bool
	// Installed finds the binary of a plugin installed by "zarrgw init"
	// (whose Version and Hashes come from the lock file) and checks its
	// package against those hashes. host/install provides it; without it,
	// installed plugins cannot be used.
	Installed func(Plugin) (Located, error)
	// IgnoreStoreRoots leaves the fs stores' roots unchecked by Check, for a
	// command that opens no store ("plugins list").
	IgnoreStoreRoots bool
	// Stacks, when set, judges the datasets' stacks of transformers as
	// opening them would (host/runtime/stack provides it), for Check: a stack
	// that every command would refuse is refused by "validate" too.
	Stacks func(*Config) hcl.Diagnostics
	// Override finds a development build of a plugin, which then runs
	// without lock or installation (the CLI configuration's
	// dev_overrides); ok is false for a plugin not overridden.
	Override func(Plugin) (l Located, ok bool, err error)
}

// Located is where a plugin's binary was found, and its SHA-256.
type Located struct {
	Path, SHA256 string
	// Modules is the h1: hash of the Python files beside an executable
	// that is a Python script (pluginpkg.PythonModules), else "".
	Modules string
	// From names what said where: the CLI configuration, for an override.
	From string
}

// ErrNotProbed is what a Probe returns for a plugin it chose not to
// start, such as one whose binary is not on this machine (VerifyPlugins
// warns of that): loading goes on as if there were no prober.
var ErrNotProbed = errors.New("plugin not probed")

// Load reads and decodes the configuration file at path, with the lock
// file next to it. The Config is never nil; when diags has errors it is
// incomplete and must not be served, but its Files print the diagnostics.
func Load(path string, cat *extension.Catalog) (*Config, hcl.Diagnostics) {
	return LoadWith(path, Options{Catalog: cat})
}

// Parse decodes a configuration held in memory; filename names it in
// diagnostics and its directory anchors relative plugin paths.
func Parse(src []byte, filename string, cat *extension.Catalog) (*Config, hcl.Diagnostics) {
	return ParseWith(src, filename, Options{Catalog: cat})
}

// LoadWith is Load with options.
func LoadWith(path string, opts Options) (*Config, hcl.Diagnostics) {
	p := hclparse.NewParser()
	f, diags := hclread.ParseFile(p, path)
	cfg := newConfig(path, p)
	if diags.HasErrors() {
		return cfg, diags
	}
	if opts.Lock == nil {
		cfg.lockSource = cfg.LockSource()
		lock, lockDiags := lockfile.Read(p, cfg.lockSource)
		diags = append(diags, lockDiags...)
		opts.Lock = lock
	}
	return cfg, append(diags, decode(cfg, f.Body, opts)...)
}

// ParseWith is Parse with options.
func ParseWith(src []byte, filename string, opts Options) (*Config, hcl.Diagnostics) {
	p := hclparse.NewParser()
	f, diags := hclread.ParseSource(p, src, filename)
	cfg := newConfig(filename, p)
	if diags.HasErrors() {
		return cfg, diags
	}
	return cfg, append(diags, decode(cfg, f.Body, opts)...)
}

func newConfig(filename string, p *hclparse.Parser) *Config {
	// The parser's map is live: the lock file, parsed later, joins it.
	return &Config{Filename: filename, Dir: filepath.Dir(filename), Server: DefaultServer(), Files: p.Files()}
}

var topSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{
	{Type: "variable", LabelNames: []string{"name"}},
	{Type: "plugin", LabelNames: []string{"source"}},
	{Type: "store", LabelNames: []string{"type", "name"}},
	{Type: "dataset", LabelNames: []string{"name"}},
	{Type: "server"},
	{Type: "principal", LabelNames: []string{"name"}},
	{Type: "identity_provider", LabelNames: []string{"name"}},
}}

// decoder carries what later blocks need from earlier ones.
type decoder struct {
	cfg  *Config
	opts Options
	// ev evaluates expressions once the variables are known (phase two).
	ev *hclread.Evaluator
	// acc reads principals, identity providers and access lists; srv
	// the server block.
	acc *access.Decoder
	srv *server.Decoder
	// declared holds every declared variable name, valued or not.
	declared map[string]bool
	// stores maps every declared store to its block, so datasets may refer
	// to stores declared after them.
	stores map[StoreRef]*hcl.Block
	// sensitive holds the values of the sensitive variables, which
	// diagnostics must not show (package redact).
	sensitive redact.Values
	// envNames maps each variable to the environment variable it names,
	// for messages saying what to set.
	envNames map[string]string
	// keysAt is where each dataset's keys are placed (its prefix, else
	// its store), for the check of overlaps with buckets (buckets.go).
	keysAt map[string]hcl.Range
}

func decode(cfg *Config, body hcl.Body, opts Options) hcl.Diagnostics {
	if opts.LookupEnv == nil {
		opts.LookupEnv = os.LookupEnv
	}
	cfg.Catalog = extension.NewCatalog()
	if opts.Catalog != nil {
		cfg.Catalog = opts.Catalog.Clone()
	}
	d := &decoder{cfg: cfg, opts: opts, stores: map[StoreRef]*hcl.Block{},
		sensitive: redact.Values{}, envNames: map[string]string{}, keysAt: map[string]hcl.Range{}}
	content, diags := body.Content(topSchema)
	byType := map[string][]*hcl.Block{}
	for _, b := range content.Blocks {
		byType[b.Type] = append(byType[b.Type], b)
	}
	// Phase one: variables, which may refer to nothing, and the names
	// that later blocks may refer to wherever they are declared.
	diags = append(diags, d.variables(byType["variable"])...)
	diags = append(diags, d.indexStores(byType["store"])...)
	providers, more := access.IndexProviders(byType["identity_provider"])
	diags = append(diags, more...)
	d.ev = hclread.NewEvaluator(d.scope(providers))
	d.acc = access.NewDecoder(d.ev, providers, d.variableSource)
	d.srv = server.NewDecoder(d.ev, d.acc)
	// Phase two: everything else, with var.* and store.* in scope.
	diags = append(diags, d.plugins(byType["plugin"])...)
	diags = append(diags, d.catalogPlugins()...)
	for _, b := range byType["store"] {
		diags = append(diags, d.store(b)...)
	}
	cfg.IdentityProviders, more = d.acc.Providers(byType["identity_provider"])
	diags = append(diags, more...)
	cfg.Principals, more = d.acc.Principals(byType["principal"])
	diags = append(diags, more...)
	diags = append(diags, d.datasets(byType["dataset"])...)
	diags = append(diags, d.checkAccess()...)
	diags = append(diags, d.srv.Decode(byType["server"], &cfg.Server)...)
	diags = append(diags, d.checkBucketNames()...)
	diags = append(diags, d.checkBucketsOverlap()...)
	cfg.redactor = d.newRedactor()
	return cfg.redactor.Diagnostics(diags)
}

// scope is what phase two may refer to: the variables (unknown where
// their value failed, so that references to them add no errors to the
// one already reported), the stores and the identity providers.
func (d *decoder) scope(providers map[string]*hcl.Block) hclread.Scope {
	s := hclread.Scope{Variables: map[string]cty.Value{}, Stores: map[StoreRef]bool{}, Providers: map[string]bool{}, Dir: d.cfg.Dir}
	for name := range d.declared {
		s.Variables[name] = cty.DynamicVal
	}
	for _, v := range d.cfg.Variables {
		s.Variables[v.Name] = v.Value
	}
	for ref := range d.stores {
		s.Stores[ref] = true
	}
	for name := range providers {
		s.Providers[name] = true
	}
	return s
}

// variableSource says where variable name's value comes from: the
// environment variable its block names, and whether the value came
// from it (access.VariableSource).
func (d *decoder) variableSource(name string) (env string, set bool) {
	for _, v := range d.cfg.Variables {
		if v.Name == name {
			return d.envNames[name], v.Env != ""
		}
	}
	return d.envNames[name], false
}

// newRedactor is the redactor of the sensitive values noted while
// decoding; nil when there are none.
func (d *decoder) newRedactor() *redact.Redactor {
	var file string
	var src []byte
	if f := d.cfg.Files[d.cfg.Filename]; f != nil {
		file, src = d.cfg.Filename, f.Bytes
	}
	return redact.New(d.sensitive, d.ev.Context(), file, src)
}
