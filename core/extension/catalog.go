package extension

import (
	"fmt"
	"sort"
	"sync"
)

// Catalog answers which extension a name or spec URI denotes, per kind. It
// holds two tiers: the extensions bundled with the binary, and those of
// the plugins a configuration declares. One resolution order applies
// everywhere (configuration checking, opening datasets, array metadata,
// listings): a plugin's extension wins over a bundled one of the same name,
// since declaring the plugin was an explicit choice. Within a tier a name
// belongs to one extension only. A Catalog is safe for concurrent use.
type Catalog struct {
	mu      sync.RWMutex
	entries []Entry
	// byName maps tier, kind and name to an index in entries.
	byName map[catalogKey]int
}

// Entry is one extension of a catalog.
type Entry struct {
	Manifest Manifest
	// Plugin is the source address of the plugin serving it; "" for a
	// bundled extension.
	Plugin string
}

// Bundled reports whether the extension comes with the binary.
func (e Entry) Bundled() bool { return e.Plugin == "" }

type catalogKey struct {
	plugin bool
	kind   Kind
	name   string
}

// NewCatalog returns a catalog of bundled manifests; it panics if two
// claim one name of a kind, since bundled manifests are fixed at build time.
func NewCatalog(bundled ...Manifest) *Catalog {
	c := &Catalog{byName: map[catalogKey]int{}}
	for _, m := range bundled {
		if err := c.Add("", m); err != nil {
			panic(err)
		}
	}
	return c
}

// Add adds m, served by plugin ("" for bundled), under its name, aliases
// and URIs. A name another extension of the same kind and tier answers to
// is an error, and nothing is added.
func (c *Catalog) Add(plugin string, m Manifest) error {
	if m.Name == "" {
		return fmt.Errorf("%s manifest without a name", m.Kind)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range m.Names() {
		if i, ok := c.byName[catalogKey{plugin != "", m.Kind, n}]; ok {
			return fmt.Errorf("%s %q is already provided by %s", m.Kind, n, c.entries[i].describe())
		}
	}
	c.entries = append(c.entries, Entry{Manifest: m, Plugin: plugin})
	for _, n := range m.Names() {
		c.byName[catalogKey{plugin != "", m.Kind, n}] = len(c.entries) - 1
	}
	return nil
}

func (e Entry) describe() string {
	if e.Bundled() {
		return fmt.Sprintf("bundled %q", e.Manifest.Name)
	}
	return fmt.Sprintf("%q of plugin %s", e.Manifest.Name, e.Plugin)
}

// Lookup returns the extension of kind that name denotes: a plugin's if
// one answers to it, else a bundled one.
func (c *Catalog) Lookup(kind Kind, name string) (Entry, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, plugin := range []bool{true, false} {
		if i, ok := c.byName[catalogKey{plugin, kind, name}]; ok {
			return c.entries[i], true
		}
	}
	return Entry{}, false
}

// Manifest returns the manifest of the extension Lookup finds.
func (c *Catalog) Manifest(kind Kind, name string) (Manifest, bool) {
	e, ok := c.Lookup(kind, name)
	return e.Manifest, ok
}

// ShadowedBy returns the plugin that takes over some name of a bundled
// entry, "" when none does.
func (c *Catalog) ShadowedBy(e Entry) string {
	if !e.Bundled() {
		return ""
	}
	for _, n := range e.Manifest.Names() {
		if w, ok := c.Lookup(e.Manifest.Kind, n); ok && !w.Bundled() {
			return w.Plugin
		}
	}
	return ""
}

// Entries lists the entries of one kind, bundled first, each tier sorted
// by name.
func (c *Catalog) Entries(kind Kind) []Entry {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []Entry
	for _, e := range c.entries {
		if e.Manifest.Kind == kind {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Bundled() != out[j].Bundled() {
			return out[i].Bundled()
		}
		return out[i].Manifest.Name < out[j].Manifest.Name
	})
	return out
}

// Manifests lists the manifests of one kind (see Entries).
func (c *Catalog) Manifests(kind Kind) []Manifest {
	var out []Manifest
	for _, e := range c.Entries(kind) {
		out = append(out, e.Manifest)
	}
	return out
}

// Clone returns a copy to which further entries can be added.
func (c *Catalog) Clone() *Catalog {
	c.mu.RLock()
	defer c.mu.RUnlock()
	d := &Catalog{entries: append([]Entry(nil), c.entries...), byName: make(map[catalogKey]int, len(c.byName))}
	for k, v := range c.byName {
		d.byName[k] = v
	}
	return d
}

// ResolutionOrder says in a sentence how names are resolved, for listings.
const ResolutionOrder = "a name served both by a configuration's plugin and by a bundled extension resolves to the plugin"
