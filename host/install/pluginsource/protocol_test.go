package pluginsource

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/go-version"

	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
)

// The sample responses of Terraform's "Provider Network Mirror Protocol"
// page, as documented, for "List Available Versions" and "List Available
// Installation Packages".
const (
	documentedVersions = `{
  "versions": {
    "2.0.0": {},
    "2.0.1": {}
  }
}`
	documentedArchives = `{
  "archives": {
    "darwin_amd64": {
      "url": "terraform-provider-random_2.0.0_darwin_amd64.zip",
      "hashes": [
        "h1:4A07+ZFc2wgJwo8YNlQpr1rVlgUDlxXHhPJciaPY5gs="
      ]
    },
    "linux_amd64": {
      "url": "terraform-provider-random_2.0.0_linux_amd64.zip",
      "hashes": [
        "h1:lCJCxf/LIowc2IGS9TPjWDyXY4nOmdGdfcwwDQCOURQ="
      ]
    }
  }
}`
)

// strict decodes doc into v, refusing fields v does not have.
func strict(t *testing.T, doc string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(doc))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
}

// The documents decode field for field into the protocol's types.
func TestDocumentedExamples(t *testing.T) {
	var vi VersionIndex
	strict(t, documentedVersions, &vi)
	if !reflect.DeepEqual(vi.Versions, map[string]struct{}{"2.0.0": {}, "2.0.1": {}}) {
		t.Errorf("versions %v", vi.Versions)
	}
	var pi PackageIndex
	strict(t, documentedArchives, &pi)
	want := map[string]Archive{
		"darwin_amd64": {URL: "terraform-provider-random_2.0.0_darwin_amd64.zip", Hashes: []string{"h1:4A07+ZFc2wgJwo8YNlQpr1rVlgUDlxXHhPJciaPY5gs="}},
		"linux_amd64":  {URL: "terraform-provider-random_2.0.0_linux_amd64.zip", Hashes: []string{"h1:lCJCxf/LIowc2IGS9TPjWDyXY4nOmdGdfcwwDQCOURQ="}},
	}
	if !reflect.DeepEqual(pi.Archives, want) {
		t.Errorf("archives %+v", pi.Archives)
	}
}

// A static server over the documented documents is a mirror: the
// versions listed, a package's URL resolved relative to its document (or
// taken as it is when absolute), its hashes stated; a plugin the mirror
// lacks (404) has no versions.
func TestNetMirrorOverDocumentedFiles(t *testing.T) {
	absolute := strings.Replace(documentedArchives, `"terraform-provider-random_2.0.0_linux_amd64.zip"`, `"https://downloads.example.com/random/linux.zip"`, 1)
	files := map[string]string{
		"/providers/registry.terraform.io/hashicorp/random/index.json": documentedVersions,
		"/providers/registry.terraform.io/hashicorp/random/2.0.0.json": absolute,
	}
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.Path)
		doc, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(doc))
	}))
	defer srv.Close()
	m, err := NewNetMirror(srv.URL+"/providers", nil) // the trailing slash is added
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a := pluginpkg.Address{Host: "registry.terraform.io", Namespace: "hashicorp", Type: "random"}
	vs, err := m.Versions(ctx, a)
	if err != nil || len(vs) != 2 {
		t.Fatalf("versions %v %v (requests %v)", vs, err, paths)
	}
	v := version.Must(version.NewVersion("2.0.0"))
	pkg, err := m.Package(ctx, a, v, pluginpkg.Platform{OS: "darwin", Arch: "amd64"})
	if err != nil || pkg.URL != srv.URL+"/providers/registry.terraform.io/hashicorp/random/terraform-provider-random_2.0.0_darwin_amd64.zip" ||
		len(pkg.Hashes) != 1 || !strings.HasPrefix(pkg.Hashes[0], "h1:4A07") {
		t.Errorf("darwin package %+v %v", pkg, err)
	}
	if pkg, err := m.Package(ctx, a, v, pluginpkg.Platform{OS: "linux", Arch: "amd64"}); err != nil || pkg.URL != "https://downloads.example.com/random/linux.zip" {
		t.Errorf("linux package %+v %v", pkg, err)
	}
	if _, err := m.Package(ctx, a, v, pluginpkg.Platform{OS: "linux", Arch: "arm64"}); err == nil {
		t.Error("a platform the mirror lacks was found")
	}
	if vs, err := m.Versions(ctx, pluginpkg.Address{Host: "example.org", Namespace: "acme", Type: "none"}); err != nil || len(vs) != 0 {
		t.Errorf("absent plugin: %v %v", vs, err)
	}
	if _, err := NewNetMirror("http://mirror.example.org/", nil); err == nil {
		t.Error("plain http to a remote host accepted")
	}
}

