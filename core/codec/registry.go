package codec

import (
	"encoding/json"
	"fmt"
	"sort"
	"sync"
)

// Registration describes one codec implementation to a Registry.
type Registration struct {
	// Name is the registered Zarr name written to new metadata.
	Name string
	// Aliases are other names found in metadata: numcodecs ids,
	// "numcodecs.<id>", legacy names and spec URIs.
	Aliases []string
	New     Factory
}

// Registry maps codec names and aliases to factories. It is safe for
// concurrent use and implements Resolver.
type Registry struct {
	mu     sync.RWMutex
	byName map[string]Registration
}

// NewRegistry returns a registry holding regs.
func NewRegistry(regs ...Registration) *Registry {
	r := &Registry{byName: map[string]Registration{}}
	for _, reg := range regs {
		r.Register(reg)
	}
	return r
}

// Register adds reg under its name and aliases, replacing earlier entries.
func (r *Registry) Register(reg Registration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.byName[reg.Name] = reg
	for _, a := range reg.Aliases {
		r.byName[a] = reg
	}
}

// Lookup returns the registration for a name or alias.
func (r *Registry) Lookup(name string) (Registration, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	reg, ok := r.byName[name]
	return reg, ok
}

// Names lists every registered name and alias, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.byName))
	for n := range r.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Codec implements Resolver.
func (r *Registry) Codec(name string, configuration json.RawMessage) (Codec, error) {
	reg, ok := r.Lookup(name)
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrUnavailable, name)
	}
	c, err := reg.New(configuration, r)
	if err != nil {
		return nil, fmt.Errorf("codec %s: %w", name, err)
	}
	return c, nil
}
