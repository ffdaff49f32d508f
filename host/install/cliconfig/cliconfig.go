// Package cliconfig reads zarrgw's CLI configuration: the per-user (or
// per-machine) settings of how plugins are installed, as Terraform's CLI
// configuration file holds them for providers. It is HCL:
//
//	plugin_cache_dir = "$HOME/.cache/zarrgw/plugins"
//
//	plugin_installation {
//	  filesystem_mirror {
//	    path    = "/usr/share/zarrgw/plugins"
//	    include = ["example.org/*/*"]
//	  }
//	  network_mirror {
//	    url     = "https://plugins.example.org/"
//	    exclude = ["example.org/acme/*"]
//	  }
//	  dev_overrides = {
//	    "example.org/acme/xor" = "/home/me/src/xor/bin"
//	  }
//	}
//
// The file is $ZARRGW_CLI_CONFIG_FILE, else cli.hcl in the zarrgw
// directory of the user's configuration directory (DefaultFile). Paths may
// start with ~/ or name environment variables as $NAME; relative ones are
// taken from the file's directory. $ZARRGW_PLUGIN_CACHE_DIR overrides
// plugin_cache_dir.
//
// HCL 2, unlike the HCL 1 of Terraform's file, has no quoted argument
// names, so dev_overrides is an argument holding an object rather than a
// block.
package cliconfig

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/zarrgw/zarrgw/host/install/pluginsource"
	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
)

// Environment variables, as Terraform's TF_CLI_CONFIG_FILE and
// TF_PLUGIN_CACHE_DIR.
const (
	FileEnv     = "ZARRGW_CLI_CONFIG_FILE"
	CacheDirEnv = "ZARRGW_PLUGIN_CACHE_DIR"
)

// Config is a CLI configuration.
type Config struct {
	// Filename is the file read; "" when there was none.
	Filename string
	// CacheDir is the plugin cache shared by installations; "" for none.
	CacheDir string
	// Sources are the installation sources, in order. Without a
	// plugin_installation block, they are the implied filesystem mirror
	// (ImpliedMirror), when it exists.
	Sources pluginsource.Sources
	// DevOverrides maps source addresses to directories holding a
	// development build of the plugin.
	DevOverrides map[string]string
}

// DefaultFile is the CLI configuration file used when $ZARRGW_CLI_CONFIG_FILE
// is not set: zarrgw/cli.hcl in the user's configuration directory
// ($XDG_CONFIG_HOME or ~/.config on Linux, ~/Library/Application Support
// on macOS, %AppData% on Windows).
func DefaultFile() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "zarrgw", "cli.hcl"), nil
}

// ImpliedMirror is the filesystem mirror used when the CLI configuration
// has no plugin_installation block: zarrgw/plugins in the user's
// configuration directory, as Terraform implies ~/.terraform.d/plugins.
func ImpliedMirror() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "zarrgw", "plugins"), nil
}

// Load reads the CLI configuration the environment names (getenv is
// os.Getenv when nil). A default file that does not exist is an empty
// configuration; one named by $ZARRGW_CLI_CONFIG_FILE must exist.
func Load(getenv func(string) string) (*Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	path, named := getenv(FileEnv), true
	if path == "" {
		var err error
		if path, err = DefaultFile(); err != nil {
			return implied(&Config{}, getenv)
		}
		named = false
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) && !named {
		return implied(&Config{}, getenv)
	}
	return LoadFile(path, getenv)
}

var (
	fileSchema = &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "plugin_cache_dir"}},
		Blocks:     []hcl.BlockHeaderSchema{{Type: "plugin_installation"}},
	}
	installationSchema = &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "dev_overrides"}},
		Blocks:     []hcl.BlockHeaderSchema{{Type: "filesystem_mirror"}, {Type: "network_mirror"}},
	}
	filesystemSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
		{Name: "path", Required: true}, {Name: "include"}, {Name: "exclude"},
	}}
	networkSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
		{Name: "url", Required: true}, {Name: "include"}, {Name: "exclude"},
	}}
)

// LoadFile reads the CLI configuration at path. Errors are HCL
// diagnostics with the file and line.
func LoadFile(path string, getenv func(string) string) (*Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	src, err := os.ReadFile(abs)
	if err != nil {
		return nil, fmt.Errorf("CLI configuration: %w", err)
	}
	// bounded nesting first: HCL's parser recurses once per level
	diags := config.CheckNesting(src, abs)
	if diags.HasErrors() {
		return nil, fmt.Errorf("CLI configuration: %w", diags)
	}
	f, diags := hclparse.NewParser().ParseHCL(src, abs)
	if diags.HasErrors() {
		return nil, fmt.Errorf("CLI configuration: %w", diags)
	}
	d := &decoder{cfg: &Config{Filename: abs}, dir: filepath.Dir(abs), getenv: getenv}
	diags = d.decode(f.Body)
	if diags.HasErrors() {
		return nil, fmt.Errorf("CLI configuration: %w", diags)
	}
	if len(d.cfg.Sources) == 0 && !d.explicit {
		return implied(d.cfg, getenv)
	}
	return withCacheEnv(d.cfg, getenv), nil
}

