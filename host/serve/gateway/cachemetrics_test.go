package gateway_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// The counters of a dataset's cache transformer are published on
// /metrics: a value read twice is one miss, then one hit, and the memory
// tier holds it.
func TestCacheTransformerMetrics(t *testing.T) {
	tg := newGatewayOf(t, `
store "fs" "local" {
  root = "ROOT"
}
dataset "c" {
  store = store.fs.local
  transformer "cache" {
    memory = "1MiB"
  }
  access {
    read  = ["*"]
    write = ["*"]
  }
}
server {
  listen = "127.0.0.1:0"
}
`)
	tg.put(t, "/d/c/k", "value")
	for range 2 {
		if resp, body := tg.do(t, http.MethodGet, "/d/c/k", ""); resp.StatusCode != http.StatusOK || body != "value" {
			t.Fatalf("GET /d/c/k: %d %q", resp.StatusCode, body)
		}
	}
	_, page := tg.do(t, http.MethodGet, "/metrics", "")
	for series, want := range map[string]string{
		`zarrgw_store_cache_reads_total{dataset="c",result="miss"}`: "1",
		`zarrgw_store_cache_reads_total{dataset="c",result="hit"}`:  "",
		`zarrgw_store_cache_entries{dataset="c",tier="memory"}`:     "",
		`zarrgw_store_cache_max_bytes{dataset="c",tier="memory"}`:   "1.048576e+06",
	} {
		m := regexp.MustCompile(regexp.QuoteMeta(series) + ` (\S+)`).FindStringSubmatch(page)
		switch {
		case m == nil:
			t.Errorf("no %s on /metrics:\n%s", series, grepLines(page, "zarrgw_store_cache"))
		case want != "" && m[1] != want:
			t.Errorf("%s = %s, want %s", series, m[1], want)
		case want == "" && m[1] == "0":
			t.Errorf("%s = 0", series)
		}
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// A conditional write is decided by the store, not by what a cache in
// the stack remembers: replica B, whose cache holds the old version,
// takes a write conditioned on the version replica A just wrote, and
// refuses one on a version the store no longer holds.
func TestIfMatchDecidedByTheStore(t *testing.T) {
	root := t.TempDir()
	conf := func(cached string) string {
		return `
store "fs" "local" {
  root = "` + root + `"
}
dataset "c" {
  store = store.fs.local
  ` + cached + `
  access {
    read  = ["*"]
    write = ["*"]
  }
}
server {
  listen = "127.0.0.1:0"
}
`
	}
	a := newGatewayOf(t, conf(""))
	b := newGatewayOf(t, conf(`transformer "cache" {
    revalidate_after = "1h"
  }`))
	a.put(t, "/d/c/k", "one")
	old, _ := b.do(t, http.MethodHead, "/d/c/k", "") // b's cache now holds the first version
	a.put(t, "/d/c/k", "two")
	now, _ := a.do(t, http.MethodHead, "/d/c/k", "")
	if old.Header.Get("ETag") == now.Header.Get("ETag") {
		t.Fatalf("both writes have ETag %s", now.Header.Get("ETag"))
	}
	if resp, body := b.do(t, http.MethodPut, "/d/c/k", "three", "If-Match: "+now.Header.Get("ETag")); resp.StatusCode != http.StatusNoContent {
		t.Errorf("PUT through B If-Match the store's version: %d %s", resp.StatusCode, body)
	}
	resp, body := b.do(t, http.MethodPut, "/d/c/k", "four", "If-Match: "+old.Header.Get("ETag"))
	if resp.StatusCode != http.StatusPreconditionFailed || strings.Contains(body, "fs:") || strings.Contains(body, root) {
		t.Errorf("PUT through B If-Match a version the store no longer holds: %d %q", resp.StatusCode, body)
	}
	if _, body := a.do(t, http.MethodGet, "/d/c/k", ""); body != "three" {
		t.Errorf("the store holds %q, want three", body)
	}
}
