package conformance

import (
	"testing"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
)

func openFS(dir string) (store.Store, error) { return fsstore.New(dir) }

// TestConformanceInProcess decodes every fixture with every extension in
// process: all 113 must pass, none may be left out for a codec the
// bundled set lacks (failures are reported one by one as they happen).
func TestConformanceInProcess(t *testing.T) {
	c := Run(t, openFS, array.Options{Codecs: registry.Codecs()})
	if c.Passed < 113 || c.Unavailable > 0 {
		t.Fatalf("%d fixtures passed, %d left out for a codec not bundled; all 113 must pass", c.Passed, c.Unavailable)
	}
}
