// Package install installs plugins the way Terraform installs providers:
// "zarrgw init" resolves each plugin's source address and version
// constraint against the installation sources of the CLI configuration
// (filesystem and network mirrors, host/pluginsource), fetches the chosen
// version through the plugin cache, verifies it against the hashes the
// source states and the lock file records, unpacks it into .zarrgw/plugins
// beside the configuration, starts it once to learn what it serves, and
// records version, constraint, hashes and names in the configuration's
// lock file (NAME.lock.hcl beside NAME.hcl, config.LockPathFor).
//
// Every other command only locates what is installed (Locator): a plugin
// whose package no longer matches the lock file never starts. The launcher
// starts nothing else.
package install

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/go-version"
	"golang.org/x/mod/sumdb/dirhash"

	"github.com/zarrgw/zarrgw/host/install/cliconfig"
	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
)

// Dir is where the plugins of the configuration in cfgDir are installed:
// .zarrgw/plugins/HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/ beside it.
func Dir(cfgDir string) string { return filepath.Join(cfgDir, ".zarrgw", "plugins") }

// packageDir is where version v of a is installed for platform p.
func packageDir(root string, a pluginpkg.Address, v *version.Version, p pluginpkg.Platform) string {
	return filepath.Join(root, filepath.FromSlash(a.Path()), v.String(), p.String())
}

// Locator finds the plugins of one configuration for the commands that
// run them: installed ones, checked against the lock file, and
// development overrides. Its methods are config.Options' Installed and
// Override.
type Locator struct {
	// ConfigFile is the configuration file, whose directory holds .zarrgw.
	ConfigFile string
	CLI        *cliconfig.Config
	Platform   pluginpkg.Platform
}

// Options returns opts with the locator's hooks.
func (l Locator) Options(opts config.Options) config.Options {
	opts.Installed, opts.Override = l.Installed, l.Override
	return opts
}

// Installed finds the installed package of p's locked version for this
// platform and checks its h1: hash against the lock file's hashes. The
// executable's SHA-256 is taken from the bytes so hashed, so the launcher
// (which checks it again before exec) starts exactly what was checked.
func (l Locator) Installed(p config.Plugin) (config.Located, error) {
	a, err := pluginpkg.ParseAddress(p.Source)
	if err != nil {
		return config.Located{}, err
	}
	v, err := version.NewVersion(p.Version)
	if err != nil {
		return config.Located{}, fmt.Errorf("plugin %s: locked version %q: %w", p.Source, p.Version, err)
	}
	dir := packageDir(Dir(filepath.Dir(l.ConfigFile)), a, v, l.Platform)
	exe := pluginpkg.Executable(a.Type, v, l.Platform)
	h1, sum, err := hashInstalled(dir, exe)
	if err != nil {
		return config.Located{}, fmt.Errorf("plugin %s %s is not installed for %s (%v). Install it with: %s",
			p.Source, v, l.Platform, err, config.InitCommand(l.ConfigFile, false))
	}
	if !slices.Contains(p.Hashes, h1) {
		return config.Located{}, fmt.Errorf("plugin %s %s: the installed package %s has %s, but %s records %s: it changed after it was installed; not started. Reinstall it with: %s",
			p.Source, v, dir, h1, config.LockSourceFor(l.ConfigFile), strings.Join(p.Hashes, ", "), config.InitCommand(l.ConfigFile, false))
	}
	exePath := filepath.Join(dir, exe)
	// A Python plugin's modules are pinned as found now, so that a restart
	// checks them again as it checks the executable.
	modules, err := pluginpkg.PythonModules(exePath)
	if err != nil {
		return config.Located{}, fmt.Errorf("plugin %s %s: %w", p.Source, v, err)
	}
	return config.Located{Path: exePath, SHA256: sum, Modules: modules}, nil
}

// hashInstalled returns the h1: hash of an installed package and the
// SHA-256 (hex) of its executable, read once for both.
func hashInstalled(dir, exe string) (h1, sum string, err error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", "", err
	}
	files, err := dirhash.DirFiles(real, "")
	if err != nil {
		return "", "", err
	}
	if !slices.Contains(files, exe) {
		return "", "", fmt.Errorf("%s holds no %s", dir, exe)
	}
	exeHash := sha256.New()
	h1, err = dirhash.Hash1(files, func(name string) (io.ReadCloser, error) {
		f, err := os.Open(filepath.Join(real, filepath.FromSlash(name)))
		if err != nil || name != exe {
			return f, err
		}
		return teeCloser{f, exeHash}, nil
	})
	if err != nil {
		return "", "", err
	}
	return h1, hex.EncodeToString(exeHash.Sum(nil)), nil
}

// teeCloser hashes what is read from a file.
type teeCloser struct {
	f *os.File
	h hash.Hash
}

func (t teeCloser) Read(p []byte) (int, error) {
	n, err := t.f.Read(p)
	t.h.Write(p[:n])
	return n, err
}

func (t teeCloser) Close() error { return t.f.Close() }

// Override finds the development build of p that the CLI configuration's
// dev_overrides names: the executable in that directory whose name starts
// zarrgw-plugin-TYPE (TYPE being the address's last segment).
func (l Locator) Override(p config.Plugin) (config.Located, bool, error) {
	if l.CLI == nil {
		return config.Located{}, false, nil
	}
	dir, ok := l.CLI.DevOverrides[strings.ToLower(p.Source)]
	if !ok {
		return config.Located{}, false, nil
	}
	exe, err := overrideExecutable(dir, p.Name())
	if err != nil {
		return config.Located{}, false, fmt.Errorf("dev_overrides of %s: %w", l.CLI.Filename, err)
	}
	sum, err := pluginpkg.FileSHA256(exe)
	if err != nil {
		return config.Located{}, false, err
	}
	modules, err := pluginpkg.PythonModules(exe)
	if err != nil {
		return config.Located{}, false, err
	}
	return config.Located{Path: exe, SHA256: sum, Modules: modules, From: "dev_overrides in " + l.CLI.Filename}, true, nil
}

func overrideExecutable(dir, typ string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	prefix := pluginpkg.Prefix + strings.ToLower(typ)
	for _, e := range entries {
		if name := e.Name(); e.Type().IsRegular() && (name == prefix || strings.HasPrefix(name, prefix+"_") || name == prefix+".exe") {
			return filepath.Join(dir, name), nil
		}
	}
	return "", fmt.Errorf("%s holds no executable named %s or %s_...", dir, prefix, prefix)
}
