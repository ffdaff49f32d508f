package references

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

// declaredStores serves declared stores by identity, counting the opens.
type declaredStores struct {
	stores map[string]store.Store
	opened map[string]int
}

func (d *declaredStores) OpenDeclared(_ context.Context, ref string) (store.Store, error) {
	d.opened[ref]++
	if s, ok := d.stores[ref]; ok {
		return s, nil
	}
	return nil, fmt.Errorf("%s is not declared", ref)
}

// Targets route URLs by their longest prefix to declared stores, the rest
// of the URL being the key there; other URLs open by URL; a declared
// store is opened once and never closed by the reference set.
func TestTargetsRouteToDeclaredStores(t *testing.T) {
	ctx := context.Background()
	raw, deep := store.NewMemory(), store.NewMemory()
	for s, kv := range map[store.Store][2]string{raw: {"nc/a.nc", "0123456789"}, deep: {"b.nc", "abcdefghij"}} {
		if _, err := s.Set(ctx, kv[0], []byte(kv[1]), store.Condition{}); err != nil {
			t.Fatal(err)
		}
	}
	files := store.NewMemory()
	if _, err := files.Set(ctx, "c.nc", []byte("ABCDEFGHIJ"), store.Condition{}); err != nil {
		t.Fatal(err)
	}
	set, err := ParseJSON([]byte(`{
		"v/0": ["s3://bucket/nc/a.nc", 2, 3],
		"v/1": ["s3://bucket/deep/b.nc", 4, 2],
		"v/2": ["mem://files/c.nc", 0, 1],
		"v/3": ["s3://bucket/nc/gone.nc", 0, 1]
	}`))
	if err != nil {
		t.Fatal(err)
	}
	decl := &declaredStores{stores: map[string]store.Store{"store.s3.raw": raw, "store.s3.deep": deep}, opened: map[string]int{}}
	s, err := New(set, &memTargets{stores: map[string]store.Store{"files": nopClose{files}}}, "mem://files/").
		Targets(map[string]string{"s3://bucket/": "store.s3.raw", "s3://bucket/deep/": "store.s3.deep"}, decl)
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"v/0": "234", "v/1": "ef", "v/2": "A"} {
		for range 2 {
			v, err := s.Get(ctx, key, store.ByteRange{})
			if err != nil || string(v.Data) != want {
				t.Errorf("%s: %q, %v; want %q", key, v.Data, err, want)
			}
		}
	}
	if _, err := s.Get(ctx, "v/3", store.ByteRange{}); err == nil || !strings.Contains(err.Error(), `key "v/3"`) || !strings.Contains(err.Error(), "gone.nc is missing") {
		t.Errorf("missing file in a declared store: %v", err)
	}
	if decl.opened["store.s3.raw"] != 1 || decl.opened["store.s3.deep"] != 1 {
		t.Errorf("declared stores opened %v, want once each", decl.opened)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Get(ctx, "nc/a.nc", store.ByteRange{}); err != nil {
		t.Errorf("closing the reference set closed a declared store: %v", err)
	}
}

// A target store that is the reference set itself fails the read, naming
// the key, instead of reading forever.
func TestTargetsReferringBack(t *testing.T) {
	set, err := ParseJSON([]byte(`{"v/0": ["s3://self/v/0", 0, 1]}`))
	if err != nil {
		t.Fatal(err)
	}
	decl := &declaredStores{stores: map[string]store.Store{}, opened: map[string]int{}}
	s, err := New(set, &memTargets{}, "").Targets(map[string]string{"s3://self/": "store.references.self"}, decl)
	if err != nil {
		t.Fatal(err)
	}
	decl.stores["store.references.self"] = store.ReadOnly(s)
	_, err = s.Get(context.Background(), "v/0", store.ByteRange{})
	if err == nil || !strings.Contains(err.Error(), `key "v/0"`) || !strings.Contains(err.Error(), "refer back") {
		t.Errorf("a reference set reading itself: %v", err)
	}
}

// Listing with sizes asks no target file (an S3 listing of a million
// chunks would otherwise make a million requests); Stat asks the file, so
// that a ranged value's version is its file's, as Get gives it.
func TestListInfoAsksNoTarget(t *testing.T) {
	file, set, err := chunkedFile(50, 10, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	target, gets := countingStore(t, file)
	var calls int
	counted := store.WithHook(target, func(ctx context.Context, op, key string, call func(context.Context) error) error {
		calls++
		return call(ctx)
	})
	s := New(set, &memTargets{stores: map[string]store.Store{"files": counted}}, "mem://files/")
	ctx := context.Background()
	n := 0
	for e, err := range store.ListInfo(ctx, s, "v/", "") {
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(e.Key, ".zarray") && e.Info.Size != 10 {
			t.Errorf("%s listed with size %d, want 10", e.Key, e.Info.Size)
		}
		n++
	}
	if n != 101 || calls != 0 {
		t.Errorf("listed %d keys with %d calls to the target, want 101 and none", n, calls)
	}
	info, err := s.Stat(ctx, "v/3")
	if err != nil || info.Size != 10 || calls != 1 || gets.Load() != 0 {
		t.Errorf("Stat: %+v %v after %d calls", info, err, calls)
	}
	v, err := s.Get(ctx, "v/3", store.ByteRange{})
	if err != nil || v.Version == "" || v.Version != info.Version {
		t.Errorf("Get's version %q, Stat's %q (%v)", v.Version, info.Version, err)
	}
}
