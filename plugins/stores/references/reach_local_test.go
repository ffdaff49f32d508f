package references_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	nethttp "net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/stores/httpstore"
	"github.com/zarrgw/zarrgw/plugins/stores/references"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// filesAndWeb opens local directories as fs stores and http(s) URLs as
// http stores, with the context's address check, as the host does.
type filesAndWeb struct{}

func (filesAndWeb) OpenURL(ctx context.Context, url string) (store.Store, error) {
	if strings.HasPrefix(url, "http://") {
		cfg, _ := json.Marshal(map[string]string{"url": url})
		return httpstore.Open(ctx, cfg)
	}
	return localFiles{}.OpenURL(ctx, url)
}

// A local set reads the files of its directory, and nothing beside it:
// not by "..", an absolute path, a file:// URL, nor a symlink in its
// directory that points out of it.
func TestLocalSetStaysInItsDirectory(t *testing.T) {
	dir := t.TempDir()
	refs := filepath.Join(dir, "refs")
	if err := os.MkdirAll(filepath.Join(refs, "nc"), 0o755); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(dir, "secret.bin")
	for path, data := range map[string]string{filepath.Join(refs, "nc", "a.bin"): "inside", secret: "SECRET"} {
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(secret, filepath.Join(refs, "nc", "link.bin")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dir, filepath.Join(refs, "up")); err != nil {
		t.Fatal(err)
	}
	targets := map[string]bool{
		"nc/a.bin": true, filepath.Join(refs, "nc", "a.bin"): true, "file://" + filepath.Join(refs, "nc", "a.bin"): true,
		"../secret.bin": false, "nc/../../secret.bin": false, secret: false, "file://" + secret: false,
		"nc/link.bin": false, "up/secret.bin": false,
	}
	doc := map[string]any{}
	var keys []string
	for target := range targets {
		key := fmt.Sprintf("v/%d", len(keys))
		keys = append(keys, target)
		doc[key] = []any{target}
	}
	b, _ := json.Marshal(doc)
	set, err := references.ParseJSON(b)
	if err != nil {
		t.Fatal(err)
	}
	s := references.New(set, localFiles{}, refs+"/")
	defer s.Close()
	for i, target := range keys {
		v, err := s.Get(context.Background(), fmt.Sprintf("v/%d", i), store.ByteRange{})
		switch {
		case targets[target] && (err != nil || string(v.Data) != "inside"):
			t.Errorf("%s: %q (%v), want it read", target, v.Data, err)
		case !targets[target] && (err == nil || errors.Is(err, store.ErrNotFound) || strings.Contains(string(v.Data), "SECRET")):
			t.Errorf("%s: %q (%v), want an error (not a missing key)", target, v.Data, err)
		}
	}
}

// A host name of allow_targets that resolves to a loopback address
// (localhost) is refused when connecting, with no request made, unless
// allow_addresses lists the address, even when the set itself is read
// from that address written as an IP literal; written as an IP literal it
// is the operator's own choice and read.
func TestNamesResolvingToLoopbackRefused(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "data.bin"), []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	var requests atomic.Int64
	srv := servers.ServeDir(t, dir, servers.HTTPOptions{Seen: func(*nethttp.Request) { requests.Add(1) }})
	byName := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1) + "/"
	read := func(prefix, base string, addresses ...netip.Prefix) error {
		set, err := references.ParseJSON([]byte(`{"v/0": ["` + prefix + `data.bin", 2, 3]}`))
		if err != nil {
			t.Fatal(err)
		}
		s, err := references.New(set, filesAndWeb{}, base).Allow([]string{prefix}, addresses)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		v, err := s.Get(context.Background(), "v/0", store.ByteRange{})
		if err == nil && string(v.Data) != "234" {
			t.Errorf("%s: read %q, want 234", prefix, v.Data)
		}
		return err
	}
	for _, base := range []string{"", "http://127.0.0.1:1/refs/"} {
		if err := read(byName, base); !errors.Is(err, store.ErrAddressRefused) || requests.Load() != 0 {
			t.Errorf("localhost without allow_addresses (set at %q): %v after %d requests, want refused before any", base, err, requests.Load())
		}
	}
	if err := read(byName, "", netip.MustParsePrefix("127.0.0.0/8")); err != nil {
		t.Errorf("localhost with allow_addresses 127.0.0.0/8: %v", err)
	}
	if err := read(srv.URL+"/", ""); err != nil {
		t.Errorf("127.0.0.1 written in allow_targets: %v", err)
	}
}