// implied completes a configuration without plugin_installation: the
// implied filesystem mirror, if it exists, and the cache directory of the
// environment.
func implied(cfg *Config, getenv func(string) string) (*Config, error) {
	if dir, err := ImpliedMirror(); err == nil {
		if info, err := os.Stat(dir); err == nil && info.IsDir() {
			cfg.Sources = pluginsource.Sources{{Source: pluginsource.FSMirror{Dir: dir}}}
		}
	}
	return withCacheEnv(cfg, getenv), nil
}

func withCacheEnv(cfg *Config, getenv func(string) string) *Config {
	if dir := getenv(CacheDirEnv); dir != "" {
		cfg.CacheDir = expand(dir, "", getenv)
	}
	return cfg
}

type decoder struct {
	cfg      *Config
	dir      string
	getenv   func(string) string
	explicit bool // a plugin_installation block was given
}

func (d *decoder) decode(body hcl.Body) hcl.Diagnostics {
	content, diags := body.Content(fileSchema)
	if a := content.Attributes["plugin_cache_dir"]; a != nil {
		var dir string
		diags = append(diags, d.value(a, cty.String, func(v cty.Value) { dir = v.AsString() })...)
		if dir != "" {
			d.cfg.CacheDir = expand(dir, d.dir, d.getenv)
		}
	}
	for i, b := range content.Blocks {
		if i > 0 {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate plugin_installation block",
				Detail: "Give one plugin_installation block, with every installation method in it.", Subject: b.DefRange.Ptr()})
			continue
		}
		d.explicit = true
		diags = append(diags, d.installation(b.Body)...)
	}
	return diags
}

// installation decodes the installation methods, keeping their order.
func (d *decoder) installation(body hcl.Body) hcl.Diagnostics {
	content, diags := body.Content(installationSchema)
	if a := content.Attributes["dev_overrides"]; a != nil {
		diags = append(diags, d.value(a, cty.Map(cty.String), func(v cty.Value) {
			d.cfg.DevOverrides = map[string]string{}
			for k, dir := range v.AsValueMap() {
				if !dir.IsNull() {
					d.cfg.DevOverrides[strings.ToLower(k)] = expand(dir.AsString(), d.dir, d.getenv)
				}
			}
		})...)
	}
	for _, b := range content.Blocks {
		schema := filesystemSchema
		if b.Type == "network_mirror" {
			schema = networkSchema
		}
		attrs, more := b.Body.Content(schema)
		diags = append(diags, more...)
		if more.HasErrors() {
			continue
		}
		src, more := d.method(b, attrs.Attributes)
		diags = append(diags, more...)
		if !more.HasErrors() {
			d.cfg.Sources = append(d.cfg.Sources, src)
		}
	}
	return diags
}

// method decodes one filesystem_mirror or network_mirror block.
func (d *decoder) method(b *hcl.Block, attrs hcl.Attributes) (pluginsource.Filtered, hcl.Diagnostics) {
	var f pluginsource.Filtered
	var diags hcl.Diagnostics
	for _, name := range []string{"include", "exclude"} {
		a := attrs[name]
		if a == nil {
			continue
		}
		diags = append(diags, d.value(a, cty.List(cty.String), func(v cty.Value) {
			for _, e := range v.AsValueSlice() {
				p, err := pluginpkg.ParsePattern(e.AsString())
				if err != nil {
					diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid " + name + " pattern",
						Detail: err.Error() + ".", Subject: a.Expr.Range().Ptr()})
					continue
				}
				if name == "include" {
					f.Include = append(f.Include, p)
				} else {
					f.Exclude = append(f.Exclude, p)
				}
			}
		})...)
	}
	if b.Type == "filesystem_mirror" {
		diags = append(diags, d.value(attrs["path"], cty.String, func(v cty.Value) {
			f.Source = pluginsource.FSMirror{Dir: expand(v.AsString(), d.dir, d.getenv)}
		})...)
		return f, diags
	}
	diags = append(diags, d.value(attrs["url"], cty.String, func(v cty.Value) {
		m, err := pluginsource.NewNetMirror(v.AsString(), nil)
		if err != nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid network mirror URL",
				Detail: err.Error() + ".", Subject: attrs["url"].Expr.Range().Ptr()})
			return
		}
		f.Source = m
	})...)
	return f, diags
}

// value evaluates a constant attribute as ty and hands it to use.
func (d *decoder) value(a *hcl.Attribute, ty cty.Type, use func(cty.Value)) hcl.Diagnostics {
	v, diags := a.Expr.Value(nil)
	if diags.HasErrors() {
		return diags
	}
	v, err := convert.Convert(v, ty)
	if err != nil || v.IsNull() {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid " + a.Name,
			Detail: fmt.Sprintf("%s must be %s.", a.Name, ty.FriendlyName()), Subject: a.Expr.Range().Ptr()}}
	}
	use(v)
	return nil
}

// expand resolves ~/ and $NAME in a path, and a relative path against dir.
func expand(p, dir string, getenv func(string) string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		p = filepath.Join(getenv("HOME"), rest)
	}
	p = os.Expand(p, getenv)
	if !filepath.IsAbs(p) && dir != "" {
		p = filepath.Join(dir, p)
	}
	return filepath.Clean(p)
}
