package httpstore

import (
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/store/storetest"
	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// conformance runs the suite's read checks on the http store in front of
// a directory that an fs store writes.
func conformance(t *testing.T, opts servers.HTTPOptions) {
	storetest.Run(t, func(t *testing.T) store.Store {
		dir := t.TempDir()
		w, err := fsstore.New(dir)
		if err != nil {
			t.Fatal(err)
		}
		srv := servers.ServeDir(t, dir, opts)
		r, err := New(t.Context(), Config{URL: srv.URL + "/", BearerToken: opts.BearerToken})
		if err != nil {
			t.Fatal(err)
		}
		return storetest.ReadVia(w, r)
	})
}

func TestConformance(t *testing.T) { conformance(t, servers.HTTPOptions{}) }

// A server that ignores Range answers 200 with whole values; the store
// slices the ranges out.
func TestConformanceIgnoringRange(t *testing.T) {
	conformance(t, servers.HTTPOptions{IgnoreRange: true})
}

func TestConformanceWithToken(t *testing.T) {
	conformance(t, servers.HTTPOptions{BearerToken: "s3cr3t-token"})
}

// The http store alone: writing, erasing and listing are refused.
func TestConformanceAlone(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		srv := servers.ServeDir(t, t.TempDir(), servers.HTTPOptions{})
		s, err := New(t.Context(), Config{URL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
