package install

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/go-version"

	"github.com/zarrgw/zarrgw/host/install/pluginsource"
	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
)

// errNotLocked is wrapped by the error for a package that does not match
// the lock file's hashes of its version.
var errNotLocked = errors.New("it is not the package that was locked")

// obtained is a package installed for a configuration.
type obtained struct {
	dir    string   // the installed package (a link into the cache, when there is one)
	hashes []string // its hashes, checked
	origin Origin   // where it came from
}

// obtain installs version v of a for the installer's platform below root:
// through the cache when there is one, else straight from the source. A
// package must match locked, the lock file's hashes of this version, when
// there are any.
func (in *Installer) obtain(ctx context.Context, root string, a pluginpkg.Address, v *version.Version, locked []string) (obtained, error) {
	target := packageDir(root, a, v, in.Platform)
	pkg, err := in.Sources.Package(ctx, a, v, in.Platform)
	if err != nil {
		return obtained{}, err
	}
	if in.CacheDir == "" {
		hashes, err := in.fetch(ctx, pkg, target, locked)
		return obtained{dir: target, hashes: hashes, origin: Origin{Source: pkg.Source}}, err
	}
	return in.obtainCached(ctx, pkg, target, locked)
}

// obtainCached installs pkg at target as a link to its entry in the plugin
// cache, fetching it into the cache first unless it is there.
func (in *Installer) obtainCached(ctx context.Context, pkg pluginsource.Package, target string, locked []string) (obtained, error) {
	a, v := pkg.Address, pkg.Version
	cached := packageDir(in.CacheDir, a, v, in.Platform)
	if err := os.MkdirAll(filepath.Dir(cached), 0o755); err != nil {
		return obtained{}, err
	}
	// One install at a time fills or reads this package's cache entry:
	// another waits, then finds it there.
	lockPath := cached + ".lock"
	unlock, err := lockFile(lockPath, func() {
		if f := in.Events.CacheLockWait; f != nil {
			f(a, v, lockPath)
		}
	})
	if err != nil {
		return obtained{}, err
	}
	defer unlock()
	got := obtained{dir: target, origin: Origin{CacheDir: in.CacheDir}}
	known := sourceHashes(pkg)
	vouching := known
	if len(locked) > 0 {
		vouching = locked
	}
	if h1, err := pluginpkg.HashDir(cached); err == nil && slices.Contains(vouching, h1) {
		// The source's other hashes (a zip's zh:) are recorded too when it
		// agrees on the contents, as they would be from a download.
		got.hashes = []string{h1}
		if slices.Contains(known, h1) {
			got.hashes = union(got.hashes, known)
		}
	} else if got.hashes, err = in.fetch(ctx, pkg, cached, locked); err != nil {
		return obtained{}, err
	} else {
		got.origin.Source = pkg.Source
	}
	if err := link(cached, target); err != nil {
		return obtained{}, err
	}
	if f := in.Events.LinkFromCacheSuccess; f != nil {
		f(a, v, cached, target)
	}
	return got, nil
}

// sourceHashes are the hashes known of pkg without fetching it: those its
// source states and, for a package on this machine, its own.
func sourceHashes(pkg pluginsource.Package) []string {
	hashes := knownHashes(pkg.Hashes)
	switch {
	case pkg.ZipPath != "":
		if own, err := pluginpkg.ZipHashes(pkg.ZipPath); err == nil {
			hashes = append(hashes, own...)
		}
	case pkg.Dir != "":
		if h1, err := pluginpkg.HashDir(pkg.Dir); err == nil {
			hashes = append(hashes, h1)
		}
	}
	return union(nil, hashes)
}

// fetch fetches pkg, checks it against the hashes its source states and
// those the lock file records, and unpacks it into dst, replacing what is
// there. It returns the package's hashes.
func (in *Installer) fetch(ctx context.Context, pkg pluginsource.Package, dst string, locked []string) ([]string, error) {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".tmp-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	unpacked := filepath.Join(tmp, "package")
	hashes, err := in.unpack(ctx, pkg, tmp, unpacked)
	if err != nil {
		return nil, err
	}
	if len(locked) > 0 && len(pluginpkg.Matching(hashes, locked)) == 0 {
		return nil, fmt.Errorf("the package from %s has %s, but %s records %s for this version: %w; not installed",
			pkg.Source, strings.Join(hashes, ", "), "the lock file", strings.Join(locked, ", "), errNotLocked)
	}
	if err := replaceDir(unpacked, dst); err != nil {
		return nil, err
	}
	if f := in.Events.FetchPackageSuccess; f != nil {
		f(pkg.Address, pkg.Version, dst, hashes)
	}
	return hashes, nil
}

