package config

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/host/runtime/config/hclread"
	"github.com/zarrgw/zarrgw/host/runtime/config/redact"
)

// Config is a decoded configuration. Slices keep the order of the file.
type Config struct {
	// Filename is the file as named to Load or Parse; Dir is the directory
	// relative plugin paths are resolved against.
	Filename string
	Dir      string

	Variables  []Variable
	Plugins    []Plugin
	Stores     []Store
	Datasets   []Dataset
	Principals []Principal
	// IdentityProviders are the OpenID Connect providers principals may
	// be defined by.
	IdentityProviders []IdentityProvider
	Server            Server

	// Catalog resolves extension names: the bundled extensions
	// (Options.Catalog) and the manifests of the probed plugins, a plugin's
	// extension winning over a bundled one of the same name. Opening the
	// configuration's datasets resolves names in it too.
	Catalog *extension.Catalog

	// Files holds the source of every file read (the configuration and its
	// lock file), for printing diagnostics with snippets.
	Files map[string]*hcl.File

	// redactor hides the sensitive variables' values in diagnostics made
	// after decoding (VerifyPlugins); nil when there are none.
	redactor *redact.Redactor
	// lockSource is the lock file read (LockSource), once LoadWith chose it.
	lockSource string
}

// Variable is a resolved variable.
type Variable struct {
	Name  string
	Value cty.Value
	// Env names the environment variable the value came from; "" when it
	// is the default.
	Env       string
	Sensitive bool
	DeclRange hcl.Range
}

// Plugin is an out-of-process extension binary.
type Plugin struct {
	// Source is the plugin's address, such as "example.org/acme/bitshave".
	Source string
	// Path is the binary's absolute path (one written relative is taken
	// relative to the configuration file's directory); for a plugin
	// installed by "zarrgw init", or overridden for development, where
	// Options.Locate found it.
	Path string
	// SHA256 is the pinned checksum of the binary in lower-case hex, from
	// the plugin block or the lock file, or of the installed binary once
	// its package matched the lock file's hashes; "" when unpinned.
	SHA256   string
	PinnedBy Pin
	// Modules pins, for a plugin that is a Python script, the Python files
	// it may import from its directory: their h1: hash
	// (pluginpkg.PythonModules), from the same place as SHA256.
	Modules string
	// Constraints is the version constraint of a plugin installed by
	// "zarrgw init" (its block's version, such as "~> 1.2"); "" for a
	// plugin given by path. Version is the version the lock file pins
	// for it and Hashes the package hashes the lock records.
	Constraints string
	Version     string
	Hashes      []string
	Args        []string
	// Env is the environment the plugin gets besides the few variables
	// every plugin gets (launcher.InheritedEnv); InheritEnv gives it the
	// host's whole environment instead, secrets included.
	Env        map[string]string
	InheritEnv bool
	// OTELHeaders passes the host's OTEL_*_HEADERS variables (a trace
	// collector's credentials), which a plugin otherwise does not get.
	OTELHeaders bool
	// Probed reports whether the plugin was launched to ask for its
	// manifests (Options.Probe); Manifests are those it reported.
	Probed    bool
	Manifests []extension.Manifest
	// Serves names what the plugin serves: as probed, else as the lock
	// file recorded. When it is empty too, the plugin is assumed to
	// provide one extension named Name().
	Serves    Served
	DeclRange hcl.Range
}

// Pin says where a plugin's checksum was found.
type Pin string

const (
	PinNone   Pin = ""
	PinConfig Pin = "config" // sha256 in the plugin block
	PinLock   Pin = "lock"   // zarrgw.lock.hcl
	PinFile   Pin = "file"   // the binary as it is, while the lock file is written
	// PinInstalled: installed by "zarrgw init", its package matching the
	// lock file's hashes; PinOverride: a development build named by the
	// CLI configuration's dev_overrides, pinned to what it is now.
	PinInstalled Pin = "installed"
	PinOverride  Pin = "override"
)

// Installed reports whether the plugin is installed by "zarrgw init"
// (its block gives a version constraint) rather than given by path.
func (p Plugin) Installed() bool { return p.Constraints != "" }

