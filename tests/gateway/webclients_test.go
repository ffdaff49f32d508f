package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/stores/s3store"
	"github.com/zarrgw/zarrgw/tests/support/fixtures"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// Clients that know nothing of Zarr stores or of zarrgw find keys the way
// they do on any static web server: by the directory's index page (issue
// #25). Each backend (the fixtures on the filesystem, and uploaded to S3,
// versitygw) gets one gateway with two datasets: "fx", readable by anyone,
// and "priv", the fixtures' zarrs/ readable by one bearer-token principal.

// webSubtrees are the fixture directories the clients read: all that is
// uploaded to S3.
var webSubtrees = []string{
	"zarrs/v2",                     // GDAL: v2 arrays, C and F order; the private dataset's prefix
	"zarrs/v3/array_gzip.zarr",     // GDAL: a zarrs v3 array
	"zarr_implementations/z5py.zr", // GDAL: the astronaut in a z5py group; wget: its array
	"zarrita-js/v2/data.zarr",      // rclone, fsspec find: a group with arrays and a subgroup named with spaces
	"zarr-python-v2/fixture",       // zarr-python: a group without .zmetadata, of arrays and groups
}

const (
	webOwnerToken = "webclients-owner-token"
	webPrivPrefix = "zarrs" // the private dataset's prefix in the fixtures
)

func TestWebClients(t *testing.T) {
	fx := fixtures.Dir(t)
	for _, backend := range []string{"fs", "s3"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			var s *server
			switch backend {
			case "fs":
				s = startWebGateway(t, fmt.Sprintf("store \"fs\" \"fx\" {\n  root = %q\n}\n", fx), "store.fs.fx")
			case "s3":
				srv := servers.StartS3(t)
				bucket := srv.NewBucket(t)
				uploadFixtures(t, srv, bucket, fx, webSubtrees)
				s = startWebGateway(t, fmt.Sprintf("store \"s3\" \"fx\" {\n  bucket = %q\n}\n", bucket), "store.s3.fx",
					"AWS_ENDPOINT_URL="+srv.Endpoint, "AWS_ACCESS_KEY_ID="+srv.AccessKey,
					"AWS_SECRET_ACCESS_KEY="+srv.SecretKey, "AWS_REGION="+srv.Region)
			}
			t.Run("GDAL", func(t *testing.T) { checkGDAL(t, s, fx) })
			t.Run("rclone", func(t *testing.T) { checkRclone(t, s, fx) })
			t.Run("fsspec", func(t *testing.T) { checkFsspec(t, s, fx) })
			t.Run("wget", func(t *testing.T) { checkWget(t, s, fx) })
			t.Run("private", func(t *testing.T) { checkPrivate(t, s, fx) })
		})
	}
}

// startWebGateway serves the datasets "fx" and "priv" over the store
// declared by storeBlock (named ref).
func startWebGateway(t *testing.T, storeBlock, ref string, env ...string) *server {
	t.Helper()
	return startServer(t, fmt.Sprintf(`%s
principal "owner" {
  token_sha256 = %q
}
dataset "fx" {
  store     = %s
  read_only = true
}
dataset "priv" {
  store     = %s
  prefix    = %q
  read_only = true
  access {
    read = ["owner"]
  }
}
`, storeBlock, sha256Hex(webOwnerToken), ref, ref, webPrivPrefix), env...)
}

