package cli

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/zarrgw/zarrgw/host/commands/render"
	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/launcher"
)

// inspect --json describes every node of the sample, groups before their
// children, with the fields its documentation names.
func TestInspectJSON(t *testing.T) {
	var doc struct {
		FormatVersion string            `json:"format_version"`
		Location      string            `json:"location"`
		Nodes         []render.NodeJSON `json:"nodes"`
	}
	out := must(t, "", "inspect", sample(), "--json")
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if doc.FormatVersion != "1" || doc.Location != sample() || len(doc.Nodes) != 3 {
		t.Fatalf("%s", out)
	}
	root := doc.Nodes[0]
	if root.Path != "" || root.Kind != "group" || root.ZarrFormat != 3 || root.Layout != "v3" || string(root.Attributes) == "{}" {
		t.Errorf("root %+v", root)
	}
	var temp *render.NodeJSON
	for i := range doc.Nodes {
		if doc.Nodes[i].Path == "temperature" {
			temp = &doc.Nodes[i]
		}
	}
	if temp == nil {
		t.Fatalf("no temperature among %s", out)
	}
	var names []string
	for _, c := range temp.Codecs {
		names = append(names, c.Name)
	}
	if temp.Kind != "array" || !slices.Equal(temp.Shape, []int{4, 6}) || !slices.Equal(temp.Chunks, []int{2, 4}) || temp.DataType != "float32" ||
		string(temp.FillValue) != `"NaN"` || !slices.Equal(names, []string{"bytes", "zstd"}) ||
		temp.ChunkKeyEncoding == nil || temp.ChunkKeyEncoding.Separator != "/" {
		t.Errorf("temperature %+v", *temp)
	}
	// --path: the node and what is below it.
	if err := json.Unmarshal([]byte(must(t, "", "inspect", sample(), "--path", "temperature", "--json")), &doc); err != nil || len(doc.Nodes) != 1 {
		t.Errorf("--path temperature: %+v (%v)", doc.Nodes, err)
	}
}

// validate --json prints one document on stdout and nothing on stderr:
// valid or not, the diagnostics with their ranges, and what the file
// declares; the exit status is 1 when it is not valid.
func TestValidateJSON(t *testing.T) {
	dir := t.TempDir()
	src := `store "fs" "local" {
  root = "./data"
}

dataset "era5" {
  store     = store.fs.local
  prefix    = "era5.zarr"
  read_only = true
}
`
	write(t, filepath.Join(dir, "zarrgw.hcl"), src)
	stdout, stderr, code := run(t, dir, "validate", "-c", "zarrgw.hcl", "--json")
	var r config.Report
	if err := json.Unmarshal([]byte(stdout), &r); err != nil || stderr != "" || code != 1 {
		t.Fatalf("exit %d, %v\nstdout: %s\nstderr: %s", code, err, stdout, stderr)
	}
	if r.Valid || r.ErrorCount != 1 || len(r.Diagnostics) != 1 || r.Diagnostics[0].Severity != "error" ||
		r.Diagnostics[0].Summary != "Store root does not exist" || r.Diagnostics[0].Range == nil ||
		r.Diagnostics[0].Range.Filename != "zarrgw.hcl" || r.Diagnostics[0].Range.Start.Line != lineOf(t, src, "root =") {
		t.Errorf("report %+v", r)
	}

	write(t, filepath.Join(dir, "data", "keep"), "")
	stdout, stderr, code = run(t, dir, "validate", "-c", "zarrgw.hcl", "--json")
	r = config.Report{}
	if err := json.Unmarshal([]byte(stdout), &r); err != nil || stderr != "" || code != 0 {
		t.Fatalf("exit %d, %v\nstdout: %s\nstderr: %s", code, err, stdout, stderr)
	}
	if !r.Valid || r.FormatVersion != "1.0" || r.File != "zarrgw.hcl" || r.LockFile != "zarrgw.lock.hcl" || r.SharedLock ||
		len(r.Diagnostics) != 0 || len(r.Plugins) != 0 ||
		len(r.Stores) != 1 || r.Stores[0].Ref != "store.fs.local" || r.Stores[0].Root != filepath.Join(dir, "data") ||
		len(r.Datasets) != 1 || r.Datasets[0].Name != "era5" || !r.Datasets[0].ReadOnly || r.Datasets[0].Prefix != "era5.zarr" ||
		r.Datasets[0].Range.Start.Line != lineOf(t, src, `dataset "era5"`) {
		t.Errorf("report %+v", r)
	}
}

// plugins list --json lists the bundled extensions, each in process.
func TestPluginsListJSON(t *testing.T) {
	var doc launcher.ListJSON
	out := must(t, "", "plugins", "list", "--json")
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	found := map[string]launcher.ExtensionJSON{}
	for _, e := range doc.Extensions {
		found[string(e.Kind)+" "+e.Name] = e
	}
	for _, want := range []string{"codec zstd", "codec bytes", "codec sharding_indexed", "store fs", "transformer sharding"} {
		e, ok := found[want]
		if !ok || !e.Bundled || e.Plugin != "" || e.State != "in process" || e.Error != "" {
			t.Errorf("%s: %+v (found: %v)", want, e, ok)
		}
	}
	if doc.FormatVersion != "1" || doc.Resolution == "" {
		t.Errorf("%+v", doc)
	}
}
