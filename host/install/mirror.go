package install

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hashicorp/go-version"

	"github.com/zarrgw/zarrgw/host/install/pluginsource"
	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
)

// Mirror fills the mirror directory dir with the packages, for each of
// platforms, that the installed plugins of cfg need (the versions lock
// pins, else the newest that meet the constraints) and writes its network
// mirror documents, as "zarrgw plugins mirror" does, after "terraform
// providers mirror". Mirroring several configurations into one directory
// merges them. Packages are checked against the hashes their sources
// state; the lock file checks them again where they are installed.
func (in *Installer) Mirror(ctx context.Context, cfg *config.Config, lock *config.Lock, dir string, platforms []pluginpkg.Platform) error {
	var errs []error
	for _, p := range cfg.Plugins {
		if !p.Installed() {
			continue
		}
		if err := in.mirrorPlugin(ctx, cfg, lock, p, dir, platforms); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (in *Installer) mirrorPlugin(ctx context.Context, cfg *config.Config, lock *config.Lock, p config.Plugin, dir string, platforms []pluginpkg.Platform) error {
	a, v, _, err := in.selected(ctx, cfg, lock, p)
	if err != nil {
		return err
	}
	for _, plat := range platforms {
		if err := in.mirrorPackage(ctx, a, v, plat, dir); err != nil {
			return fmt.Errorf("plugin %s %s (%s): %w", a, v, plat, err)
		}
	}
	return nil
}

func (in *Installer) mirrorPackage(ctx context.Context, a pluginpkg.Address, v *version.Version, plat pluginpkg.Platform, dir string) error {
	pkg, err := in.Sources.Package(ctx, a, v, plat)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "zarrgw-mirror-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	zipPath, _, err := in.packageZip(ctx, pkg, tmp)
	if err != nil {
		return err
	}
	if err := pluginsource.Publish(dir, a, v, plat, zipPath); err != nil {
		return err
	}
	if f := in.Events.MirrorPackageSuccess; f != nil {
		f(a, v, plat, locationOf(pkg))
	}
	return nil
}

// Package builds the package of a plugin binary, as "zarrgw plugins
// package" does: zarrgw-plugin-TYPE_VERSION_OS_ARCH.zip holding the
// executable zarrgw-plugin-TYPE_vVERSION and beside it files, the files
// and directories it needs (a Python plugin's modules; pluginpkg.Build
// says how they are packed), written into outDir or, when mirror is set,
// into that mirror directory with its network mirror documents updated.
// It returns the zip's path and hashes.
func Package(bin, address, ver string, plat pluginpkg.Platform, outDir string, mirror bool, files ...string) (string, []string, error) {
	a, err := pluginpkg.ParseAddress(address)
	if err != nil {
		return "", nil, err
	}
	v, err := version.NewVersion(ver)
	if err != nil {
		return "", nil, fmt.Errorf("version %q: %w", ver, err)
	}
	dst := outDir
	if mirror {
		if dst, err = os.MkdirTemp("", "zarrgw-package-*"); err != nil {
			return "", nil, err
		}
		defer os.RemoveAll(dst)
	}
	zipPath := filepath.Join(dst, pluginpkg.FileName(a.Type, v, plat))
	if err := pluginpkg.Build(zipPath, bin, pluginpkg.Executable(a.Type, v, plat), files...); err != nil {
		return "", nil, fmt.Errorf("package %s %s: %w", a, v, err)
	}
	if mirror {
		if err := pluginsource.Publish(outDir, a, v, plat, zipPath); err != nil {
			return "", nil, err
		}
		zipPath = filepath.Join(outDir, filepath.FromSlash(a.Path()), filepath.Base(zipPath))
	}
	hashes, err := pluginpkg.ZipHashes(zipPath)
	return zipPath, hashes, err
}