// uploadFixtures copies every file below the fixture subtrees into the
// bucket, under the same keys, through zarrgw's own S3 store.
func uploadFixtures(t *testing.T, srv *servers.S3, bucket, fx string, subtrees []string) {
	t.Helper()
	ctx := context.Background()
	st, err := s3store.New(ctx, s3store.Config{Bucket: bucket, Endpoint: srv.Endpoint, Region: srv.Region,
		AccessKeyID: srv.AccessKey, SecretAccessKey: srv.SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, sub := range subtrees {
		for rel := range fixtureFiles(t, filepath.Join(fx, sub)) {
			keys = append(keys, sub+"/"+rel)
		}
	}
	work := make(chan string)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for range 16 {
		wg.Go(func() {
			for key := range work {
				b, err := os.ReadFile(filepath.Join(fx, filepath.FromSlash(key)))
				if err == nil {
					_, err = st.Set(ctx, key, b, store.Condition{})
				}
				if err != nil {
					mu.Lock()
					if first == nil {
						first = fmt.Errorf("upload %s: %w", key, err)
					}
					mu.Unlock()
				}
			}
		})
	}
	for _, k := range keys {
		work <- k
	}
	close(work)
	wg.Wait()
	if first != nil {
		t.Fatal(first)
	}
}

// fixtureFiles maps the relative (slash) path of every regular file below
// dir to its SHA-256.
func fixtureFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err == nil {
			files[filepath.ToSlash(rel)] = sha256File(t, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no files below %s", dir)
	}
	return files
}

// compareFiles reports every file missing from got, extra in it, or with
// other bytes than in want (both from fixtureFiles).
func compareFiles(t *testing.T, what string, want, got map[string]string) {
	t.Helper()
	var missing, extra, differ []string
	for rel, sum := range want {
		switch g, ok := got[rel]; {
		case !ok:
			missing = append(missing, rel)
		case g != sum:
			differ = append(differ, rel)
		}
	}
	for rel := range got {
		if _, ok := want[rel]; !ok {
			extra = append(extra, rel)
		}
	}
	for _, l := range [][]string{missing, extra, differ} {
		sort.Strings(l)
	}
	if len(missing)+len(extra)+len(differ) > 0 {
		t.Errorf("%s: %d files of %d as the fixture; missing %d %.600q; extra %d %.600q; other bytes %d %.600q",
			what, len(got)-len(extra)-len(differ), len(want), len(missing), missing, len(extra), extra, len(differ), differ)
	}
}

// requireTool ends the test (failing under CI=true, else skipping loudly)
// when a Debian client is not installed.
func requireTool(t *testing.T, path, pkg string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		servers.Unavailable(t, "%s is missing (%v): install Debian's %s (apt-get install %s; scripts/setup.sh)", path, err, pkg, pkg)
	}
}

// requirePython ends the test like requireTool unless Debian's python3
// imports every module.
func requirePython(t *testing.T, pkgs string, modules ...string) {
	t.Helper()
	requireTool(t, python, "python3")
	out, err := exec.Command(python, "-c", "import "+strings.Join(modules, ", ")).CombinedOutput()
	if err != nil {
		servers.Unavailable(t, "%s cannot import %s: %v %s: install Debian's %s (scripts/setup.sh)", python, strings.Join(modules, ", "), err, bytes.TrimSpace(out), pkgs)
	}
}

// clientEnv is the environment of a client process: the test's, with
// loopback kept away from any proxy, and HOME and caches in dir.
func clientEnv(dir string) []string {
	return append(os.Environ(), "NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
		"HOME="+dir, "XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"))
}

// runClient runs a client to its end and fails the test, with its output,
// if it exits other than with 0.
func runClient(t *testing.T, env []string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %q: %v\nstdout:\n%.3000s\nstderr:\n%.5000s", name, args, err, stdout.String(), stderr.String())
	}
	return stderr.String()
}

// dirURL is the key API URL of a fixture directory in the dataset "fx",
// each segment escaped.
func dirURL(s *server, rel string) string {
	segs := strings.Split(rel, "/")
	for i, seg := range segs {
		segs[i] = url.PathEscape(seg)
	}
	return s.url + "/d/fx/" + strings.Join(segs, "/")
}

