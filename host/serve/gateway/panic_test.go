package gateway_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/host/serve/gateway"
)

// A handler that panics (here: a store call on a key named "boom") is a
// bug, not a success: the client gets 500 rather than an empty reply,
// and the access log records 500 with the panic, where it recorded 200.
func TestHandlerPanicIsLogged500(t *testing.T) {
	access := &syncBuffer{}
	boom := func(ctx context.Context, op, key string, call func(context.Context) error) error {
		if strings.Contains(key, "boom") {
			panic("a bug in a store")
		}
		return call(ctx)
	}
	src := strings.Replace(testConfig, "ROOT", t.TempDir(), 1)
	g := configGatewayWith(t, src, "/etc/zarrgw/test.hcl", gateway.Options{AccessLog: access, StoreHook: boom})
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)

	resp, err := srv.Client().Get(srv.URL + "/d/open/boom")
	if err != nil {
		t.Fatalf("GET of a key whose read panics: %v (want a 500 response)", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusInternalServerError {
		t.Errorf("GET of a key whose read panics: %d %s, want 500", resp.StatusCode, body)
	}
	var entry struct {
		Path   string `json:"path"`
		Status int    `json:"status"`
		Error  string `json:"error"`
	}
	for line := range strings.SplitSeq(strings.TrimSpace(access.String()), "\n") {
		if json.Unmarshal([]byte(line), &entry) == nil && entry.Path == "/d/open/boom" {
			break
		}
		entry.Path = ""
	}
	if entry.Path == "" {
		t.Fatalf("no access log record of the request:\n%s", access)
	}
	if entry.Status != http.StatusInternalServerError || !strings.Contains(entry.Error, "a bug in a store") {
		t.Errorf("access log records status %d, error %q; want 500 and the panic", entry.Status, entry.Error)
	}
}
