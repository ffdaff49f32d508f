package registry

import (
	"fmt"
	"sort"
	"sync"

	"github.com/zarrgw/zarrgw/core/extension"
)

// Catalog answers which extension a name or spec URI denotes, per kind.
// It starts with the bundled extensions and takes the manifests that
// plugins report when launched. It is safe for concurrent use.
type Catalog struct {
	mu     sync.RWMutex
	byName map[catalogKey]int // name, alias or URI -> index in list
	list   []extension.Manifest
}

type catalogKey struct {
	kind extension.Kind
	name string
}

// NewCatalog returns a catalog holding ms; it panics if two claim one name,
// since bundled manifests are fixed at build time.
func NewCatalog(ms ...extension.Manifest) *Catalog {
	c := &Catalog{byName: map[catalogKey]int{}}
	for _, m := range ms {
		if err := c.Add(m); err != nil {
			panic(err)
		}
	}
	return c
}

// Add registers m under its name, aliases and URIs. A name already taken by
// another manifest of the same kind is an error: a plugin silently taking
// over a bundled codec would change what existing arrays decode with.
func (c *Catalog) Add(m extension.Manifest) error {
	if m.Name == "" {
		return fmt.Errorf("%s manifest without a name", m.Kind)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range m.Names() {
		if i, ok := c.byName[catalogKey{m.Kind, n}]; ok {
			return fmt.Errorf("%s %q is already provided by %q", m.Kind, n, c.list[i].Name)
		}
	}
	c.list = append(c.list, m)
	for _, n := range m.Names() {
		c.byName[catalogKey{m.Kind, n}] = len(c.list) - 1
	}
	return nil
}

// Manifest returns the manifest of the kind answering to name.
func (c *Catalog) Manifest(kind extension.Kind, name string) (extension.Manifest, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	i, ok := c.byName[catalogKey{kind, name}]
	if !ok {
		return extension.Manifest{}, false
	}
	return c.list[i], true
}

// Manifests lists the manifests of one kind, sorted by name.
func (c *Catalog) Manifests(kind extension.Kind) []extension.Manifest {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []extension.Manifest
	for _, m := range c.list {
		if m.Kind == kind {
			out = append(out, m)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
