package install

import (
	"github.com/hashicorp/go-version"

	"github.com/zarrgw/zarrgw/host/install/pluginsource"
	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
)

// Events are the steps of the installer's work, reported as they happen,
// after Terraform's providercache.InstallerEvents: every field is
// optional, and the installer calls those that are set. It prints nothing
// itself: "zarrgw init" (and "plugins lock", "plugins mirror") set
// callbacks that print a line per step; tests set callbacks that record
// the steps. The callbacks run on the installer's goroutine, one at a
// time. A step that fails also returns its error.
type Events struct {
	// OverrideSkipped: the plugin from source is one the CLI configuration
	// cliFile overrides for development with the build in dir, so it is
	// neither installed nor locked.
	OverrideSkipped func(source, cliFile, dir string)

	// LockedVersion: the lock file pins version v of a, which is taken
	// without asking the sources.
	LockedVersion func(a pluginpkg.Address, v *version.Version)
	// QueryPackagesBegin: the sources are asked for the versions of a that
	// meet constraint; Success gives the newest, Failure why there is none.
	QueryPackagesBegin   func(a pluginpkg.Address, constraint string)
	QueryPackagesSuccess func(a pluginpkg.Address, v *version.Version)
	QueryPackagesFailure func(a pluginpkg.Address, err error)

	// AlreadyInstalled: version v of a is installed in dir already, as the
	// lock file's hashes vouch; nothing is fetched.
	AlreadyInstalled func(a pluginpkg.Address, v *version.Version, dir string)
	// InstallPackageBegin: version v of a is to be installed for plat;
	// Success says where it came from and what it serves, Failure why it
	// was not installed.
	InstallPackageBegin   func(a pluginpkg.Address, v *version.Version, plat pluginpkg.Platform)
	InstallPackageSuccess func(a pluginpkg.Address, v *version.Version, from Origin, served config.Served)
	InstallPackageFailure func(a pluginpkg.Address, v *version.Version, err error)
	// CacheLockWait: another installation holds the lock file lockPath of
	// the package's plugin cache entry; this one waits for it.
	CacheLockWait func(a pluginpkg.Address, v *version.Version, lockPath string)
	// FetchPackageBegin: a package is fetched from where its source keeps
	// it, to be installed (FetchPackageSuccess follows, with the directory
	// it was unpacked into and its hashes), hashed for the lock file
	// (HashPackageSuccess) or mirrored (MirrorPackageSuccess).
	FetchPackageBegin   func(a pluginpkg.Address, v *version.Version, from Location)
	FetchPackageSuccess func(a pluginpkg.Address, v *version.Version, dir string, hashes []string)
	// LinkFromCacheSuccess: dir, the installation, links to (or, where
	// links cannot be made, copies) the plugin cache entry cached.
	LinkFromCacheSuccess func(a pluginpkg.Address, v *version.Version, cached, dir string)

	// HashPackageSuccess: hashes are those of the package of version v of
	// a for plat, fetched (not installed) for the lock file.
	HashPackageSuccess func(a pluginpkg.Address, v *version.Version, plat pluginpkg.Platform, from Location, hashes []string)
	// MirrorPackageSuccess: the package of version v of a for plat is in
	// the mirror directory.
	MirrorPackageSuccess func(a pluginpkg.Address, v *version.Version, plat pluginpkg.Platform, from Location)
}

// Location is where a source keeps a package: exactly one of a zip file
// or an unpacked directory on this machine, or a URL to download.
type Location struct {
	// Source names the source ("filesystem mirror DIR", "network mirror URL").
	Source            string
	ZipPath, Dir, URL string
}

func locationOf(pkg pluginsource.Package) Location {
	return Location{Source: pkg.Source, ZipPath: pkg.ZipPath, Dir: pkg.Dir, URL: pkg.URL}
}

// Origin is where an installed package came from: installed already, or
// fetched from Source, or linked from the plugin cache CacheDir, or both
// (fetched into the cache, then linked).
type Origin struct {
	AlreadyInstalled bool
	Source           string
	CacheDir         string
}
