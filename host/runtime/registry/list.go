package registry

import (
	"context"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/host/runtime/launcher"
)

// List returns an entry for every extension of the set and of the plugins
// of l (started to ask them when their manifests are not known), in the
// catalog's order: a bundled extension that a plugin's takes over is
// marked as such. A plugin that cannot say what it serves is listed once,
// with its error.
func (s Set) List(ctx context.Context, l *launcher.Launcher) []launcher.Entry {
	cat := s.Catalog()
	var failed []launcher.Entry
	for _, e := range l.List(ctx) {
		if e.Manifest.Name == "" {
			failed = append(failed, e)
			continue
		}
		if err := cat.Add(e.Plugin, e.Manifest); err != nil && e.Status.Err == nil {
			e.Status.Err = err
			failed = append(failed, e)
		}
	}
	var out []launcher.Entry
	for _, kind := range []extension.Kind{extension.Codec, extension.Store, extension.Transformer} {
		for _, e := range cat.Entries(kind) {
			entry := launcher.Entry{Plugin: e.Plugin, Manifest: e.Manifest, OverriddenBy: cat.ShadowedBy(e)}
			if p, ok := l.Plugin(e.Plugin); ok {
				entry.Status = p.Status()
			}
			out = append(out, entry)
		}
	}
	return append(out, failed...)
}