// Name is the extension name a plugin is assumed to provide until its
// manifest is known: the last segment of its source address.
func (p Plugin) Name() string { return lastSegment(p.Source) }

// Extension is one configured codec, store type or storage transformer.
type Extension struct {
	Kind extension.Kind
	// Name is the name as written in the configuration (a name, alias or URI).
	Name string
	// Manifest is the extension's manifest; only Kind and Name are set when
	// Checked is false.
	Manifest extension.Manifest
	// Plugin is the source address of the plugin providing it; "" for a
	// bundled extension.
	Plugin string
	// Checked reports whether the configuration was validated against the
	// manifest's schema. It is false for names a plugin block is assumed to
	// provide before the plugin has been probed.
	Checked bool
	// Config is the configuration JSON handed to the extension.
	Config    json.RawMessage
	DeclRange hcl.Range
}

// Store is a declared store.
type Store struct {
	Ref StoreRef
	// Extension is the store type with its configuration.
	Extension Extension
	// Root is the directory of a bundled fs store, absolute: a root written
	// relative is taken relative to the configuration file's directory (and
	// Extension.Config holds it so resolved). "" for other stores.
	Root string
	// CreateRoot is the fs store's create_root: a Root that does not exist
	// is created on first use instead of being an error (VerifyStores).
	CreateRoot bool
	// RootRange is the root attribute, for messages about the directory.
	RootRange hcl.Range
	// rootWritten is the root as the block gives it.
	rootWritten string
}

// Dataset is a stack served under one name: transformers (outermost
// first) over a store, below a key prefix.
type Dataset struct {
	Name  string
	Store StoreRef
	// Prefix is the key prefix inside the store, without a trailing "/";
	// "" is the whole store.
	Prefix       string
	ReadOnly     bool
	Transformers []Extension
	// Codecs override the codec pipeline of arrays created through the
	// dataset, in pipeline order.
	Codecs []Extension
	Access Access
	// ReadOnlyRange is the read_only attribute, for messages about writes
	// refused; zero unless ReadOnly.
	ReadOnlyRange hcl.Range
	// Consolidated serves consolidated metadata built on the fly when the
	// dataset stores none (.zmetadata for v2, inline in the root zarr.json
	// for v3).
	Consolidated bool
	// AccessRange is the access block's position (the dataset's when it
	// has none), for messages about it.
	AccessRange hcl.Range
	DeclRange   hcl.Range
}

// Store returns the store ref names.
func (c *Config) Store(ref StoreRef) (*Store, bool) {
	for i := range c.Stores {
		if c.Stores[i].Ref == ref {
			return &c.Stores[i], true
		}
	}
	return nil, false
}

// Dataset returns the dataset called name.
func (c *Config) Dataset(name string) (*Dataset, bool) {
	for i := range c.Datasets {
		if c.Datasets[i].Name == name {
			return &c.Datasets[i], true
		}
	}
	return nil, false
}

// Plugin returns the plugin with source address source.
func (c *Config) Plugin(source string) (*Plugin, bool) {
	for i := range c.Plugins {
		if c.Plugins[i].Source == source {
			return &c.Plugins[i], true
		}
	}
	return nil, false
}

// WriteDiagnostics prints diags with file, line and a snippet of the source.
func (c *Config) WriteDiagnostics(w io.Writer, diags hcl.Diagnostics) error {
	if err := hcl.NewDiagnosticTextWriter(w, c.Files, 78, false).WriteDiagnostics(diags); err != nil {
		return fmt.Errorf("writing diagnostics: %w", err)
	}
	return nil
}

// At is a position as messages give it: FILE:LINE.
func At(r hcl.Range) string { return hclread.At(r) }

// CheckNesting reports, as a diagnostic at the token that crosses it, a
// configuration source nested deeper than hclread.MaxNesting. Anything
// parsing HCL that it does not trust (the CLI configuration too) should
// call it before the parser.
func CheckNesting(src []byte, filename string) hcl.Diagnostics {
	return hclread.CheckNesting(src, filename)
}
