package registry

import (
	"fmt"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/transformer"
	"github.com/zarrgw/zarrgw/pluginapi"
)

// Serve serves one extension of the set as a plugin: the codec, store type
// or storage transformer of kind ("" for any) that name denotes. zarrgw
// runs it as "zarrgw plugin serve NAME", so one binary ships every plugin.
// It returns only on an unknown name; otherwise the process ends when the
// host ends it.
func (s Set) Serve(kind extension.Kind, name string) error {
	m, ok := s.find(kind, name)
	if !ok {
		what := "codec, store or transformer"
		if kind != "" {
			what = string(kind)
		}
		return fmt.Errorf("no bundled %s can be served as %q", what, name)
	}
	// Nested chains (sharding_indexed's inner codecs) run in this process.
	ext := pluginapi.Extensions{Resolver: s.CodecRegistry()}
	switch m.Kind {
	case extension.Codec:
		reg, _ := s.CodecRegistry().Lookup(m.Name)
		ext.Codecs = []codec.Registration{reg}
	case extension.Store:
		reg, _ := s.store(m.Name)
		ext.Stores = []store.Registration{reg}
	case extension.Transformer:
		reg, _ := s.transformer(m.Name)
		ext.Transformers = []transformer.Registration{reg}
	}
	pluginapi.Serve(ext)
	return nil
}

// find returns the manifest of kind ("" for any) that name denotes.
func (s Set) find(kind extension.Kind, name string) (extension.Manifest, bool) {
	for _, m := range s.Manifests() {
		if (kind == "" || m.Kind == kind) && m.AnswersTo(name) {
			return m, true
		}
	}
	return extension.Manifest{}, false
}
