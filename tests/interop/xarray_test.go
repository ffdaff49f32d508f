package interop

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
	bin "github.com/zarrgw/zarrgw/tests/support/binary"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// xarrayDatasets are the hierarchies TestXarrayOpensSamples serves: the
// make-run samples as examples/mksample writes them (v3 and v2), the v2
// sample taken to v3 and back (`zarrgw cp --to-format 3`, then
// `--to-format 2`), and the v3 sample taken to v2 (`--to-format 2`). consolidated is the gateway's setting (.zmetadata built on
// the fly); the v2 ones are opened both with and without it.
var xarrayDatasets = []struct {
	name, prefix string
	format       int
	consolidated bool
}{
	{"sample", "sample.zarr", 3, true},
	{"sample-v2", "sample_v2.zarr", 2, true},
	{"roundtrip-v2", "roundtrip_v2.zarr", 2, true},
	{"from-v3", "from_v3.zarr", 2, false},
}

// xarrayResult is what xarray_open.py prints of one opened hierarchy.
type xarrayResult struct {
	Name      string          `json:"name"`
	Error     string          `json:"error"`
	Attrs     json.RawMessage `json:"attrs"`
	Coords    []string        `json:"coords"`
	Variables map[string]struct {
		Dims   []string          `json:"dims"`
		Shape  []int             `json:"shape"`
		DType  string            `json:"dtype"`
		Attrs  json.RawMessage   `json:"attrs"`
		Values []json.RawMessage `json:"values"`
	} `json:"variables"`
}

// Debian's xarray (python3-xarray, over Debian's zarr-python 2 and
// fsspec's HTTP filesystem) opens the make-run samples through `zarrgw
// serve` with xr.open_zarr(URL, consolidated=...): every array is a
// variable with the dimension names mksample gave it (_ARRAY_DIMENSIONS in
// v2, which xarray hides from the attributes), its shape and its values,
// as zarrgw's engine reads them from the stored chunks; the arrays named
// after their one dimension are coordinates. The same holds for the v2
// sample after a v2 -> v3 -> v2 round trip and for the v3 sample
// converted to v2 by zarrgw cp, whose names reach xarray only through
// the conversion. The v3
// sample is opened too when the python zarr is zarr-python 3 (Debian's
// 2.13 reads v2 only: counted as not run).
func TestXarrayOpensSamples(t *testing.T) {
	requirePython(t)
	ctx := context.Background()
	data := t.TempDir()
	for _, d := range xarrayDatasets[:2] {
		args := []string{"run", "../../examples/mksample", "-format", fmt.Sprint(d.format), filepath.Join(data, d.prefix)}
		if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
			t.Fatalf("mksample: %v\n%s", err, out)
		}
	}
	zarrgw := zarrgwBinary
	cp := func(src, dst string, format int) {
		args := []string{"cp", "-q", filepath.Join(data, src), filepath.Join(data, dst), "--to-format", fmt.Sprint(format)}
		if out, err := exec.Command(zarrgw, args...).CombinedOutput(); err != nil {
			t.Fatalf("zarrgw %q: %v\n%s", args, err, out)
		}
	}
	cp("sample_v2.zarr", "roundtrip_v3.zarr", 3)
	cp("roundtrip_v3.zarr", "roundtrip_v2.zarr", 2)
	cp("sample.zarr", "from_v3.zarr", 2)

	expected := map[string]map[string]xarrayVariable{}
	for _, d := range xarrayDatasets {
		expected[d.name] = engineVariables(t, ctx, filepath.Join(data, d.prefix))
	}
	// mksample wrote the same names in both formats, and the conversions
	// kept them
	for _, name := range []string{"sample-v2", "roundtrip-v2", "from-v3"} {
		for path, v := range expected["sample"] {
			if got := expected[name][path]; !slices.Equal(got.dims, v.dims) || len(v.dims) == 0 {
				t.Errorf("%s/%s names its dimensions %q, the v3 sample %q", name, path, got.dims, v.dims)
			}
		}
	}

	url := serveSamples(t, zarrgw, data)
	type xcase struct {
		Name         string `json:"name"`
		URL          string `json:"url"`
		Consolidated *bool  `json:"consolidated"`
		dataset      string
	}
	var cases []xcase
	for _, d := range xarrayDatasets {
		modes := []*bool{nil}
		if d.format == 2 && d.consolidated {
			modes = []*bool{ptrTo(true), ptrTo(false)}
		}
		for _, c := range modes {
			mode := "default"
			if c != nil {
				mode = fmt.Sprintf("consolidated=%v", *c)
			}
			cases = append(cases, xcase{d.name + "/" + mode, url + "/d/" + d.name + "/", c, d.name})
		}
	}
	var out struct {
		Xarray  string         `json:"xarray"`
		Zarr    string         `json:"zarr"`
		Results []xarrayResult `json:"results"`
	}
	runXarray(t, map[string]any{"cases": cases}, &out)
	t.Logf("xarray %s, zarr %s", out.Xarray, out.Zarr)
	if len(out.Results) != len(cases) {
		t.Fatalf("%d results for %d cases", len(out.Results), len(cases))
	}
	zarr3 := !strings.HasPrefix(out.Zarr, "2.")
	tl := tally{name: "xarray-read"}
	for i, c := range cases {
		r := out.Results[i]
		tl.run(t, c.Name, func() error {
			if c.dataset == "sample" && !zarr3 {
				return blocked{fmt.Sprintf("zarr-python %s reads Zarr v2 only", out.Zarr)}
			}
			if r.Error != "" {
				return fmt.Errorf("xr.open_zarr(%q, consolidated=%s): %s", c.URL, pyBool(c.Consolidated), r.Error)
			}
			return checkXarray(r, expected[c.dataset], engineRootAttrs(t, ctx, filepath.Join(data, datasetPrefix(c.dataset))))
		})
	}
	tl.summary(t, "the v3 sample: Debian's zarr-python 2 reads v2 only")
}

