package config

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"

	"github.com/zarrgw/zarrgw/host/runtime/config/hclread"
	"github.com/zarrgw/zarrgw/host/runtime/config/lockfile"
	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
)

// Check loads the configuration at path and verifies the plugin binaries
// present against their checksums, the fs stores' roots (VerifyStores)
// and the datasets' stacks (Options.Stacks), as "zarrgw validate" does. It prints
// every diagnostic to w and returns an error naming the first error and
// its position when there is one.
func Check(path string, opts Options, w io.Writer) (*Config, error) {
	cfg, diags := CheckDiagnostics(path, opts)
	if err := cfg.WriteDiagnostics(w, diags); err != nil {
		return cfg, err
	}
	return cfg, diagError(diags)
}

// CheckDiagnostics is Check returning the diagnostics instead of
// printing them.
func CheckDiagnostics(path string, opts Options) (*Config, hcl.Diagnostics) {
	cfg, diags := LoadWith(path, opts)
	if !diags.HasErrors() {
		diags = append(diags, VerifyPlugins(cfg)...)
		if !opts.IgnoreStoreRoots {
			diags = append(diags, VerifyStores(cfg)...)
		}
		if opts.Stacks != nil {
			diags = append(diags, cfg.redactor.Diagnostics(opts.Stacks(cfg))...)
		}
	}
	return cfg, diags
}

// VerifyPlugins compares each pinned plugin's binary with its checksum. A
// binary that is absent is only a warning, so a configuration can be
// checked where the plugins are not installed; the launcher refuses to
// start it. A binary that differs is an error that gives its actual
// checksum and what to do.
func VerifyPlugins(cfg *Config) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, p := range cfg.Plugins {
		if p.SHA256 == "" {
			continue
		}
		sum, err := pluginpkg.FileSHA256(p.Path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			diags = append(diags, hclread.WarningAt(p.DeclRange, "Plugin binary not found",
				"Plugin %q: %s does not exist here; the gateway will not start without it.", p.Source, p.Path))
		case err != nil:
			diags = append(diags, hclread.ErrorAt(p.DeclRange, "Plugin binary unreadable", "Plugin %q: %s.", p.Source, err))
		case sum != p.SHA256:
			diags = append(diags, hclread.ErrorAt(p.DeclRange, "Plugin binary does not match its checksum",
				"Plugin %q: %s has SHA-256 %s, but %s pins %s. %s",
				p.Source, p.Path, sum, pinPlace(cfg, p), p.SHA256, relockAdvice(cfg, p, sum)))
		case p.Modules != "":
			diags = append(diags, verifyModules(cfg, p)...)
		}
	}
	return cfg.redactor.Diagnostics(diags)
}

// verifyModules compares the Python files beside a Python plugin's script
// with their pin.
func verifyModules(cfg *Config, p Plugin) hcl.Diagnostics {
	h1, err := pluginpkg.PythonModules(p.Path)
	switch {
	case err != nil:
		return hcl.Diagnostics{hclread.ErrorAt(p.DeclRange, "Plugin files unreadable", "Plugin %q: %s.", p.Source, err)}
	case h1 != p.Modules:
		dir, _ := pluginpkg.PythonDir(p.Path)
		return hcl.Diagnostics{hclread.ErrorAt(p.DeclRange, "Python files of a plugin do not match their hash",
			"Plugin %q: the Python files in %s, beside %s, have %s, but %s pins %s: one was changed, added or removed since. %s",
			p.Source, dir, filepath.Base(p.Path), h1, pinPlace(cfg, p), p.Modules, cfg.Remedy(p))}
	}
	return nil
}

func pinPlace(cfg *Config, p Plugin) string {
	if p.PinnedBy == PinLock {
		return cfg.LockSource()
	}
	return "the plugin block"
}

