package config_test

import (
	"encoding/json"
	"testing"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/host/runtime/config"
)

// A references store's reference set and the directories of its
// allow_targets written relative are the configuration file's
// directory's, as fs roots are; URLs and absolute paths are left as
// written.
func TestReferencesPathsRelativeToConfiguration(t *testing.T) {
	catalog := extension.NewCatalog(extension.Manifest{Kind: extension.Store, Name: "references",
		ConfigSchema: json.RawMessage(`{"type":"object","required":["references"],"properties":{
			"references":{"type":"string"},"allow_targets":{"type":"array","items":{"type":"string"}}}}`)})
	cfg := mustParse(t, `store "references" "r" {
  references    = "refs/set.json"
  allow_targets = ["nc/", "../archive", "/srv/nc/", "https://data.example.org/nc/"]
}
`, config.Options{Catalog: catalog})
	st, _ := cfg.Store(config.StoreRef{Type: "references", Name: "r"})
	var got struct {
		References   string   `json:"references"`
		AllowTargets []string `json:"allow_targets"`
	}
	if err := json.Unmarshal(st.Extension.Config, &got); err != nil {
		t.Fatal(err)
	}
	want := []string{"/etc/zarrgw/nc", "/etc/archive", "/srv/nc/", "https://data.example.org/nc/"}
	if got.References != "/etc/zarrgw/refs/set.json" || len(got.AllowTargets) != len(want) {
		t.Fatalf("configuration %s", st.Extension.Config)
	}
	for i, w := range want {
		if got.AllowTargets[i] != w {
			t.Errorf("allow_targets[%d] = %q, want %q", i, got.AllowTargets[i], w)
		}
	}
}