// runXarray runs xarray_open.py on manifest, failing with what to install
// when xarray is missing (exit status 3).
func runXarray(t *testing.T, manifest, out any) {
	t.Helper()
	mf := filepath.Join(t.TempDir(), "manifest.json")
	b, _ := json.Marshal(manifest)
	if err := os.WriteFile(mf, b, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), scriptTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "py/xarray_open.py", mf)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 3 {
		t.Fatalf("xarray is not importable by %s (%s): install Debian's python3-xarray (apt-get install python3-xarray)",
			python, strings.TrimSpace(stderr.String()))
	}
	if err != nil {
		t.Fatalf("xarray_open.py: %v\nstderr:\n%s", err, stderr.String())
	}
	if err := json.Unmarshal(stdout, out); err != nil {
		t.Fatalf("xarray_open.py: output is not JSON: %v\n%.2000s\nstderr:\n%s", err, stdout, stderr.String())
	}
}

func ptrTo[T any](v T) *T { return &v }

// pyBool spells an optional bool as Python does.
func pyBool(b *bool) string {
	switch {
	case b == nil:
		return "None"
	case *b:
		return "True"
	}
	return "False"
}

func datasetPrefix(name string) string {
	for _, d := range xarrayDatasets {
		if d.name == name {
			return d.prefix
		}
	}
	return ""
}

// xarrayVariable is an array as zarrgw's engine reads it: the dimension
// names its metadata gives (v3 dimension_names, v2 _ARRAY_DIMENSIONS),
// the attributes xarray must show (the rest), and its values.
type xarrayVariable struct {
	dims  []string
	attrs json.RawMessage
	a     *array.Array
	want  func(i int) any
}