// unpack puts pkg, unpacked, at dir (tmp is a directory for the download)
// and returns its hashes, having checked those its source states.
func (in *Installer) unpack(ctx context.Context, pkg pluginsource.Package, tmp, dir string) ([]string, error) {
	in.fetchBegin(pkg)
	if pkg.Dir != "" {
		if err := copyDir(pkg.Dir, dir); err != nil {
			return nil, err
		}
		h1, err := pluginpkg.HashDir(dir)
		if err != nil {
			return nil, err
		}
		return []string{h1}, stated(pkg, []string{h1})
	}
	zipPath := pkg.ZipPath
	if pkg.Download != nil {
		zipPath = filepath.Join(tmp, "package.zip")
		if err := download(ctx, pkg, zipPath); err != nil {
			return nil, err
		}
	}
	hashes, err := pluginpkg.ZipHashes(zipPath)
	if err != nil {
		return nil, err
	}
	if err := stated(pkg, hashes); err != nil {
		return nil, err
	}
	if err := pluginpkg.Unpack(zipPath, dir); err != nil {
		return nil, err
	}
	// What was unpacked is what was hashed: the h1: of the zip's contents.
	if h1, err := pluginpkg.HashDir(dir); err != nil || h1 != hashes[0] {
		return nil, fmt.Errorf("the package from %s unpacked to %s, not %s (%v)", pkg.Source, h1, hashes[0], err)
	}
	return hashes, nil
}

func (in *Installer) fetchBegin(pkg pluginsource.Package) {
	if f := in.Events.FetchPackageBegin; f != nil {
		f(pkg.Address, pkg.Version, locationOf(pkg))
	}
}

// stated checks a package's hashes against those its source states: each
// stated hash of a scheme zarrgw knows must be the package's (a zh: says
// nothing of a package that is not a zip).
func stated(pkg pluginsource.Package, hashes []string) error {
	for _, h := range knownHashes(pkg.Hashes) {
		checkable := strings.HasPrefix(h, pluginpkg.H1) || pkg.Dir == ""
		if checkable && !slices.Contains(hashes, h) {
			return fmt.Errorf("the package from %s has %s, but the source states %s; not installed",
				pkg.Source, strings.Join(hashes, ", "), strings.Join(pkg.Hashes, ", "))
		}
	}
	return nil
}

func knownHashes(hs []string) []string {
	var out []string
	for _, h := range hs {
		if pluginpkg.Known(h) {
			out = append(out, h)
		}
	}
	return out
}

func download(ctx context.Context, pkg pluginsource.Package, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pkg.Download(ctx, f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", pkg.Source, err)
	}
	return f.Close()
}

// replaceDir moves the directory src to dst, replacing what dst is (a
// directory or a link), so that dst is never half written.
func replaceDir(src, dst string) error {
	old := dst + ".old"
	os.RemoveAll(old)
	if err := os.Rename(dst, old); err != nil && !os.IsNotExist(err) {
		return err
	}
	if err := os.Rename(src, dst); err != nil {
		return err
	}
	return os.RemoveAll(old)
}

// link makes target a symbolic link to the cache entry cached, replacing
// what target was; where links cannot be made, it copies.
func link(cached, target string) error {
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	tmp := target + ".link"
	os.RemoveAll(tmp)
	if err := os.Symlink(cached, tmp); err != nil {
		if err := copyDir(cached, tmp); err != nil {
			return err
		}
	}
	return replaceDir(tmp, target)
}

// copyDir copies the regular files of src below dst, keeping whether
// each is executable.
func copyDir(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case !d.Type().IsRegular():
			return fmt.Errorf("%s is not a regular file", path)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return copyFile(path, to, info.Mode().Perm()|0o644)
	})
}

func copyFile(from, to string, mode fs.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