// relockAdvice says how to run a binary whose checksum is now sum, if it
// is the one intended.
func relockAdvice(cfg *Config, p Plugin, sum string) string {
	if p.PinnedBy == PinLock {
		return "If the new binary is the one to run, record it with:\n  " + LockCommand(cfg.Filename)
	}
	return fmt.Sprintf("If the new binary is the one to run, set sha256 = %q in the plugin block.", sum)
}

// Remedy says what to do when p's binary no longer matches its pin.
func (c *Config) Remedy(p Plugin) string {
	switch p.PinnedBy {
	case PinInstalled:
		return "Reinstall it with: " + InitCommand(c.Filename, false)
	case PinOverride:
		return "It is a development build that changed since the command started: start the command again."
	}
	if p.PinnedBy == PinConfig {
		return fmt.Sprintf("If the plugin as it is now is the one to run, correct the sha256 (or modules) of its plugin block in %s.", c.Filename)
	}
	return "If the plugin as it is now is the one to run, record it with: " + LockCommand(c.Filename)
}

// LockPlugins loads the configuration at path as "zarrgw plugins lock"
// does and returns the lock file it should have, to be written to
// cfg.LockPath(): each plugin given by path pinned to the SHA-256 of its
// binary as it is now and, when opts.Probe is given, the names it serves
// (it is started, pinned to that checksum, to ask); each installed plugin
// as the lock file present records it (host/install adds the hashes of
// more platforms). The entries of plugins given by path are not consulted:
// re-locking after upgrading a binary is the point. A checksum given in a
// plugin block must match the binary, since the lock cannot override it.
// Diagnostics go to w.
func LockPlugins(path string, opts Options, w io.Writer) (*Config, *Lock, error) {
	opts.AllowUnpinned = true
	cfg, diags := LoadWith(path, opts)
	lock := &Lock{Plugins: map[string]LockedPlugin{}}
	if !diags.HasErrors() {
		for _, p := range cfg.Plugins {
			lock.Plugins[p.Source] = p.Locked()
		}
	}
	if err := cfg.WriteDiagnostics(w, diags); err != nil {
		return cfg, nil, err
	}
	return cfg, lock, diagError(diags)
}

// Locked is the lock entry that records p as it is.
func (p Plugin) Locked() LockedPlugin {
	if p.Installed() {
		return LockedPlugin{Version: p.Version, Constraints: p.Constraints, Hashes: p.Hashes, Serves: p.Serves}
	}
	return LockedPlugin{SHA256: p.SHA256, Modules: p.Modules, Serves: p.Serves}
}

// LockPath is the configuration's own lock file, the one "zarrgw init" and
// "zarrgw plugins lock" write: NAME.lock.hcl beside NAME.hcl (LockPathFor).
func (c *Config) LockPath() string { return filepath.Join(c.Dir, lockfile.NameFor(c.Filename)) }

// LockSource is the lock file the configuration's pins are read from: its
// own (LockPath) or, while that does not exist, the zarrgw.lock.hcl that
// earlier versions shared between the configurations of a directory.
func (c *Config) LockSource() string {
	if c.lockSource != "" {
		return c.lockSource
	}
	return lockfile.SourceIn(c.Dir, lockfile.NameFor(c.Filename))
}

// SharedLock reports whether the pins come from the directory's shared
// zarrgw.lock.hcl of earlier versions, the configuration having no lock
// file of its own yet.
func (c *Config) SharedLock() bool {
	return filepath.Clean(c.LockSource()) != filepath.Clean(c.LockPath())
}

// diagError summarises the errors among diags as one error, with the
// position of the first, or returns nil when there are none.
func diagError(diags hcl.Diagnostics) error {
	var errs []*hcl.Diagnostic
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			errs = append(errs, d)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	msg := errs[0].Summary
	if errs[0].Subject != nil {
		msg = fmt.Sprintf("%s: %s", errs[0].Subject, msg)
	}
	switch n := len(errs) - 1; n {
	case 0:
	case 1:
		msg += " (and 1 more error)"
	default:
		msg += fmt.Sprintf(" (and %d more errors)", n)
	}
	return errors.New(msg)
}