// engineVariables reads every array of the hierarchy in dir.
func engineVariables(t *testing.T, ctx context.Context, dir string) map[string]xarrayVariable {
	t.Helper()
	s := openDir(t, dir)
	root, err := hierarchy.Open(ctx, s, "")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]xarrayVariable{}
	err = hierarchy.Walk(ctx, s, root, func(n hierarchy.Node) error {
		if n.Array == nil {
			return nil
		}
		a, err := array.New(ctx, s, n.Path, n.Array, array.Options{Codecs: registry.Codecs()})
		if err != nil {
			return err
		}
		data, err := a.ReadAll(ctx)
		if err != nil {
			return err
		}
		v := xarrayVariable{a: a, want: data.At}
		var attrs map[string]json.RawMessage
		if err := json.Unmarshal(n.Array.Attributes, &attrs); err != nil {
			return err
		}
		if raw, ok := attrs[meta.XarrayDimensionsKey]; ok {
			if n.Array.Format != meta.V2 {
				return fmt.Errorf("%s: a v3 array with %s", n.Name(), meta.XarrayDimensionsKey)
			}
			if err := json.Unmarshal(raw, &v.dims); err != nil {
				return err
			}
			delete(attrs, meta.XarrayDimensionsKey)
		}
		for _, name := range n.Array.DimensionNames {
			if name == nil {
				return fmt.Errorf("%s: an unnamed dimension", n.Name())
			}
			v.dims = append(v.dims, *name)
		}
		v.attrs, _ = json.Marshal(attrs)
		out[n.Path] = v
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	return out
}

func engineRootAttrs(t *testing.T, ctx context.Context, dir string) json.RawMessage {
	root, err := hierarchy.Open(ctx, openDir(t, dir), "")
	if err != nil || root.Group == nil {
		t.Fatalf("%s: root %+v (%v)", dir, root, err)
	}
	return root.Group.Attributes
}

func openDir(t *testing.T, dir string) store.Store {
	t.Helper()
	s, err := fsstore.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// checkXarray compares what xarray saw with what the engine reads.
func checkXarray(r xarrayResult, want map[string]xarrayVariable, rootAttrs json.RawMessage) error {
	var names, got []string
	for name := range want {
		names = append(names, name)
	}
	for name := range r.Variables {
		got = append(got, name)
	}
	sort.Strings(names)
	sort.Strings(got)
	if !slices.Equal(names, got) {
		return fmt.Errorf("variables %q, want the arrays %q", got, names)
	}
	if !jsonSame(r.Attrs, rootAttrs) {
		return fmt.Errorf("dataset attributes %s, want the root group's %s", r.Attrs, rootAttrs)
	}
	var coords []string
	for _, name := range names {
		w, v := want[name], r.Variables[name]
		if !slices.Equal(v.Dims, w.dims) {
			return fmt.Errorf("%s: dimensions %q, want %q", name, v.Dims, w.dims)
		}
		if !slices.Equal(v.Shape, w.a.Shape()) {
			return fmt.Errorf("%s: shape %v, want %v", name, v.Shape, w.a.Shape())
		}
		if !jsonSame(v.Attrs, w.attrs) {
			return fmt.Errorf("%s: attributes %s, want %s", name, v.Attrs, w.attrs)
		}
		n := 1
		for _, d := range v.Shape {
			n *= d
		}
		if err := compareElements(w.a.Meta().DataType, n, w.want, v.Values); err != nil {
			return fmt.Errorf("%s (%s): %v", name, v.DType, err)
		}
		if len(w.dims) == 1 && w.dims[0] == name {
			coords = append(coords, name)
		}
	}
	if !slices.Equal(r.Coords, coords) {
		return fmt.Errorf("coordinates %q, want the arrays named after their dimension, %q", r.Coords, coords)
	}
	return nil
}

func jsonSame(x, y json.RawMessage) bool {
	var vx, vy any
	if json.Unmarshal(x, &vx) != nil || json.Unmarshal(y, &vy) != nil {
		return false
	}
	bx, _ := json.Marshal(vx)
	by, _ := json.Marshal(vy)
	return string(bx) == string(by)
}

var xarrayServing = regexp.MustCompile(`zarrgw: serving \d+ datasets at (http://[0-9.:]+)/d/`)

// serveSamples runs `zarrgw serve` on the datasets
// of xarrayDatasets below data until the test ends, and returns its base
// URL.
func serveSamples(t *testing.T, zarrgw, data string) string {
	t.Helper()
	var c strings.Builder
	fmt.Fprintf(&c, "store \"fs\" \"local\" {\n  root = %q\n}\n", data)
	for _, d := range xarrayDatasets {
		fmt.Fprintf(&c, "dataset %q {\n  store        = store.fs.local\n  prefix       = %q\n  read_only    = true\n  consolidated = %t\n}\n",
			d.name, d.prefix, d.consolidated)
	}
	file := filepath.Join(t.TempDir(), "zarrgw.hcl")
	if err := os.WriteFile(file, []byte(c.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(zarrgw, "serve", "-c", file, "--listen", "127.0.0.1:0")
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	log := &servers.Log{}
	t.Cleanup(func() {
		if err := bin.Stop(t, cmd, log); err != nil {
			t.Logf("zarrgw serve ended: %v", err)
		}
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			fmt.Fprintln(log, sc.Text())
			if m := xarrayServing.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case url := <-found:
		return url
	case <-time.After(30 * time.Second):
		t.Fatalf("zarrgw serve did not start within 30s; its log:\n%s", log)
	}
	return ""
}
