package config

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hashicorp/go-version"
	"github.com/hashicorp/hcl/v2"

	"github.com/zarrgw/zarrgw/host/runtime/config/hclread"
	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
)

// pin completes p's checksum: from the lock file, or for a plugin
// installed by "zarrgw init", from its installed package, which the lock
// file's hashes vouch for (Options.Installed). A development override wins
// over both. Writing the lock file (AllowUnpinned) pins a plugin given by
// path to its binary as it is now.
func (d *decoder) pin(p *Plugin, inline *hcl.Attribute) hcl.Diagnostics {
	var locked *LockedPlugin
	if d.opts.Lock != nil {
		if l, ok := d.opts.Lock.Plugins[p.Source]; ok {
			locked = &l
		}
	}
	switch {
	case (d.opts.AllowUnpinned || d.opts.Installing) && p.Installed():
		return d.fromLock(p, locked)
	case d.opts.AllowUnpinned:
		return d.pinToFile(p)
	case d.opts.Installing:
		return nil
	}
	if diags, ok := d.override(p); ok {
		return diags
	}
	if p.Installed() {
		return d.installed(p, locked)
	}
	if locked != nil && locked.SHA256 == "" {
		locked = nil // the entry of an installed plugin, from before the block gave a path
	}
	switch {
	case locked != nil && p.SHA256 != "" && locked.SHA256 != p.SHA256:
		return hcl.Diagnostics{hclread.ErrorAt(inline.Expr.Range(), "Checksum differs from the lock file",
			"Plugin %q is pinned to %s here and to %s at %s; remove one of them or correct it.",
			p.Source, p.SHA256, locked.SHA256, locked.DeclRange)}
	case locked != nil && p.Modules != "" && locked.Modules != "" && locked.Modules != p.Modules:
		return hcl.Diagnostics{hclread.ErrorAt(p.DeclRange, "Python files' hash differs from the lock file",
			"Plugin %q pins its Python files to %s here and to %s at %s; remove one of them or correct it.",
			p.Source, p.Modules, locked.Modules, locked.DeclRange)}
	case locked != nil && p.SHA256 == "":
		p.SHA256, p.PinnedBy = locked.SHA256, PinLock
	case p.SHA256 == "":
		return hcl.Diagnostics{hclread.ErrorAt(p.DeclRange, fmt.Sprintf("Plugin %q is not pinned", p.Source),
			"A plugin runs only when its binary matches a recorded checksum, and %s records none for it%s. Record it, and the names it serves, with:\n  %s",
			d.lockWhere(), d.elsewhere(p.Source), d.lockCommand())}
	}
	if locked != nil && locked.SHA256 == p.SHA256 {
		p.Serves = locked.Serves
		if p.Modules == "" {
			p.Modules = locked.Modules
		}
	}
	return d.pinnedModules(p)
}

// pinnedModules refuses a plugin that is a Python script whose Python
// files are not pinned with it: its script's SHA-256 says nothing of the
// modules it imports. Lock entries written before zarrgw pinned them have
// none, and say how to add them. A plugin file that is absent here is
// left to VerifyPlugins and the launcher.
func (d *decoder) pinnedModules(p *Plugin) hcl.Diagnostics {
	if p.Modules != "" {
		return nil
	}
	h1, err := pluginpkg.PythonModules(p.Path)
	if err != nil || h1 == "" {
		return nil
	}
	fix := "Record them, with the script's SHA-256 and the names it serves, with:\n  " + d.lockCommand()
	if p.PinnedBy == PinConfig {
		fix = fmt.Sprintf("If they are the ones to run, add modules = %q (their hash now) beside sha256 in the plugin block, or remove sha256 and record both with:\n  %s", h1, d.lockCommand())
	}
	return hcl.Diagnostics{hclread.ErrorAt(p.DeclRange, fmt.Sprintf("Python files of plugin %q not pinned", p.Source),
		"%s is a Python program: %s pins the script alone, not the Python files beside it that it may import, so the plugin does not run (earlier versions of zarrgw pinned scripts alone). %s",
		p.Path, d.pinSource(p), fix)}
}

// pinSource names where p's SHA-256 was found, for messages.
func (d *decoder) pinSource(p *Plugin) string {
	if p.PinnedBy == PinConfig {
		return "the plugin block"
	}
	return d.cfg.LockSource()
}

// override applies a development override of p, warning of it, as every
// command that loads the configuration does; ok is false when there is none.
func (d *decoder) override(p *Plugin) (hcl.Diagnostics, bool) {
	if d.opts.Override == nil {
		return nil, false
	}
	loc, ok, err := d.opts.Override(*p)
	switch {
	case err != nil:
		return hcl.Diagnostics{hclread.ErrorAt(p.DeclRange, "Development override unusable", "Plugin %q: %s.", p.Source, err)}, true
	case !ok:
		return nil, false
	}
	p.Path, p.SHA256, p.Modules, p.PinnedBy = loc.Path, loc.SHA256, loc.Modules, PinOverride
	return hcl.Diagnostics{hclread.WarningAt(p.DeclRange, fmt.Sprintf("Development override for plugin %q", p.Source),
		"%s names a development build of this plugin: %s runs as it is, without installation, version or checksum checks, and %s is not consulted for it. Remove the override when you are done.",
		loc.From, loc.Path, d.cfg.LockSource())}, true
}

