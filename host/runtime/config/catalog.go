package config

import (
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/host/runtime/config/hclread"
)

// resolution is what a name in a block label turned out to denote.
type resolution struct {
	manifest extension.Manifest
	plugin   string // source address of the providing plugin, if any
	checked  bool   // the manifest is known, so its schema applies
	// pending is set for a name that only an unpinned plugin may serve:
	// nothing can be said of it until the plugin is locked, which its own
	// diagnostic already asks for.
	pending bool
}

// resolve looks name up in the configuration's catalog (the bundled
// extensions and the manifests probed plugins reported), in its one order:
// a plugin's extension wins over a bundled one. A name found nowhere may
// still be served by a plugin that was not probed: one whose lock entry
// records the name; any plugin not pinned or installed yet (nothing can
// be said until it is, which its own diagnostic asks for); or a pinned
// plugin whose names are not known at all, if its address ends in the
// name.
func (d *decoder) resolve(kind extension.Kind, name string) (resolution, bool) {
	if e, ok := d.cfg.Catalog.Lookup(kind, name); ok {
		return resolution{manifest: e.Manifest, plugin: e.Plugin, checked: true}, true
	}
	assumed := func(p Plugin) (resolution, bool) {
		return resolution{manifest: extension.Manifest{Kind: kind, Name: name}, plugin: p.Source}, true
	}
	for _, p := range d.cfg.Plugins {
		if !p.Probed && p.Serves.Has(kind, name) && p.SHA256 == "" {
			// Not runnable here (not pinned or installed yet, or refused):
			// its own diagnostic says so, and nothing more can be said.
			return resolution{manifest: extension.Manifest{Kind: kind, Name: name}, plugin: p.Source, pending: true}, true
		}
		if !p.Probed && p.Serves.Has(kind, name) {
			return assumed(p)
		}
	}
	for _, p := range d.cfg.Plugins {
		if p.SHA256 == "" && p.Serves.Empty() {
			return resolution{manifest: extension.Manifest{Kind: kind, Name: name}, plugin: p.Source, pending: true}, true
		}
	}
	for _, p := range d.cfg.Plugins {
		if !p.Probed && p.Serves.Empty() && (p.Name() == name || p.Source == name) {
			return assumed(p)
		}
	}
	return resolution{}, false
}

// catalogPlugins adds the manifests of the probed plugins to the catalog.
func (d *decoder) catalogPlugins() hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, p := range d.cfg.Plugins {
		for _, m := range p.Manifests {
			if err := d.cfg.Catalog.Add(p.Source, m); err != nil {
				diags = append(diags, hclread.ErrorAt(p.DeclRange, "Two plugins serve one name", "Plugin %q: %s.", p.Source, err))
			}
		}
	}
	return diags
}

// knownNames lists the short names of one kind: names and aliases, without
// spec URIs, and without "numcodecs." forms where a plain name exists.
func (d *decoder) knownNames(kind extension.Kind) []string {
	ms := d.cfg.Catalog.Manifests(kind)
	seen := map[string]bool{}
	for _, m := range ms {
		for _, n := range append([]string{m.Name}, m.Aliases...) {
			seen[n] = true // spec URIs are kept apart, in m.URIs
		}
	}
	var out []string
	for n := range seen {
		if plain, ok := strings.CutPrefix(n, "numcodecs."); ok && seen[plain] {
			continue
		}
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func lastSegment(source string) string {
	return source[strings.LastIndex(source, "/")+1:]
}
