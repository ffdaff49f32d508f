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

// LockPlatforms adds to lock the hashes of the packages, for each of
// platforms, of the version of each installed plugin of cfg that lock
// pins (or, for a plugin it does not record yet, the newest that meets the
// constraint), as "zarrgw plugins lock -platform=..." does: the packages
// are fetched from the sources and checked, not installed, so a lock file
// can vouch for machines of other platforms.
func (in *Installer) LockPlatforms(ctx context.Context, cfg *config.Config, lock *config.Lock, platforms []pluginpkg.Platform) error {
	var errs []error
	for _, p := range cfg.Plugins {
		if !p.Installed() || in.overridden(p) {
			continue
		}
		if err := in.lockPlugin(ctx, cfg, lock, p, platforms); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (in *Installer) lockPlugin(ctx context.Context, cfg *config.Config, lock *config.Lock, p config.Plugin, platforms []pluginpkg.Platform) error {
	a, v, prev, err := in.selected(ctx, cfg, lock, p)
	if err != nil {
		return err
	}
	entry := config.LockedPlugin{Version: v.String(), Constraints: p.Constraints}
	if prev != nil {
		entry = *prev
	}
	for _, plat := range platforms {
		hashes, from, err := in.hashes(ctx, a, v, plat)
		if err != nil {
			return fmt.Errorf("plugin %s %s (%s): %w", a, v, plat, err)
		}
		entry.Hashes = union(entry.Hashes, hashes)
		if f := in.Events.HashPackageSuccess; f != nil {
			f(a, v, plat, from, hashes)
		}
	}
	lock.Plugins[p.Source] = entry
	return nil
}

// selected is the version of installed plugin p that lock pins, else the
// newest that meets its constraint; prev is its lock entry, if any.
func (in *Installer) selected(ctx context.Context, cfg *config.Config, lock *config.Lock, p config.Plugin) (pluginpkg.Address, *version.Version, *config.LockedPlugin, error) {
	a, err := pluginpkg.ParseAddress(p.Source)
	if err != nil {
		return a, nil, nil, err
	}
	var prev *config.LockedPlugin
	if e, ok := lock.Plugins[p.Source]; ok && e.Version != "" {
		prev = &e
	}
	v, err := in.choose(ctx, cfg, a, p.Constraints, prev, false)
	return a, v, prev, err
}

// hashes fetches version v of a for platform plat into a temporary
// directory and returns its hashes, checked against those its source
// states, and where it was.
func (in *Installer) hashes(ctx context.Context, a pluginpkg.Address, v *version.Version, plat pluginpkg.Platform) ([]string, Location, error) {
	pkg, err := in.Sources.Package(ctx, a, v, plat)
	if err != nil {
		return nil, Location{}, err
	}
	tmp, err := os.MkdirTemp("", "zarrgw-lock-*")
	if err != nil {
		return nil, Location{}, err
	}
	defer os.RemoveAll(tmp)
	hashes, err := in.unpack(ctx, pkg, tmp, filepath.Join(tmp, "package"))
	return hashes, locationOf(pkg), err
}

// packageZip returns a zip file of pkg in tmp (or where it is, when it is
// one already) and its hashes, checked against those its source states.
func (in *Installer) packageZip(ctx context.Context, pkg pluginsource.Package, tmp string) (string, []string, error) {
	in.fetchBegin(pkg)
	zipPath := pkg.ZipPath
	switch {
	case pkg.Download != nil:
		zipPath = tmp + "/package.zip"
		if err := download(ctx, pkg, zipPath); err != nil {
			return "", nil, err
		}
	case pkg.Dir != "":
		zipPath = tmp + "/package.zip"
		if err := pluginpkg.Pack(zipPath, pkg.Dir); err != nil {
			return "", nil, err
		}
	}
	hashes, err := pluginpkg.ZipHashes(zipPath)
	if err != nil {
		return "", nil, err
	}
	return zipPath, hashes, stated(pkg, hashes)
}