// GDAL 3.6 (Debian's python3-gdal), its multidimensional Zarr driver
// through /vsicurl/ with nothing cached between opens and no retries:
// each array opens by its directory's URL (GDAL lists it from the index
// page), reads every element equal to the fixture's expected hash, and
// gdal.ReadDir of the directory names exactly its files. GDAL 3.6 reads
// Zarr v2 and not v3 as published (zarr.json, GDAL 3.8): zarrs's v3
// arrays carry .zarray beside zarr.json over the same chunks, which is
// what it reads of the v3 one.
func checkGDAL(t *testing.T, s *server, fx string) {
	requirePython(t, "python3-gdal (with gdal-bin)", "osgeo.gdal", "numpy")
	type arr struct{ dir, array, path string }
	arrays := []arr{
		{"zarrs/v2/array_gzip_C.zarr", "array_gzip_C", ""},
		{"zarrs/v2/array_blosc_C.zarr", "array_blosc_C", ""},
		{"zarrs/v2/array_none_C.zarr", "array_none_C", ""},
		{"zarrs/v2/array_none_F.zarr", "array_none_F", ""},
		{"zarrs/v3/array_gzip.zarr", "array_gzip", ""},
		{"zarr_implementations/z5py.zr", "zlib", "zarr_implementations/z5py.zr/zlib"}, // the group, by its URL
		{"zarr_implementations/z5py.zr/zlib", "zlib", ""},
	}
	var manifest []map[string]string
	for i, a := range arrays {
		if a.path == "" {
			arrays[i].path = a.dir
		}
		manifest = append(manifest, map[string]string{"path": arrays[i].path, "url": "/vsicurl/" + dirURL(s, a.dir), "array": a.array})
	}
	var out struct {
		Arrays []struct {
			Path    string
			SHA256  string
			Shape   []int
			DType   string
			Names   []string
			ReadDir []string
			Error   string
		}
	}
	runJSON(t, python, []string{"py/webclients_read.py"}, map[string]any{
		"mode": "gdal",
		"env": map[string]string{
			"GDAL_HTTP_MAX_RETRY":          "0",
			"GDAL_HTTP_TIMEOUT":            "30",
			"VSI_CACHE":                    "FALSE",
			"GDAL_DISABLE_READDIR_ON_OPEN": "NO", // list the directory: the index page is what is tested
			"CPL_VSIL_CURL_NON_CACHED":     "/vsicurl/",
			"NO_PROXY":                     "127.0.0.1,localhost",
			"no_proxy":                     "127.0.0.1,localhost",
		},
		"arrays": manifest,
	}, &out)
	if len(out.Arrays) != len(arrays) {
		t.Fatalf("GDAL reported %d arrays, asked %d", len(out.Arrays), len(arrays))
	}
	for i, r := range out.Arrays {
		a := arrays[i]
		if r.Error != "" {
			t.Errorf("GDAL %s: %s", a.dir, r.Error)
			continue
		}
		exp := fixtures.Array(t, a.path)
		if r.SHA256 != exp.Expect.SHA256 || !slices.Equal(r.Shape, exp.Shape) {
			t.Errorf("GDAL %s: %s %v sha256 %s; the fixture is %v sha256 %s", a.dir, r.DType, r.Shape, r.SHA256, exp.Shape, exp.Expect.SHA256)
		}
		var want []string
		entries, err := os.ReadDir(filepath.Join(fx, a.dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			want = append(want, e.Name())
		}
		sort.Strings(want)
		if !slices.Equal(r.ReadDir, want) {
			t.Errorf("GDAL ReadDir(%s) = %q; the fixture directory holds %q", a.dir, r.ReadDir, want)
		}
	}
}

// rclone's http backend (Debian's rclone 1.60) copies a group with arrays
// and a subgroup named with spaces: the same files, byte for byte.
func checkRclone(t *testing.T, s *server, fx string) {
	const rclone = "/usr/bin/rclone"
	requireTool(t, rclone, "rclone")
	const sub = "zarrita-js/v2/data.zarr"
	tmp := t.TempDir()
	dst := filepath.Join(tmp, "copy")
	env := append(clientEnv(tmp), "RCLONE_CONFIG="+filepath.Join(tmp, "rclone.conf")) // none: the remote is on the command line
	runClient(t, env, rclone, "copy", "--http-url", dirURL(s, sub)+"/", ":http:", dst,
		"--retries", "1", "--low-level-retries", "1", "--stats", "0")
	compareFiles(t, "rclone copy of "+sub, fixtureFiles(t, filepath.Join(fx, sub)), fixtureFiles(t, dst))
}

// fsspec's HTTPFileSystem (Debian's python3-fsspec with python3-aiohttp)
// finds every key below a group and reads each byte-equal; zarr-python 2
// (Debian's python3-zarr 2.13) opens a group without .zmetadata by its
// URL, names its arrays and groups from the index page and reads every
// array equal to the fixture's expected hash.
func checkFsspec(t *testing.T, s *server, fx string) {
	requirePython(t, "python3-fsspec python3-aiohttp python3-zarr", "fsspec", "aiohttp", "zarr", "numpy")
	const findDir, groupDir = "zarrita-js/v2/data.zarr", "zarr-python-v2/fixture"
	if _, err := os.Stat(filepath.Join(fx, groupDir, ".zmetadata")); err == nil {
		t.Fatalf("%s has a .zmetadata: pick a group without one", groupDir)
	}
	var out struct {
		Found     []string
		Cat       map[string]string
		Store     string
		ArrayKeys []string `json:"array_keys"`
		GroupKeys []string `json:"group_keys"`
		Arrays    map[string]struct {
			SHA256 string
			Shape  []int
			Error  string
		}
		ZarrError string `json:"zarr_error"`
	}
	base := dirURL(s, findDir)
	runJSON(t, python, []string{"py/webclients_read.py"}, map[string]any{
		"mode": "fsspec", "find_url": base, "group_url": dirURL(s, groupDir),
		"env": map[string]string{"NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"},
	}, &out)

	// find: every key, by its URL
	want := fixtureFiles(t, filepath.Join(fx, findDir))
	found, read := map[string]string{}, map[string]string{}
	for _, u := range out.Found {
		rel, ok := strings.CutPrefix(u, base+"/")
		if r, err := url.PathUnescape(rel); ok && err == nil {
			rel = r
		} else {
			t.Errorf("fsspec found %q, not below %s", u, base)
			continue
		}
		found[rel] = want[rel] // only the names count here
		if sum, ok := out.Cat[u]; ok {
			read[rel] = sum
		}
	}
	compareFiles(t, "fsspec find("+findDir+")", want, found)
	if len(out.Cat) != len(out.Found) {
		t.Errorf("fsspec cat read %d values of the %d keys found", len(out.Cat), len(out.Found))
	}
	compareFiles(t, "fsspec cat of every key found below "+findDir, want, read)

	// zarr-python: the group's members as on disk, every array as expected
	if out.ZarrError != "" {
		t.Fatalf("zarr.open_group(%s): %s", dirURL(s, groupDir), out.ZarrError)
	}
	exp, err := fixtures.Load(fx)
	if err != nil {
		t.Fatal(err)
	}
	var wantArrays, wantGroups []string
	for _, child := range exp.Groups[groupDir].ChildrenOnDisk {
		if _, ok := exp.Arrays[groupDir+"/"+child]; ok {
			wantArrays = append(wantArrays, child)
		} else {
			wantGroups = append(wantGroups, child)
		}
	}
	sort.Strings(wantArrays)
	sort.Strings(wantGroups)
	if len(wantArrays) == 0 || len(wantGroups) == 0 {
		t.Fatalf("expected.json: %s has arrays %q and groups %q; want some of each", groupDir, wantArrays, wantGroups)
	}
	if out.Store != "FSStore" {
		t.Errorf("zarr.open_group of a URL used %s, not fsspec's FSStore", out.Store)
	}
	if !slices.Equal(out.ArrayKeys, wantArrays) || !slices.Equal(out.GroupKeys, wantGroups) {
		t.Errorf("zarr group %s: arrays %q and groups %q through the gateway; on disk arrays %q and groups %q",
			groupDir, out.ArrayKeys, out.GroupKeys, wantArrays, wantGroups)
	}
	for _, name := range wantArrays {
		e, got := fixtures.Array(t, groupDir+"/"+name), out.Arrays[name]
		switch {
		case got.Error != "":
			t.Errorf("zarr %s/%s: %s", groupDir, name, got.Error)
		case got.SHA256 != e.Expect.SHA256 || !slices.Equal(got.Shape, e.Shape):
			t.Errorf("zarr %s/%s: %v sha256 %s; the fixture is %v sha256 %s", groupDir, name, got.Shape, got.SHA256, e.Shape, e.Expect.SHA256)
		}
	}
}

// wget -r (Debian's wget) below an array's index page: exactly the
// array's files, byte for byte, besides the index pages it is told to
// drop.
func checkWget(t *testing.T, s *server, fx string) {
	const wget = "/usr/bin/wget"
	requireTool(t, wget, "wget")
	const sub = "zarr_implementations/z5py.zr/zlib"
	u := dirURL(s, sub) + "/"
	cut := strings.Count(strings.Trim(path.Clean("/d/fx/"+sub), "/"), "/") + 1 // d, fx and the fixture's directories
	tmp := t.TempDir()
	dst := filepath.Join(tmp, "get")
	runClient(t, clientEnv(tmp), wget, "-r", "-np", "-nH", fmt.Sprintf("--cut-dirs=%d", cut), "-R", "index.html*",
		"-e", "robots=off", "--tries=1", "-nv", "-P", dst, u)
	got := fixtureFiles(t, dst)
	for rel := range got {
		if strings.HasPrefix(path.Base(rel), "index.html") {
			delete(got, rel)
		}
	}
	compareFiles(t, "wget -r "+u, fixtureFiles(t, filepath.Join(fx, sub)), got)
}

// webResponse is one answer of the gateway, redirects not followed.
type webResponse struct {
	status int
	header http.Header
	body   string
}

// webDo sends a request with the headers given in pairs (name, value).
func webDo(t *testing.T, method, u string, header ...string) webResponse {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	return webResponse{resp.StatusCode, resp.Header, string(b)}
}

var hrefRE = regexp.MustCompile(`<a href="([^"]*)">`)

// indexLinks are the targets of an index page's links, unescaped.
func indexLinks(t *testing.T, page string) []string {
	t.Helper()
	var links []string
	for _, m := range hrefRE.FindAllStringSubmatch(page, -1) {
		l, err := url.PathUnescape(html.UnescapeString(m[1]))
		if err != nil {
			t.Errorf("link %q: %v", m[1], err)
		}
		links = append(links, l)
	}
	sort.Strings(links)
	return links
}

// A private dataset tells an anonymous client nothing: its index pages,
// the slash-less form that would redirect to one, and the JSON listing
// are 401 alike for a prefix that exists and one that does not (never a
// 301 that says a prefix exists), and no body names a key of it. With
// the token, the same URLs redirect and list.
func checkPrivate(t *testing.T, s *server, fx string) {
	const sub = "v2" // zarrs/v2 in the fixtures
	priv := s.url + "/d/priv/"
	bearer := []string{"Authorization", "Bearer " + webOwnerToken}
	names := map[string]bool{"array_gzip_C": true, "array_none_F": true} // what the answers might leak
	for rel := range fixtureFiles(t, filepath.Join(fx, webPrivPrefix, sub)) {
		for _, seg := range strings.Split(rel, "/") {
			if len(seg) > 3 { // chunk names like "0.0" occur in any text
				names[seg] = true
			}
		}
	}
	absent := webDo(t, http.MethodGet, priv+"no-such-prefix/")
	leaks := func(what string, r webResponse) {
		t.Helper()
		for n := range names {
			if strings.Contains(r.body, n) || strings.Contains(fmt.Sprint(r.header), n) {
				t.Errorf("%s names %q: %.300q %v", what, n, r.body, r.header)
			}
		}
	}
	for _, u := range []string{s.url + "/d/priv", priv, priv + sub + "/", priv + sub, priv + sub + "/array_gzip_C.zarr/",
		priv + sub + "/array_gzip_C.zarr", priv + "no-such-prefix", priv + "no-such-prefix/"} {
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			what := "anonymous " + method + " " + strings.TrimPrefix(u, s.url)
			r := webDo(t, method, u)
			if r.status != http.StatusUnauthorized || r.header.Get("Location") != "" {
				t.Errorf("%s: %d (Location %q), want 401 and no redirect; body %.300q", what, r.status, r.header.Get("Location"), r.body)
			}
			if method == http.MethodGet && r.body != absent.body {
				t.Errorf("%s answers %.300q, a missing prefix %.300q: the difference tells what exists", what, r.body, absent.body)
			}
			leaks(what, r)
		}
	}
	for what, r := range map[string]webResponse{
		"GET /d/priv/v2/ with a wrong token":    webDo(t, http.MethodGet, priv+sub+"/", "Authorization", "Bearer wrong-token"),
		"anonymous JSON listing of /d/priv/v2/": webDo(t, http.MethodGet, priv+sub+"/", "Accept", "application/json"),
		"anonymous listing /d/priv/?prefix=v2/": webDo(t, http.MethodGet, priv+"?prefix="+sub+"/"),
	} {
		if r.status != http.StatusUnauthorized {
			t.Errorf("%s: %d %.300q, want 401", what, r.status, r.body)
		}
		leaks(what, r)
	}

	// with the token: the redirect, and the index pages list
	if r := webDo(t, http.MethodGet, priv+sub, bearer...); r.status != http.StatusMovedPermanently || r.header.Get("Location") != "/d/priv/"+sub+"/" {
		t.Errorf("GET /d/priv/%s with the token: %d Location %q, want 301 to %q", sub, r.status, r.header.Get("Location"), "/d/priv/"+sub+"/")
	}
	for _, p := range []string{"", sub + "/", sub + "/array_gzip_C.zarr/"} {
		r := webDo(t, http.MethodGet, priv+p, bearer...)
		entries, err := os.ReadDir(filepath.Join(fx, webPrivPrefix, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, e := range entries {
			if e.IsDir() {
				want = append(want, e.Name()+"/")
			} else {
				want = append(want, e.Name())
			}
		}
		sort.Strings(want)
		if p == "" { // on S3 only the uploaded subtrees are there
			want = slices.DeleteFunc(want, func(n string) bool { return n != "v2/" && n != "v3/" })
			got := slices.DeleteFunc(indexLinks(t, r.body), func(n string) bool { return n != "v2/" && n != "v3/" })
			if r.status != http.StatusOK || !slices.Equal(got, want) {
				t.Errorf("GET /d/priv/ with the token: %d, links %q, want %q among them; body %.500q", r.status, got, want, r.body)
			}
			continue
		}
		if got := indexLinks(t, r.body); r.status != http.StatusOK || !slices.Equal(got, want) {
			t.Errorf("GET /d/priv/%s with the token: %d, links %q, want %q; body %.500q", p, r.status, got, want, r.body)
		}
	}
	if r := webDo(t, http.MethodGet, priv+"no-such-prefix/", bearer...); r.status != http.StatusNotFound {
		t.Errorf("GET /d/priv/no-such-prefix/ with the token: %d, want 404", r.status)
	}
}

// oddNames are keys whose names an index page must encode for every
// client: a colon (a scheme, unless encoded), "&" (an HTML entity, which
// fsspec's link regex does not decode), "%", "+", "#", "?", spaces and
// non-ASCII letters.
var oddNames = []string{"g/co:lon/a:b", "g/amp&x/k&1", "g/pct%41/k", "g/plus+/k+1", "g/hash#/k?q", "g/sp ace/k 1", "g/grüße/λ"}

// rclone's http backend and fsspec's find copy and list keys with odd
// names exactly, through the index pages' links.
func TestWebClientsOddNames(t *testing.T) {
	root := t.TempDir()
	for _, k := range oddNames {
		p := filepath.Join(root, "odd", filepath.FromSlash(k))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("value of "+k), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := startServer(t, fmt.Sprintf("store \"fs\" \"odd\" {\n  root = %q\n}\ndataset \"odd\" {\n  store     = store.fs.odd\n  prefix    = \"odd\"\n  read_only = true\n}\n", root))
	want := fixtureFiles(t, filepath.Join(root, "odd"))

	t.Run("rclone", func(t *testing.T) {
		const rclone = "/usr/bin/rclone"
		requireTool(t, rclone, "rclone")
		tmp := t.TempDir()
		dst := filepath.Join(tmp, "copy")
		env := append(clientEnv(tmp), "RCLONE_CONFIG="+filepath.Join(tmp, "rclone.conf"))
		runClient(t, env, rclone, "copy", "--http-url", s.url+"/d/odd/", ":http:", dst,
			"--retries", "1", "--low-level-retries", "1", "--stats", "0")
		compareFiles(t, "rclone copy of keys with odd names", want, fixtureFiles(t, dst))
	})
	t.Run("fsspec", func(t *testing.T) {
		requirePython(t, "python3-fsspec python3-aiohttp", "fsspec", "aiohttp")
		tmp := t.TempDir()
		script := `import fsspec, hashlib, json, sys, urllib.parse
base = sys.argv[1]
fs = fsspec.filesystem("http")
out = {}
for u in fs.find(base):
    out[urllib.parse.unquote(u[len(base):])] = hashlib.sha256(fs.cat(u)).hexdigest()
print(json.dumps(out))
`
		cmd := exec.Command(python, "-c", script, s.url+"/d/odd/")
		cmd.Env = clientEnv(tmp)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		stdout, err := cmd.Output()
		if err != nil {
			t.Fatalf("fsspec find: %v\n%s", err, stderr.String())
		}
		got := map[string]string{}
		if err := json.Unmarshal(stdout, &got); err != nil {
			t.Fatalf("fsspec find printed %q: %v", stdout, err)
		}
		compareFiles(t, "fsspec find and cat of keys with odd names", want, got)
	})
}
