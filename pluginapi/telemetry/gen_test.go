package telemetry

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The generated wrappers and fakes are what gen_codec.go writes now: an
// optional interface added to the generator reaches the code.
func TestGeneratedCodeIsCurrent(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("go", "run", "gen_codec.go", dir).CombinedOutput(); err != nil {
		t.Fatalf("go run gen_codec.go: %v\n%s", err, out)
	}
	for _, f := range []string{"codec_gen.go", "codec_gen_test.go"} {
		want, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what gen_codec.go writes: run go generate ./pluginapi/telemetry", f)
		}
	}
}
