package launcher

import (
	"context"

	"github.com/zarrgw/zarrgw/core/extension"
)

// Probe starts the plugin spec describes, asks what it serves and ends it:
// what configuration loading needs to check names and schemas against.
func Probe(ctx context.Context, spec Spec, opts Options) ([]extension.Manifest, error) {
	l := New(opts)
	defer l.Close()
	spec.Manifests = nil
	p, err := l.Add(spec)
	if err != nil {
		return nil, err
	}
	return p.Manifests(ctx)
}
