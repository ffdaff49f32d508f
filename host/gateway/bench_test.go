package gateway_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/host/config"
	"github.com/zarrgw/zarrgw/host/gateway"
	"github.com/zarrgw/zarrgw/host/registry"
	"github.com/zarrgw/zarrgw/host/stack"
)

// A GET of a 4 KiB value through the handler alone (no network): the
// gateway's own cost per small read, allocations included.
//
//	go test -run '^$' -bench SmallGet -benchmem ./host/gateway
func BenchmarkSmallGet(b *testing.B) {
	root := b.TempDir()
	os.MkdirAll(filepath.Join(root, "small"), 0o755)
	for i := 0; i < 100; i++ {
		os.WriteFile(filepath.Join(root, "small", fmt.Sprintf("k%d", i)), make([]byte, 4096), 0o644)
	}
	cfg, diags := config.Parse([]byte(`store "fs" "b" {
  root = "`+root+`"
}
dataset "small" {
  store     = store.fs.b
  prefix    = "small"
  read_only = true
}`), "/tmp/b.hcl", registry.Bundled().Catalog())
	if diags.HasErrors() {
		b.Fatal(diags.Error())
	}
	host, err := stack.Start(cfg, registry.Bundled(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		b.Fatal(err)
	}
	defer host.Close()
	g, err := gateway.New(context.Background(), cfg, host, gateway.Options{Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			w := httptest.NewRecorder()
			r := httptest.NewRequest(http.MethodGet, fmt.Sprintf("/d/small/k%d", i%100), nil)
			g.ServeHTTP(w, r)
			if w.Code != 200 || !strings.HasPrefix(w.Header().Get("ETag"), `"`) {
				b.Fatalf("%d", w.Code)
			}
			i++
		}
	})
}
