package plugins

import (
	"fmt"
	"testing"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
	"github.com/zarrgw/zarrgw/tests/conformance"
)

// Every fixture decodes the same with every bundled codec, the fs store
// and the sharding transformer out of process as in process.
func TestConformanceOutOfProcess(t *testing.T) {
	inProcess := conformance.Run(t, func(dir string) (store.Store, error) { return fsstore.New(dir) },
		array.Options{Codecs: registry.Codecs(), Transformers: registry.Transformers()})

	l, _ := newLauncher(t)
	parts, err := registry.Bundled().OutOfProcess(l, zarrgwBin)
	if err != nil {
		t.Fatal(err)
	}
	outOfProcess := conformance.Run(t, fsOpener(parts), parts.ArrayOptions())

	fmt.Printf("conformance in process:     %+v\nconformance out of process: %+v\n", inProcess, outOfProcess)
	if inProcess != outOfProcess {
		t.Errorf("out of process %+v, in process %+v", outOfProcess, inProcess)
	}
	if outOfProcess.Passed == 0 {
		t.Error("no fixture passed")
	}
	started := 0
	for _, p := range l.Plugins() {
		if p.Status().State != "not started" {
			started++
		}
	}
	if started < 3 {
		t.Errorf("only %d plugins were started: the run did not go out of process", started)
	}
}