// installed pins a plugin installed by "zarrgw init" to its installed
// binary, once its package matched the hashes of its lock entry.
func (d *decoder) installed(p *Plugin, locked *LockedPlugin) hcl.Diagnostics {
	if diags := d.fromLock(p, locked); diags.HasErrors() {
		return diags
	}
	if d.opts.Installed == nil {
		return hcl.Diagnostics{hclread.ErrorAt(p.DeclRange, "Installed plugins not supported here",
			"Plugin %q is installed by \"zarrgw init\", and this program was not given a way to find installed plugins.", p.Source)}
	}
	loc, err := d.opts.Installed(*p)
	if err != nil {
		return hcl.Diagnostics{hclread.ErrorAt(p.DeclRange, "Plugin not installed as locked", "%s.", withoutPluginName(err, p.Source))}
	}
	p.Path, p.SHA256, p.Modules, p.PinnedBy = loc.Path, loc.SHA256, loc.Modules, PinInstalled
	return nil
}

// fromLock takes an installed plugin's version, hashes and served names
// from its lock entry, which must exist and meet the block's constraint.
func (d *decoder) fromLock(p *Plugin, locked *LockedPlugin) hcl.Diagnostics {
	writing := d.opts.AllowUnpinned || d.opts.Installing
	if locked == nil || locked.Version == "" {
		if writing {
			return nil
		}
		return hcl.Diagnostics{hclread.ErrorAt(p.DeclRange, fmt.Sprintf("Plugin %q is not installed", p.Source),
			"%s records no version of this plugin%s. Install it, and record the version, with:\n  %s", d.lockWhere(), d.elsewhere(p.Source), InitCommand(d.cfg.Filename, false))}
	}
	p.Version, p.Hashes, p.Serves = locked.Version, locked.Hashes, locked.Serves
	c, err := version.NewConstraint(p.Constraints)
	v, verr := version.NewVersion(locked.Version)
	if err == nil && verr == nil && !c.Check(v) {
		if writing {
			return nil
		}
		return hcl.Diagnostics{hclread.ErrorAt(p.DeclRange, "Locked version does not meet the constraint",
			"Plugin %q: %s pins version %s, which does not meet version = %q. Choose a version that does, and record it, with:\n  %s",
			p.Source, d.cfg.LockSource(), locked.Version, p.Constraints, InitCommand(d.cfg.Filename, true))}
	}
	return nil
}

// InitCommand is the command that installs the plugins of the
// configuration file named filename, moving to newer versions if upgrade.
func InitCommand(filename string, upgrade bool) string {
	if upgrade {
		return "zarrgw init -upgrade -c " + filename
	}
	return "zarrgw init -c " + filename
}

// pinToFile pins p to its binary's current checksum and, for a Python
// script, its Python files' current hash, which must be those its block
// gives, if any: the lock file cannot override the block.
func (d *decoder) pinToFile(p *Plugin) hcl.Diagnostics {
	sum, err := pluginpkg.FileSHA256(p.Path)
	var modules string
	if err == nil {
		modules, err = pluginpkg.PythonModules(p.Path)
	}
	switch {
	case err != nil:
		return hcl.Diagnostics{hclread.ErrorAt(p.DeclRange, "Plugin binary unreadable", "Plugin %q: %s.", p.Source, err)}
	case p.PinnedBy == PinConfig && sum != p.SHA256:
		return hcl.Diagnostics{hclread.ErrorAt(p.DeclRange, "Plugin binary does not match its checksum",
			"Plugin %q: %s has SHA-256 %s, but the plugin block pins %s; correct or remove that sha256.", p.Source, p.Path, sum, p.SHA256)}
	case p.PinnedBy == PinConfig && p.Modules != "" && modules != p.Modules:
		return hcl.Diagnostics{hclread.ErrorAt(p.DeclRange, "Python files do not match their hash",
			"Plugin %q: the Python files beside %s have %s, but the plugin block pins %s; correct or remove that modules.", p.Source, p.Path, modules, p.Modules)}
	}
	if p.PinnedBy != PinConfig {
		p.SHA256, p.PinnedBy = sum, PinFile
	}
	p.Modules = modules
	return nil
}

// lockCommand is the command that writes this configuration's lock file.
func (d *decoder) lockCommand() string { return LockCommand(d.cfg.Filename) }

// LockCommand is the command that writes the lock file of the
// configuration file named filename.
func LockCommand(filename string) string { return "zarrgw plugins lock -c " + filename }

// lockWhere names the lock file the configuration's pins were read from
// and whose it is, for messages about a missing entry.
func (d *decoder) lockWhere() string {
	c := d.cfg
	if c.SharedLock() {
		return fmt.Sprintf("%s (the lock file earlier versions shared between the configurations of a directory, read while %s, the lock file of %s, does not exist)",
			c.LockSource(), c.LockPath(), c.Filename)
	}
	return fmt.Sprintf("%s, the lock file of %s,", c.LockPath(), c.Filename)
}

// elsewhere says which other lock files of the configuration's directory
// have an entry for source: those of other configurations, which do not
// pin this one's plugins.
func (d *decoder) elsewhere(source string) string {
	others := otherLocks(d.cfg, source)
	if len(others) == 0 {
		return ""
	}
	if len(others) == 1 {
		return fmt.Sprintf(" (%s has one, but each configuration has a lock file of its own, and that is another's)", others[0])
	}
	return fmt.Sprintf(" (%s and %s have one, but each configuration has a lock file of its own, and those are others')",
		strings.Join(others[:len(others)-1], ", "), others[len(others)-1])
}

// otherLocks lists the lock files beside the configuration, other than
// the one it read, that have an entry for source.
func otherLocks(c *Config, source string) []string {
	paths, _ := filepath.Glob(filepath.Join(c.Dir, "*.lock.hcl"))
	var out []string
	for _, path := range paths {
		if filepath.Clean(path) == filepath.Clean(c.LockSource()) {
			continue
		}
		if l, diags := LoadLock(path); !diags.HasErrors() {
			if _, ok := l.Plugins[source]; ok {
				out = append(out, path)
			}
		}
	}
	return out
}
