// Package pluginsource holds the places zarrgw installs plugins from, in
// Terraform's forms: a filesystem mirror (a directory in the packed or the
// unpacked layout), a network mirror (any HTTP server speaking the
// provider network mirror protocol, static files included), each limited
// to the addresses its include and exclude patterns allow; and the writing
// of such a mirror.
package pluginsource

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/hashicorp/go-version"

	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
)

// ErrNotFound is wrapped by a source that has no package for what was asked.
var ErrNotFound = errors.New("not in this source")

// Source is one place plugins are installed from.
type Source interface {
	// Versions lists the versions of a plugin the source has, for any
	// platform; none (and no error) when it has none.
	Versions(ctx context.Context, a pluginpkg.Address) ([]*version.Version, error)
	// Package locates one version of a plugin for one platform, wrapping
	// ErrNotFound when the source has none.
	Package(ctx context.Context, a pluginpkg.Address, v *version.Version, p pluginpkg.Platform) (Package, error)
	// String names the source in messages.
	String() string
}

// Package is one package a source has: where it is, in one of three forms,
// and the hashes the source states for it.
type Package struct {
	Address  pluginpkg.Address
	Version  *version.Version
	Platform pluginpkg.Platform
	// Source names the source it came from.
	Source string
	// ZipPath is a zip file on this machine, Dir an unpacked package on
	// this machine, URL a zip file to download; exactly one is set.
	ZipPath, Dir, URL string
	// Hashes are those the source states for it ("h1:...", "zh:..."),
	// checked against what is fetched.
	Hashes []string
	// Download writes the zip at URL to dst.
	Download func(ctx context.Context, dst io.Writer) error
}

// Filtered limits a source to the addresses its include patterns match
// (all, when there are none) and its exclude patterns do not: as in
// Terraform, an exclusion wins over an inclusion.
type Filtered struct {
	Source
	Include, Exclude []pluginpkg.Pattern
}

// Allows reports whether the source may serve a.
func (f Filtered) Allows(a pluginpkg.Address) bool {
	for _, p := range f.Exclude {
		if p.Matches(a) {
			return false
		}
	}
	if len(f.Include) == 0 {
		return true
	}
	for _, p := range f.Include {
		if p.Matches(a) {
			return true
		}
	}
	return false
}

// Sources are the installation sources in order.
type Sources []Filtered

// Versions lists the versions of a across every source that may serve it,
// newest first: the newest version that meets a constraint is picked from
// all of them, as Terraform does.
func (ss Sources) Versions(ctx context.Context, a pluginpkg.Address) ([]*version.Version, error) {
	var all []*version.Version
	for _, s := range ss {
		if !s.Allows(a) {
			continue
		}
		vs, err := s.Versions(ctx, a)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s, err)
		}
		all = append(all, vs...)
	}
	return newestFirst(all), nil
}

// newestFirst sorts versions newest first, without repeats.
func newestFirst(vs []*version.Version) []*version.Version {
	seen := map[string]*version.Version{}
	for _, v := range vs {
		seen[v.String()] = v
	}
	out := make([]*version.Version, 0, len(seen))
	for _, v := range seen {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GreaterThan(out[j]) })
	return out
}

// Package locates a package in the first source, in order, that has it.
func (ss Sources) Package(ctx context.Context, a pluginpkg.Address, v *version.Version, p pluginpkg.Platform) (Package, error) {
	var tried []string
	for _, s := range ss {
		if !s.Allows(a) {
			continue
		}
		pkg, err := s.Package(ctx, a, v, p)
		if errors.Is(err, ErrNotFound) {
			tried = append(tried, s.String())
			continue
		}
		if err != nil {
			return Package{}, fmt.Errorf("%s: %w", s, err)
		}
		return pkg, nil
	}
	if len(tried) == 0 {
		return Package{}, fmt.Errorf("%s %s (%s): %w: no installation source may serve it", a, v, p, ErrNotFound)
	}
	return Package{}, fmt.Errorf("%s %s (%s): %w: not in %v", a, v, p, ErrNotFound, tried)
}
