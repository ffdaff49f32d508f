package cli

import (
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	bin "github.com/zarrgw/zarrgw/tests/support/binary"
)

// `zarrgw serve` with drain_delay: the first SIGTERM begins the drain
// (/readyz fails while the gateway still serves), a second one ends it at
// once, and the process exits cleanly long before drain_delay (an hour).
func TestServeSecondSignalEndsTheDrain(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "zarrgw.hcl")
	src := `store "fs" "d" {
  root = "` + dir + `"
}
dataset "d" {
  store = store.fs.d
}
server {
  listen      = "127.0.0.1:0"
  drain_delay = "1h"
}
`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	g := bin.Serve(t, binary, file)
	g.Signal(t, syscall.SIGTERM)
	client := &http.Client{Timeout: time.Minute}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		resp, err := client.Get(g.URL + "/readyz")
		if err != nil {
			t.Fatalf("/readyz while draining: %v (the listener closed)", err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("/readyz did not fail within a minute of SIGTERM")
		}
	}
	g.Signal(t, syscall.SIGTERM)
	if err := g.Wait(t, time.Minute); err != nil {
		t.Fatalf("zarrgw serve after the second SIGTERM: %v; its log:\n%s", err, g.Log)
	}
}
