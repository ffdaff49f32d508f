package codec

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"github.com/zarrgw/zarrgw/core/extension"
)

// Registration is one codec implementation: its manifest (names, spec URIs,
// configuration schema) and its constructor. Stores and storage
// transformers register with the same shape (store.Registration,
// transformer.Registration).
type Registration struct {
	Manifest extension.Manifest
	New      Factory
}

// Registry maps codec names, aliases and spec URIs to registrations. It is
// safe for concurrent use and implements Resolver.
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

// Register adds reg under every name of its manifest, replacing earlier
// entries.
func (r *Registry) Register(reg Registration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range reg.Manifest.Names() {
		r.byName[n] = reg
	}
}

// Lookup returns the registration for a name, alias or URI.
func (r *Registry) Lookup(name string) (Registration, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	reg, ok := r.byName[name]
	return reg, ok
}

// Names lists every registered name, alias and URI, sorted.
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
func (r *Registry) Codec(ctx context.Context, name string, configuration json.RawMessage) (Codec, error) {
	reg, ok := r.Lookup(name)
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrUnavailable, name)
	}
	c, err := reg.New(ctx, configuration, r)
	if err != nil {
		return nil, fmt.Errorf("codec %s: %w", name, err)
	}
	return c, nil
}
