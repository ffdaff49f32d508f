package extension

import "testing"

func TestFind(t *testing.T) {
	ms := []Manifest{{Kind: Codec, Name: "bitshave", Aliases: []string{"shave"}, URIs: []string{"https://x/1"}}}
	for name, want := range map[string]bool{"bitshave": true, "shave": true, "https://x/1": true, "other": false} {
		if _, ok := Find(ms, Codec, name); ok != want {
			t.Errorf("%s: %v", name, ok)
		}
	}
	if _, ok := Find(ms, Store, "bitshave"); ok {
		t.Error("a codec found as a store")
	}
}

// The one resolution order: a plugin's extension wins over a bundled one
// of the same name; within a tier a name belongs to one extension.
func TestCatalogOrder(t *testing.T) {
	cat := NewCatalog(
		Manifest{Kind: Codec, Name: "zstd", Aliases: []string{"numcodecs.zstd"}},
		Manifest{Kind: Store, Name: "fs"},
	)
	if e, ok := cat.Lookup(Codec, "numcodecs.zstd"); !ok || !e.Bundled() || e.Manifest.Name != "zstd" {
		t.Fatalf("bundled alias: %+v %v", e, ok)
	}
	if _, ok := cat.Lookup(Store, "zstd"); ok {
		t.Error("a codec answered as a store")
	}
	plugin := cat.Clone()
	if err := plugin.Add("example.org/acme/fast", Manifest{Kind: Codec, Name: "fast-zstd", Aliases: []string{"zstd"}}); err != nil {
		t.Fatal(err)
	}
	if e, ok := plugin.Lookup(Codec, "zstd"); !ok || e.Plugin != "example.org/acme/fast" {
		t.Errorf("the plugin does not win: %+v", e)
	}
	if e, _ := plugin.Lookup(Codec, "numcodecs.zstd"); !e.Bundled() {
		t.Errorf("a name the plugin does not claim left the bundled codec: %+v", e)
	}
	bundled := plugin.Entries(Codec)[0]
	if by := plugin.ShadowedBy(bundled); by != "example.org/acme/fast" {
		t.Errorf("shadowed by %q", by)
	}
	if e, _ := cat.Lookup(Codec, "zstd"); !e.Bundled() {
		t.Error("adding to a clone changed the original")
	}
	if err := plugin.Add("example.org/other", Manifest{Kind: Codec, Name: "zstd"}); err == nil {
		t.Error("two plugins took one name")
	}
	if _, ok := plugin.Lookup(Codec, "other"); ok {
		t.Error("a refused manifest was partly added")
	}
	defer func() {
		if recover() == nil {
			t.Error("two bundled extensions took one name")
		}
	}()
	NewCatalog(Manifest{Kind: Codec, Name: "a"}, Manifest{Kind: Codec, Name: "b", Aliases: []string{"a"}})
}
