package conformance

import (
	"testing"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/registry"
	"github.com/zarrgw/zarrgw/plugins/stores/fs"
)

func openFS(dir string) (store.Store, error) { return fs.New(dir) }

// TestConformanceInProcess decodes every fixture with every extension in
// process. Every fixture whose codecs are available must pass.
func TestConformanceInProcess(t *testing.T) {
	c := Run(t, openFS, array.Options{Codecs: registry.Codecs()})
	if c.Passed == 0 {
		t.Fatal("no fixture passed")
	}
}