// What Publish writes has the documented fields and no others, and serves
// as both a filesystem mirror and, over HTTP, a network mirror.
func TestPublishWritesTheProtocol(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.WriteFile(bin, []byte("binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	a := pluginpkg.Address{Host: "example.org", Namespace: "acme", Type: "xor"}
	mirror := filepath.Join(dir, "mirror")
	for _, s := range []string{"1.2.0", "1.3.0"} {
		v := version.Must(version.NewVersion(s))
		for _, p := range []pluginpkg.Platform{{OS: "linux", Arch: "amd64"}, {OS: "linux", Arch: "arm64"}} {
			zipPath := filepath.Join(dir, pluginpkg.FileName(a.Type, v, p))
			if err := pluginpkg.Build(zipPath, bin, pluginpkg.Executable(a.Type, v, p)); err != nil {
				t.Fatal(err)
			}
			if err := Publish(mirror, a, v, p, zipPath); err != nil {
				t.Fatal(err)
			}
		}
	}
	pdir := filepath.Join(mirror, "example.org", "acme", "xor")
	var generic map[string]map[string]map[string]any
	readDoc := func(name string) {
		b, err := os.ReadFile(filepath.Join(pdir, name))
		if err != nil {
			t.Fatal(err)
		}
		generic = nil
		if err := json.Unmarshal(b, &generic); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	readDoc("index.json")
	if keys(generic) != "versions" || keys(generic["versions"]) != "1.2.0 1.3.0" || len(generic["versions"]["1.2.0"]) != 0 {
		t.Errorf("index.json: %v", generic)
	}
	readDoc("1.3.0.json")
	if keys(generic) != "archives" || keys(generic["archives"]) != "linux_amd64 linux_arm64" || keys(generic["archives"]["linux_arm64"]) != "hashes url" {
		t.Errorf("1.3.0.json: %v", generic)
	}
	arm := generic["archives"]["linux_arm64"]
	zipPath := filepath.Join(pdir, arm["url"].(string))
	want, err := pluginpkg.ZipHashes(zipPath)
	if err != nil || !reflect.DeepEqual(arm["hashes"], []any{want[0], want[1]}) {
		t.Errorf("hashes %v, the zip's %v (%v)", arm["hashes"], want, err)
	}

	ctx := context.Background()
	fsm := FSMirror{Dir: mirror}
	srv := httptest.NewServer(http.FileServer(http.Dir(mirror)))
	defer srv.Close()
	netm, err := NewNetMirror(srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []Source{fsm, netm} {
		vs, err := s.Versions(ctx, a)
		if err != nil || len(vs) != 2 {
			t.Errorf("%s: versions %v %v", s, vs, err)
		}
		pkg, err := s.Package(ctx, a, vs[0], pluginpkg.Platform{OS: "linux", Arch: "arm64"})
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		var got bytes.Buffer
		if pkg.Download != nil {
			err = pkg.Download(ctx, &got)
		} else {
			var b []byte
			b, err = os.ReadFile(pkg.ZipPath)
			got.Write(b)
		}
		if b, _ := os.ReadFile(filepath.Join(pdir, pluginpkg.FileName(a.Type, pkg.Version, pkg.Platform))); err != nil || !bytes.Equal(got.Bytes(), b) {
			t.Errorf("%s: package %+v: %v", s, pkg, err)
		}
	}
}

func keys[V any](m map[string]V) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, " ")
}
