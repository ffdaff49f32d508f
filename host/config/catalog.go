package config

import (
	"slices"
	"sort"
	"strings"

	"github.com/zarrgw/zarrgw/core/extension"
)

// Catalog answers which extension a name denotes. host/registry's Catalog
// implements it with the bundled extensions and the manifests of launched
// plugins.
type Catalog interface {
	// Manifest returns the manifest of the kind answering to name (its
	// name, an alias or a spec URI).
	Manifest(kind extension.Kind, name string) (extension.Manifest, bool)
	// Manifests lists the manifests of one kind, for messages that say
	// which names are known.
	Manifests(kind extension.Kind) []extension.Manifest
}

// resolution is what a name in a block label turned out to denote.
type resolution struct {
	manifest extension.Manifest
	plugin   string // source address of the providing plugin, if any
	checked  bool   // the manifest is known, so its schema applies
}

// resolve looks name up: first in the manifests probed plugins reported (a
// declared plugin is an explicit choice), then in the catalog, then among
// the names unprobed plugins are assumed to provide.
func (d *decoder) resolve(kind extension.Kind, name string) (resolution, bool) {
	for _, p := range d.cfg.Plugins {
		for _, m := range p.Manifests {
			if m.Kind == kind && slices.Contains(m.Names(), name) {
				return resolution{manifest: m, plugin: p.Source, checked: true}, true
			}
		}
	}
	if d.cat != nil {
		if m, ok := d.cat.Manifest(kind, name); ok {
			return resolution{manifest: m, checked: true}, true
		}
	}
	for _, p := range d.cfg.Plugins {
		if !p.Probed && (p.Name() == name || p.Source == name) {
			return resolution{manifest: extension.Manifest{Kind: kind, Name: name}, plugin: p.Source}, true
		}
	}
	return resolution{}, false
}

// knownNames lists the short names of one kind: names and aliases, without
// spec URIs, and without "numcodecs." forms where a plain name exists.
func (d *decoder) knownNames(kind extension.Kind) []string {
	var ms []extension.Manifest
	if d.cat != nil {
		ms = d.cat.Manifests(kind)
	}
	for _, p := range d.cfg.Plugins {
		for _, m := range p.Manifests {
			if m.Kind == kind {
				ms = append(ms, m)
			}
		}
	}
	seen := map[string]bool{}
	for _, m := range ms {
		for _, n := range append([]string{m.Name}, m.Aliases...) {
			if !strings.Contains(n, "://") {
				seen[n] = true
			}
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

// suggest returns the known name closest to name, if it is close enough to
// be a likely typo.
func suggest(name string, known []string) string {
	best, bestDist := "", max(1, len(name)/4)+1
	for _, k := range known {
		if dist := editDistance(name, k); dist < bestDist {
			best, bestDist = k, dist
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, by bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func lastSegment(source string) string {
	return source[strings.LastIndex(source, "/")+1:]
}
