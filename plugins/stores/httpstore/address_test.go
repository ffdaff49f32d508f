package httpstore

import (
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
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// Opened with a store.AddressCheck, the store connects only to addresses
// the check allows, vetted after the name is resolved (localhost here):
// a refused one fails at once, once (no retry), with nothing sent; the
// same store without the check reads.
func TestAddressCheckedAtDial(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "v"), []byte("value"), 0o644); err != nil {
		t.Fatal(err)
	}
	var requests atomic.Int64
	srv := servers.ServeDir(t, dir, servers.HTTPOptions{Seen: func(*nethttp.Request) { requests.Add(1) }})
	url := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1) + "/"
	var checked atomic.Int64
	refuseLoopback := func(a netip.Addr) error {
		checked.Add(1)
		if a.IsLoopback() {
			return fmt.Errorf("%w: %s is loopback", store.ErrAddressRefused, a)
		}
		return nil
	}
	s, err := New(store.WithAddressCheck(t.Context(), refuseLoopback), Config{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Get(t.Context(), "v", store.ByteRange{})
	if !errors.Is(err, store.ErrAddressRefused) || !strings.Contains(err.Error(), "is loopback") {
		t.Errorf("get through a refused address: %v", err)
	}
	if _, err := s.Stat(t.Context(), "v"); !errors.Is(err, store.ErrAddressRefused) {
		t.Errorf("stat through a refused address: %v", err)
	}
	if n, c := requests.Load(), checked.Load(); n != 0 || c != 2 {
		t.Errorf("%d requests reached the server and %d addresses were checked, want none and 2 (one per call, no retry)", n, c)
	}
	plain, err := New(t.Context(), Config{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := plain.Get(t.Context(), "v", store.ByteRange{}); err != nil || string(v.Data) != "value" {
		t.Errorf("without a check: %q (%v)", v.Data, err)
	}
}
