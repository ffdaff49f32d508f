package pluginsource

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hashicorp/go-version"

	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
)

// FSMirror is a directory of packages in either of Terraform's layouts, or
// both at once:
//
//	HOST/NAMESPACE/TYPE/zarrgw-plugin-TYPE_VERSION_OS_ARCH.zip   packed
//	HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/                          unpacked
//
// An unpacked package wins over a packed one of the same version and
// platform.
type FSMirror struct{ Dir string }

func (m FSMirror) String() string { return "filesystem mirror " + m.Dir }

func (m FSMirror) dir(a pluginpkg.Address) string {
	return filepath.Join(m.Dir, filepath.FromSlash(a.Path()))
}

func (m FSMirror) Versions(_ context.Context, a pluginpkg.Address) ([]*version.Version, error) {
	entries, err := os.ReadDir(m.dir(a))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*version.Version
	for _, e := range entries {
		if e.IsDir() {
			if v, err := version.NewVersion(e.Name()); err == nil && m.hasPlatforms(a, e.Name()) {
				out = append(out, v)
			}
			continue
		}
		if typ, v, _, ok := pluginpkg.ParseFileName(e.Name()); ok && typ == a.Type {
			out = append(out, v)
		}
	}
	return newestFirst(out), nil
}

// hasPlatforms reports whether an unpacked version directory holds a
// package for some platform.
func (m FSMirror) hasPlatforms(a pluginpkg.Address, dir string) bool {
	entries, _ := os.ReadDir(filepath.Join(m.dir(a), dir))
	for _, e := range entries {
		if _, err := pluginpkg.ParsePlatform(e.Name()); err == nil && e.IsDir() {
			return true
		}
	}
	return false
}

func (m FSMirror) Package(_ context.Context, a pluginpkg.Address, v *version.Version, p pluginpkg.Platform) (Package, error) {
	pkg := Package{Address: a, Version: v, Platform: p, Source: m.String()}
	entries, err := os.ReadDir(m.dir(a))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Package{}, err
	}
	// Version directories may be written "1.2" or "1.2.0"; both are 1.2.0.
	for _, e := range entries {
		if e.IsDir() {
			if dv, err := version.NewVersion(e.Name()); err == nil && dv.Equal(v) {
				dir := filepath.Join(m.dir(a), e.Name(), p.String())
				if info, err := os.Stat(dir); err == nil && info.IsDir() {
					pkg.Dir = dir
					return pkg, nil
				}
			}
		}
	}
	for _, e := range entries {
		if typ, fv, fp, ok := pluginpkg.ParseFileName(e.Name()); ok && typ == a.Type && fv.Equal(v) && fp == p {
			pkg.ZipPath = filepath.Join(m.dir(a), e.Name())
			return pkg, nil
		}
	}
	return Package{}, fmt.Errorf("%s %s (%s): %w", a, v, p, ErrNotFound)
}
