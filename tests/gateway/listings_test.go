package gateway

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"golang.org/x/net/html"

	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// Issue #25, "what it must show": every way the gateway lists a dataset
// (S3's ListObjectsV2, the key API's JSON ?list, the index pages of its
// directories) names the keys a GET serves, with the size, ETag and
// Last-Modified that HEAD and GET give, the consolidated root document it
// builds included (a v3 zarr.json with the hierarchy inline, a v2
// .zmetadata the store does not hold); aws s3 sync and rclone check agree
// with it; and a prefix of 100 000 keys lists completely through its index
// page and its JSON pages without the gateway's memory growing with it.

// The test principal's bearer token (the key API) and S3 key ID (the S3
// API); its S3 secret is made up for each gateway.
const (
	listingsToken  = "listings-token"
	listingsKeyID  = "ZARRGWLISTINGS"
	listingsRegion = "us-east-1"
)

// listingsDataset is a dataset of the test principal: the fs store over
// root, below prefix.
type listingsDataset struct {
	name, root, prefix string
	consolidated       bool
}

// listingsGateway is a `zarrgw serve` (startServer's) with an S3 listener
// and one principal that may read every dataset.
type listingsGateway struct {
	*server
	secret string
	dirs   map[string]string // a dataset's directory on disk
}

// startListingsGateway serves datasets, each over an fs store of its own,
// read-only, readable by the principal through both APIs.
func startListingsGateway(t *testing.T, datasets ...listingsDataset) *listingsGateway {
	t.Helper()
	secret := make([]byte, 20)
	rand.Read(secret)
	g := &listingsGateway{secret: hex.EncodeToString(secret), dirs: map[string]string{}}
	sum := sha256.Sum256([]byte(listingsToken))
	var c strings.Builder
	fmt.Fprintf(&c, `variable "s3_secret" {
  env = "ZARRGW_LISTINGS_S3_SECRET"
}
principal "tester" {
  token_sha256         = %q
  s3_access_key_id     = %q
  s3_secret_access_key = var.s3_secret
}
server {
  listen = "127.0.0.1:0"
  s3 {
    listen = "127.0.0.1:0"
    region = %q
  }
}
`, hex.EncodeToString(sum[:]), listingsKeyID, listingsRegion)
	for i, d := range datasets {
		fmt.Fprintf(&c, `store "fs" "s%d" {
  root = %q
}
dataset %q {
  store        = store.fs.s%d
  prefix       = %q
  read_only    = true
  consolidated = %t
  access {
    read = ["tester"]
  }
}
`, i, d.root, d.name, i, d.prefix, d.consolidated)
		g.dirs[d.name] = filepath.Join(d.root, filepath.FromSlash(d.prefix))
	}
	g.server = startServer(t, c.String(), "ZARRGW_LISTINGS_S3_SECRET="+g.secret)
	if g.s3url == "" {
		t.Fatalf("the gateway announced no S3 listener; its log:\n%s", g.log)
	}
	return g
}

// listingsClient reads the key API as a client of a static web server
// would, but shows what the server sent: no redirect followed, no
// transparent decompression.
var listingsClient = &http.Client{
	Transport:     &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 4},
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	Timeout:       2 * time.Minute,
}

// request sends a request of the key API with the principal's token; path
// is escaped, with its query. header holds name, value pairs.
func (g *listingsGateway) request(t *testing.T, method, path string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, g.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+listingsToken)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := listingsClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, path, err)
	}
	return resp, body
}

// listingsKeyPath is a key's path in the key API, each segment escaped.
func listingsKeyPath(ds, key string) string {
	segs := strings.Split(key, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return "/d/" + ds + "/" + strings.Join(segs, "/")
}

// s3 is an SDK client of the S3 API signing as the principal.
func (g *listingsGateway) s3() *s3.Client {
	return s3.New(s3.Options{
		Region:       listingsRegion,
		BaseEndpoint: aws.String(g.s3url),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(listingsKeyID, g.secret, ""),
	})
}

// listingsObject is a key as ListObjectsV2 lists it.
type listingsObject struct {
	Key  string
	Size int64
	ETag string
	Mod  time.Time
}

func (o listingsObject) same(p listingsObject) bool {
	return o.Key == p.Key && o.Size == p.Size && o.ETag == p.ETag && o.Mod.Equal(p.Mod)
}

// s3List pages through ListObjectsV2 of bucket below prefix, max keys a
// page, and returns its objects and common prefixes in the order listed.
func (g *listingsGateway) s3List(t *testing.T, bucket, prefix, delimiter string, maxKeys int32) ([]listingsObject, []string) {
	t.Helper()
	return g.s3ListAfter(t, bucket, prefix, delimiter, "", maxKeys)
}

// s3ListAfter is s3List from the first key after startAfter.
func (g *listingsGateway) s3ListAfter(t *testing.T, bucket, prefix, delimiter, startAfter string, maxKeys int32) ([]listingsObject, []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	in := &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String(prefix), MaxKeys: aws.Int32(maxKeys)}
	if delimiter != "" {
		in.Delimiter = aws.String(delimiter)
	}
	if startAfter != "" {
		in.StartAfter = aws.String(startAfter)
	}
	var objects []listingsObject
	var prefixes []string
	p := s3.NewListObjectsV2Paginator(g.s3(), in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatalf("ListObjectsV2 of %s (prefix %q, delimiter %q, start-after %q, max-keys %d): %v", bucket, prefix, delimiter, startAfter, maxKeys, err)
		}
		if n := len(page.Contents) + len(page.CommonPrefixes); n > int(maxKeys) {
			t.Errorf("ListObjectsV2 of %s with max-keys %d: a page of %d", bucket, maxKeys, n)
		}
		for _, o := range page.Contents {
			objects = append(objects, listingsObject{Key: aws.ToString(o.Key), Size: aws.ToInt64(o.Size), ETag: aws.ToString(o.ETag), Mod: aws.ToTime(o.LastModified)})
		}
		for _, cp := range page.CommonPrefixes {
			prefixes = append(prefixes, aws.ToString(cp.Prefix))
		}
	}
	return objects, prefixes
}

// listingsPage is a page of the key API's JSON listing.
type listingsPage struct {
	Keys          []string `json:"keys"`
	Prefixes      []string `json:"prefixes"`
	NextPageToken *string  `json:"next_page_token"`
}

// jsonList pages through the key API's JSON listing at path: the first
// page with query (none when empty), each next one with query and the
// page_token the page before gave (and nextQuery in place of query, if
// given); with accept, every request asks for application/json. It
// returns the keys and prefixes in the order listed and the number of
// pages.
func (g *listingsGateway) jsonList(t *testing.T, path, query string, accept bool, nextQuery ...string) (keys, prefixes []string, pages int) {
	t.Helper()
	var header []string
	if accept {
		header = []string{"Accept", "application/json"}
	}
	target := path
	if query != "" {
		target += "?" + query
	}
	seen := map[string]bool{}
	for {
		resp, body := g.request(t, http.MethodGet, target, header...)
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			t.Fatalf("GET %s: %d %s\n%.300s", target, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		var page listingsPage
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatalf("GET %s: %v\n%.300s", target, err, body)
		}
		pages++
		keys = append(keys, page.Keys...)
		prefixes = append(prefixes, page.Prefixes...)
		if page.NextPageToken == nil {
			return keys, prefixes, pages
		}
		tok := *page.NextPageToken
		if seen[tok] || len(page.Keys)+len(page.Prefixes) == 0 {
			t.Fatalf("GET %s: page %d lists %d names and gives page_token %q again or for nothing", target, pages, len(page.Keys)+len(page.Prefixes), tok)
		}
		seen[tok] = true
		target = path + "?"
		if len(nextQuery) > 0 {
			query = nextQuery[0]
		}
		if query != "" {
			target += query + "&"
		}
		target += "page_token=" + url.QueryEscape(tok)
	}
}

// listingsIndexLinks reads an index page's links, resolved against the
// page's URL as a client that follows them resolves them: each must name
// a child of the page's directory (a key, or a prefix ending in "/"),
// which it returns in page order, unescaped.
func listingsIndexLinks(t *testing.T, pageURL string, page []byte) []string {
	t.Helper()
	base, err := url.Parse(pageURL)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	z := html.NewTokenizer(bytes.NewReader(page))
	for {
		switch z.Next() {
		case html.ErrorToken:
			if z.Err() != io.EOF {
				t.Fatalf("%s: %v", pageURL, z.Err())
			}
			return names
		case html.StartTagToken:
			name, hasAttr := z.TagName()
			if string(name) != "a" {
				continue
			}
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				if string(k) != "href" {
					continue
				}
				ref, err := url.Parse(string(v))
				if err != nil {
					t.Fatalf("%s: link %q: %v", pageURL, v, err)
				}
				abs := base.ResolveReference(ref)
				child, ok := strings.CutPrefix(abs.Path, base.Path)
				if abs.Host != base.Host || !ok || child == "" || strings.Contains(strings.TrimSuffix(child, "/"), "/") || abs.RawQuery != "" {
					t.Errorf("%s: link %q leads to %s, not to a child of the directory", pageURL, v, abs)
					continue
				}
				names = append(names, child)
			}
		}
	}
}

// listingsDir is one directory as its index page lists it: the full keys
// and the full prefixes ("/"-ended) directly below it.
type listingsDir struct{ keys, prefixes []string }

// walkIndex follows the index pages of a dataset from its top, as wget -r
// or GDAL's /vsicurl/ would: every directory's page, by the links the
// pages hold. It returns the pages by directory ("" for the top).
func (g *listingsGateway) walkIndex(t *testing.T, ds string) map[string]listingsDir {
	t.Helper()
	dirs := map[string]listingsDir{}
	queue := []string{""}
	for len(queue) > 0 {
		dir := queue[0]
		queue = queue[1:]
		path := listingsKeyPath(ds, dir)
		resp, body := g.request(t, http.MethodGet, path)
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			t.Fatalf("GET %s: %d %s, want its index page\n%.300s", path, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		var d listingsDir
		for _, name := range listingsIndexLinks(t, g.url+path, body) {
			if strings.HasSuffix(name, "/") {
				d.prefixes = append(d.prefixes, dir+name)
				queue = append(queue, dir+name)
			} else {
				d.keys = append(d.keys, dir+name)
			}
		}
		dirs[dir] = d
	}
	return dirs
}

// listingsMakeSamples writes examples/mksample's v3 and v2 samples below
// dir, as `make run` does.
func listingsMakeSamples(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{{filepath.Join(dir, "sample.zarr")}, {"-format", "2", filepath.Join(dir, "sample_v2.zarr")}} {
		if out, err := exec.Command("go", append([]string{"run", "../../examples/mksample"}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("mksample %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// listingsSamples are the two samples, declared as examples/gateway
// declares them: consolidated metadata served on the fly.
var listingsSamples = []struct {
	name, prefix string
	root         string // the root document the gateway builds
}{
	{"sample", "sample.zarr", "zarr.json"},
	{"sample-v2", "sample_v2.zarr", ".zmetadata"},
}

// The samples of examples/mksample (v3 and v2), consolidated = true, as
// S3 clients, the key API and a static-web-server client each list and
// read them. Subtests:
//
//   - agree: ListObjectsV2 (at several page sizes), HeadObject, GetObject,
//     the key API's HEAD, GET, JSON ?list (paged) and index pages say the
//     same keys, sizes, ETags and times, the built root document included;
//     every key the index pages lead to GETs 200 and every key a GET serves
//     is listed; a directory without its slash redirects to its page.
//   - aws-sync: aws s3 sync twice: the second downloads nothing, and the
//     copy holds what GET serves.
//   - rclone-check: rclone copy, then rclone check: 0 differences.
func TestListingsConsolidated(t *testing.T) {
	data := t.TempDir()
	listingsMakeSamples(t, data)
	var datasets []listingsDataset
	for _, s := range listingsSamples {
		datasets = append(datasets, listingsDataset{name: s.name, root: data, prefix: s.prefix, consolidated: true})
	}
	g := startListingsGateway(t, datasets...)
	for _, s := range listingsSamples {
		t.Run("agree/"+s.name, func(t *testing.T) { g.checkAgree(t, s.name, s.root) })
	}
	for _, s := range listingsSamples {
		t.Run("aws-sync/"+s.name, func(t *testing.T) { g.checkAWSSync(t, s.name, s.root) })
	}
	for _, s := range listingsSamples {
		t.Run("rclone-check/"+s.name, func(t *testing.T) { g.checkRclone(t, s.name, s.root) })
	}
}

// checkAgree checks that every listing of ds and every read of its keys
// say the same; root is the document the gateway builds.
func (g *listingsGateway) checkAgree(t *testing.T, ds, root string) {
	// S3's listing, whole and at page sizes that end a page at each key,
	// the built document among them
	objects, _ := g.s3List(t, ds, "", "", 1000)
	if len(objects) == 0 {
		t.Fatalf("ListObjectsV2 of %s lists nothing", ds)
	}
	listed := map[string]listingsObject{}
	var keys []string
	for _, o := range objects {
		if _, dup := listed[o.Key]; dup {
			t.Errorf("ListObjectsV2 of %s lists %s twice", ds, o.Key)
		}
		listed[o.Key] = o
		keys = append(keys, o.Key)
	}
	if !slices.IsSorted(keys) {
		t.Errorf("ListObjectsV2 of %s lists out of order: %q", ds, keys)
	}
	for _, size := range []int32{1, 2, 3} {
		if paged, _ := g.s3List(t, ds, "", "", size); !slices.EqualFunc(paged, objects, listingsObject.same) {
			t.Errorf("ListObjectsV2 of %s, %d keys a page:\n%v\nall in one page:\n%v", ds, size, paged, objects)
		}
	}
	rootObj, ok := listed[root]
	if !ok {
		t.Errorf("ListObjectsV2 of %s does not list %s, the root document the gateway serves", ds, root)
	}
	// a listing from after each key lists the rest; a listing below each
	// prefix of a name at the top (".", ".z", ".zm", ...) lists the keys
	// that start with it
	for i, o := range objects {
		if rest, _ := g.s3ListAfter(t, ds, "", "", o.Key, 2); !slices.EqualFunc(rest, objects[i+1:], listingsObject.same) {
			t.Errorf("ListObjectsV2 of %s from after %s:\n%v\nwant\n%v", ds, o.Key, rest, objects[i+1:])
		}
	}
	prefixes := map[string]bool{}
	for _, k := range keys {
		top, _, _ := strings.Cut(k, "/")
		for n := 1; n <= len(top); n++ {
			prefixes[top[:n]] = true
		}
	}
	for p := range prefixes {
		var want []listingsObject
		for _, o := range objects {
			if strings.HasPrefix(o.Key, p) {
				want = append(want, o)
			}
		}
		if got, _ := g.s3List(t, ds, p, "", 1); !slices.EqualFunc(got, want, listingsObject.same) {
			t.Errorf("ListObjectsV2 of %s below %q, a key a page:\n%v\nwant\n%v", ds, p, got, want)
		}
	}

	// each key: HEAD and GET of both APIs against the listing
	c := g.s3()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	bodies := map[string][]byte{}
	for _, o := range objects {
		what := ds + "/" + o.Key
		head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(ds), Key: aws.String(o.Key)})
		if err != nil {
			t.Errorf("HeadObject %s: %v", what, err)
			continue
		}
		if n := aws.ToInt64(head.ContentLength); n != o.Size {
			t.Errorf("%s: HeadObject's Content-Length %d, ListObjectsV2's Size %d", what, n, o.Size)
		}
		if tag := aws.ToString(head.ETag); tag != o.ETag {
			t.Errorf("%s: HeadObject's ETag %s, ListObjectsV2's %s", what, tag, o.ETag)
		}
		if mod := aws.ToTime(head.LastModified); !mod.Equal(o.Mod.Truncate(time.Second)) {
			t.Errorf("%s: HeadObject's Last-Modified %s, ListObjectsV2's LastModified %s", what, mod.UTC(), o.Mod.UTC())
		}
		get, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(ds), Key: aws.String(o.Key)})
		if err != nil {
			t.Errorf("GetObject %s: %v", what, err)
			continue
		}
		body, err := io.ReadAll(get.Body)
		get.Body.Close()
		if err != nil {
			t.Errorf("GetObject %s: %v", what, err)
			continue
		}
		if int64(len(body)) != o.Size {
			t.Errorf("%s: GetObject serves %d bytes, ListObjectsV2 lists %d", what, len(body), o.Size)
		}
		if tag := aws.ToString(get.ETag); tag != o.ETag {
			t.Errorf("%s: GetObject's ETag %s, ListObjectsV2's %s", what, tag, o.ETag)
		}
		bodies[o.Key] = body

		path := listingsKeyPath(ds, o.Key)
		resp, _ := g.request(t, http.MethodHead, path)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("HEAD %s: %d", path, resp.StatusCode)
			continue
		}
		if n := resp.Header.Get("Content-Length"); n != strconv.FormatInt(o.Size, 10) {
			t.Errorf("HEAD %s: Content-Length %s, ListObjectsV2's Size %d", path, n, o.Size)
		}
		if tag := resp.Header.Get("ETag"); tag != o.ETag {
			t.Errorf("HEAD %s: ETag %s, ListObjectsV2's %s", path, tag, o.ETag)
		}
		if mod, err := http.ParseTime(resp.Header.Get("Last-Modified")); err != nil || !mod.Equal(o.Mod.Truncate(time.Second)) {
			t.Errorf("HEAD %s: Last-Modified %q, ListObjectsV2's LastModified %s", path, resp.Header.Get("Last-Modified"), o.Mod.UTC())
		}
		resp, got := g.request(t, http.MethodGet, path)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d", path, resp.StatusCode)
			continue
		}
		if int64(len(got)) != o.Size || resp.ContentLength != o.Size {
			t.Errorf("GET %s: %d bytes (Content-Length %d), ListObjectsV2's Size %d", path, len(got), resp.ContentLength, o.Size)
		}
		if tag := resp.Header.Get("ETag"); tag != o.ETag {
			t.Errorf("GET %s: ETag %s, ListObjectsV2's %s", path, tag, o.ETag)
		}
		if !bytes.Equal(got, body) {
			t.Errorf("GET %s and GetObject serve different bytes", path)
		}
	}
	if ok {
		t.Logf("%s: %s listed and served as %d bytes, ETag %s, Last-Modified %s", ds, root, rootObj.Size, rootObj.ETag, rootObj.Mod.UTC().Format(time.RFC3339))
		listingsCheckBuiltRoot(t, g.dirs[ds], root, bodies[root])
	}

	// the key API's JSON listing, whole and paged, lists the same keys
	for _, size := range []int{1, 2, 3, 1000} {
		got, prefixes, pages := g.jsonList(t, "/d/"+ds+"/", "list&max_keys="+strconv.Itoa(size), false)
		if !slices.Equal(got, keys) || len(prefixes) != 0 {
			t.Errorf("GET /d/%s/?list, %d keys a page (%d pages): %q and prefixes %q; ListObjectsV2 lists %q", ds, size, pages, got, prefixes, keys)
		}
	}

	// the index pages: each directory's page lists what the directory's
	// JSON listing (Accept: application/json, paged) and ListObjectsV2
	// with a delimiter list; every key they lead to is one S3 lists
	dirs := g.walkIndex(t, ds)
	var fromPages []string
	for dir, d := range dirs {
		fromPages = append(fromPages, d.keys...)
		for _, query := range []string{"", "max_keys=1"} {
			jk, jp, _ := g.jsonList(t, listingsKeyPath(ds, dir), query, true)
			if !slices.Equal(jk, listingsSorted(d.keys)) || !slices.Equal(jp, listingsSorted(d.prefixes)) {
				t.Errorf("%s/%s: the index page lists keys %q and prefixes %q; its JSON listing (Accept: application/json, ?%s) keys %q and prefixes %q",
					ds, dir, d.keys, d.prefixes, query, jk, jp)
			}
		}
		for _, size := range []int32{1, 1000} {
			so, sp := g.s3List(t, ds, dir, "/", size)
			var sk []string
			for _, o := range so {
				sk = append(sk, o.Key)
				if !o.same(listed[o.Key]) {
					t.Errorf("%s: ListObjectsV2 with delimiter / lists %v, without %v", ds, o, listed[o.Key])
				}
			}
			if !slices.Equal(sk, listingsSorted(d.keys)) || !slices.Equal(sp, listingsSorted(d.prefixes)) {
				t.Errorf("%s/%s: the index page lists keys %q and prefixes %q; ListObjectsV2 with delimiter /, %d a page, keys %q and prefixes %q",
					ds, dir, d.keys, d.prefixes, size, sk, sp)
			}
		}
		// the directory without its slash redirects to its page
		if dir != "" {
			from := listingsKeyPath(ds, strings.TrimSuffix(dir, "/"))
			resp, _ := g.request(t, http.MethodGet, from)
			loc, err := resp.Location()
			if resp.StatusCode != http.StatusMovedPermanently || err != nil || loc.Path != "/d/"+ds+"/"+dir {
				t.Errorf("GET %s: %d to %q, want 301 to /d/%s/%s", from, resp.StatusCode, resp.Header.Get("Location"), ds, dir)
			}
		}
	}
	slices.Sort(fromPages)
	if !slices.Equal(fromPages, keys) {
		t.Errorf("%s: the index pages lead to the keys\n%q\nListObjectsV2 lists\n%q", ds, fromPages, keys)
	}
	for _, key := range fromPages {
		if _, ok := listed[key]; ok {
			continue // read above
		}
		path := listingsKeyPath(ds, key)
		if resp, _ := g.request(t, http.MethodGet, path); resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d, though an index page links to it", path, resp.StatusCode)
		}
	}

	// every key a GET serves is listed: the files of the store, and each
	// metadata document's name in every directory, whether stored or not
	candidates := map[string]bool{}
	filepath.WalkDir(g.dirs[ds], func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(g.dirs[ds], p)
			candidates[filepath.ToSlash(rel)] = true
		}
		return err
	})
	for dir := range dirs {
		for _, doc := range []string{"zarr.json", ".zmetadata", ".zgroup", ".zattrs", ".zarray"} {
			candidates[dir+doc] = true
		}
	}
	for key := range candidates {
		if _, ok := listed[key]; ok {
			continue // read above
		}
		path := listingsKeyPath(ds, key)
		if resp, body := g.request(t, http.MethodGet, path); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d (%d bytes), though no listing names %s; want 404", path, resp.StatusCode, len(body), key)
		}
	}
}

// listingsCheckBuiltRoot checks that the root document served is the one
// the gateway builds, not the stored one: a v3 zarr.json with the
// hierarchy's metadata inline (larger than the stored file), or a v2
// .zmetadata the store lacks.
func listingsCheckBuiltRoot(t *testing.T, dir, root string, served []byte) {
	t.Helper()
	stored, err := os.ReadFile(filepath.Join(dir, root))
	switch root {
	case "zarr.json":
		if err != nil || len(served) <= len(stored) || !bytes.Contains(served, []byte(`"consolidated_metadata"`)) {
			t.Errorf("zarr.json: served %d bytes, stored %d (%v); want the consolidated document the gateway builds", len(served), len(stored), err)
		}
	case ".zmetadata":
		if !os.IsNotExist(err) {
			t.Errorf(".zmetadata: the store holds one (%v); the test wants the one the gateway builds", err)
		}
		if !bytes.Contains(served, []byte(`"zarr_consolidated_format"`)) {
			t.Errorf(".zmetadata: served %.200s", served)
		}
	}
}

func listingsSorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// listingsClientEnv is a client process's environment: the test's without
// any AWS_ or RCLONE_ variable (a CA bundle, credentials or remotes of
// the machine would change what the client does), HOME in a directory of
// the test's own, and extra.
func listingsClientEnv(t *testing.T, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "AWS_") || strings.HasPrefix(kv, "RCLONE_") || strings.HasPrefix(kv, "HOME=") {
			continue
		}
		env = append(env, kv)
	}
	return append(append(env, "HOME="+t.TempDir()), extra...)
}

// listingsRun runs a client and returns its output; a client that exits
// other than 0 fails the test.
func listingsRun(t *testing.T, env []string, name string, args ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env, cmd.Dir = env, t.TempDir()
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", filepath.Base(name), strings.Join(args, " "), err, o.String(), e.String())
	}
	return o.String(), e.String()
}

// served maps each key the key API's GET serves to its value: the keys
// ListObjectsV2 lists, and root, the document the gateway builds, listed
// or not.
func (g *listingsGateway) served(t *testing.T, ds, root string) map[string][]byte {
	t.Helper()
	objects, _ := g.s3List(t, ds, "", "", 1000)
	out := map[string][]byte{}
	for _, o := range objects {
		path := listingsKeyPath(ds, o.Key)
		resp, body := g.request(t, http.MethodGet, path)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", path, resp.StatusCode)
		}
		out[o.Key] = body
	}
	if resp, body := g.request(t, http.MethodGet, listingsKeyPath(ds, root)); resp.StatusCode == http.StatusOK {
		out[root] = body
	}
	return out
}

// listingsSameAsServed fails unless dir holds exactly the keys served,
// byte for byte.
func listingsSameAsServed(t *testing.T, what, dir string, served map[string][]byte) {
	t.Helper()
	got := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		got[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range served {
		if b, ok := got[k]; !ok {
			t.Errorf("%s: %s is missing", what, k)
		} else if !bytes.Equal(b, want) {
			t.Errorf("%s: %s holds %d bytes, GET serves %d that differ", what, k, len(b), len(want))
		}
	}
	for k := range got {
		if _, ok := served[k]; !ok {
			t.Errorf("%s: %s is no key the gateway serves", what, k)
		}
	}
}

// checkAWSSync runs Debian's aws s3 sync of the bucket ds twice: the
// first downloads every key, the second none, and the copy is what GET
// serves.
func (g *listingsGateway) checkAWSSync(t *testing.T, ds, root string) {
	const awsCLI = "/usr/bin/aws" // Debian's, whatever else is on PATH
	if _, err := os.Stat(awsCLI); err != nil {
		servers.Unavailable(t, "%s is not installed (%v)", awsCLI, err)
	}
	conf := t.TempDir()
	env := listingsClientEnv(t, "AWS_ACCESS_KEY_ID="+listingsKeyID, "AWS_SECRET_ACCESS_KEY="+g.secret,
		"AWS_DEFAULT_REGION="+listingsRegion, "AWS_CONFIG_FILE="+filepath.Join(conf, "none"),
		"AWS_SHARED_CREDENTIALS_FILE="+filepath.Join(conf, "none"), "AWS_EC2_METADATA_DISABLED=true", "AWS_PAGER=")
	served := g.served(t, ds, root)
	dir := t.TempDir()
	sync := func() []string {
		out, _ := listingsRun(t, env, awsCLI, "s3", "sync", "--no-progress", "s3://"+ds, dir, "--endpoint-url", g.s3url)
		var downloads []string
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "download:") {
				downloads = append(downloads, strings.TrimSpace(line))
			}
		}
		return downloads
	}
	if first := sync(); len(first) != len(served) {
		t.Errorf("the first aws s3 sync downloaded %d keys, want all %d:\n%s", len(first), len(served), strings.Join(first, "\n"))
	}
	if second := sync(); len(second) != 0 {
		t.Errorf("the second aws s3 sync downloaded again (the listing disagrees with what the first read):\n%s", strings.Join(second, "\n"))
	}
	listingsSameAsServed(t, "aws s3 sync s3://"+ds, dir, served)
}

// checkRclone copies the bucket ds with rclone and checks the copy
// against the bucket: 0 differences, and it holds what GET serves.
func (g *listingsGateway) checkRclone(t *testing.T, ds, root string) {
	const rclone = "/usr/bin/rclone"
	if _, err := os.Stat(rclone); err != nil {
		servers.Unavailable(t, "%s is not installed (%v)", rclone, err)
	}
	conf := filepath.Join(t.TempDir(), "rclone.conf")
	if err := os.WriteFile(conf, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	env := listingsClientEnv(t, "RCLONE_CONFIG="+conf, "RCLONE_CONFIG_GW_TYPE=s3", "RCLONE_CONFIG_GW_PROVIDER=Other",
		"RCLONE_CONFIG_GW_ACCESS_KEY_ID="+listingsKeyID, "RCLONE_CONFIG_GW_SECRET_ACCESS_KEY="+g.secret,
		"RCLONE_CONFIG_GW_ENDPOINT="+g.s3url, "RCLONE_CONFIG_GW_REGION="+listingsRegion, "RCLONE_CONFIG_GW_FORCE_PATH_STYLE=true")
	dir := t.TempDir()
	listingsRun(t, env, rclone, "copy", "gw:"+ds, dir)
	if _, stderr := listingsRun(t, env, rclone, "check", "gw:"+ds, dir); !strings.Contains(stderr, " 0 differences found") {
		t.Errorf("rclone check gw:%s against its copy:\n%s", ds, stderr)
	}
	listingsSameAsServed(t, "rclone copy gw:"+ds, dir, g.served(t, ds, root))
}

// listingsMem is what /proc/PID/status says of a process's memory.
type listingsMem struct{ rss, hwm int64 } // bytes

func listingsReadMem(t *testing.T, pid int) listingsMem {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	var m listingsMem
	for _, line := range strings.Split(string(b), "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(value)
		if len(f) != 2 || f[1] != "kB" {
			continue
		}
		n, _ := strconv.ParseInt(f[0], 10, 64)
		switch name {
		case "VmRSS":
			m.rss = n << 10
		case "VmHWM":
			m.hwm = n << 10
		}
	}
	if m.rss == 0 || m.hwm == 0 {
		t.Fatalf("/proc/%d/status shows no VmRSS and VmHWM:\n%s", pid, b)
	}
	return m
}

// listingsPeakFrom starts a measure of a process's memory: it resets the
// process's peak (VmHWM) to its RSS now, where the kernel lets it (else
// the peak since it started stands, which only overstates the growth),
// and returns a function that says how far the peak rose above the RSS
// at the start.
func listingsPeakFrom(t *testing.T, pid int) func() (start, peak int64) {
	t.Helper()
	start := listingsReadMem(t, pid).rss
	os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
	return func() (int64, int64) { return start, listingsReadMem(t, pid).hwm }
}

// listingsWriteKeys makes a regular file below root for each key: a hard
// link to one of a few small files written first. A listing reads names
// only, and a link costs a tenth of what a new file does (100 000 new
// files took 14 s on a loaded two-core machine, their links 2.4 s). A
// file takes at most 65 000 links on ext4: each serves 10 000 keys.
func listingsWriteKeys(t *testing.T, root string, keys []string) {
	t.Helper()
	dirs := map[string]bool{}
	for _, k := range keys {
		dirs[filepath.Dir(filepath.Join(root, k))] = true
	}
	for d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const perSource = 10_000
	sources := t.TempDir()
	for i := 0; i*perSource < len(keys); i++ {
		if err := os.WriteFile(filepath.Join(sources, strconv.Itoa(i)), []byte("value "+strconv.Itoa(i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const workers = 4
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(keys); i += workers {
				if err := os.Link(filepath.Join(sources, strconv.Itoa(i/perSource)), filepath.Join(root, keys[i])); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
}

const listingsMaxGrowth = 64 << 20

// listingsCheckNames fails unless got holds each of want once and nothing
// else.
func listingsCheckNames(t *testing.T, what string, got, want []string) {
	t.Helper()
	seen := make(map[string]int, len(got))
	for _, n := range got {
		seen[n]++
	}
	var missing, extra, twice []string
	for _, n := range want {
		if seen[n] == 0 {
			missing = append(missing, n)
		}
	}
	wanted := make(map[string]bool, len(want))
	for _, n := range want {
		wanted[n] = true
	}
	for n, c := range seen {
		if !wanted[n] {
			extra = append(extra, n)
		}
		if c > 1 {
			twice = append(twice, n)
		}
	}
	if len(got) != len(want) || len(missing)+len(extra)+len(twice) > 0 {
		slices.Sort(extra)
		slices.Sort(twice)
		t.Errorf("%s: %d names (%d distinct), want the %d written; missing %d %q, unwritten %d %q, listed twice %d %q",
			what, len(got), len(seen), len(want), len(missing), listingsHead(missing), len(extra), listingsHead(extra), len(twice), listingsHead(twice))
	}
}

func listingsHead(s []string) []string { return s[:min(len(s), 5)] }

func listingsMiB(n int64) float64 { return float64(n) / (1 << 20) }

// A prefix of 100 000 keys in one directory lists completely through its
// index page (/d/NAME/big/, one link per key) and through its JSON listing
// (Accept: application/json, then page_token pages of up to 10 000: pages
// of the default 1 000 take 100 requests, and each rereads the directory),
// as do 1 000 sub-prefixes of 100 keys each (the index page of the prefix
// and of each sub-prefix, its JSON listing, and ?list of every key below
// it). The gateway's resident memory rises less than 64 MiB in each, and
// over all, above its RSS after a warm-up request. The times and memory
// measured are logged, never asserted.
func TestListingsLargePrefix(t *testing.T) {
	root := t.TempDir()
	flat := make([]string, 100_000)
	for i := range flat {
		flat[i] = fmt.Sprintf("k%06d", i)
	}
	var nested []string
	var subs []string
	for p := range 1000 {
		subs = append(subs, fmt.Sprintf("p%04d/", p))
		for k := range 100 {
			nested = append(nested, fmt.Sprintf("p%04d/k%02d", p, k))
		}
	}
	began := time.Now()
	listingsWriteKeys(t, filepath.Join(root, "big"), flat)
	listingsWriteKeys(t, filepath.Join(root, "nest"), nested)
	t.Logf("wrote %d + %d files in %s", len(flat), len(nested), time.Since(began).Round(time.Millisecond))

	g := startListingsGateway(t, listingsDataset{name: "many", root: root})
	pid := g.cmd.Process.Pid
	// warm-up: a page and a JSON page of each kind, a key
	for _, r := range [][]string{{"/d/many/"}, {"/d/many/nest/p0000/"}, {"/d/many/nest/p0000/", "Accept", "application/json"}, {"/d/many/big/k000000"}} {
		if resp, body := g.request(t, http.MethodGet, r[0], r[1:]...); resp.StatusCode != http.StatusOK {
			t.Fatalf("warm-up GET %s: %d %.300s", r[0], resp.StatusCode, body)
		}
	}
	resp, _ := g.request(t, http.MethodGet, "/d/many/big")
	if loc, err := resp.Location(); resp.StatusCode != http.StatusMovedPermanently || err != nil || loc.Path != "/d/many/big/" {
		t.Errorf("GET /d/many/big: %d to %q, want 301 to /d/many/big/", resp.StatusCode, resp.Header.Get("Location"))
	}
	// each listing's peak against the RSS just before it, and the highest
	// against the RSS after the warm-up
	base := listingsReadMem(t, pid).rss
	var highest int64
	measure := func(t *testing.T, what string, list func() int) {
		t.Helper()
		peak := listingsPeakFrom(t, pid)
		began := time.Now()
		requests := list()
		took := time.Since(began)
		start, hwm := peak()
		highest = max(highest, hwm)
		t.Logf("%s: %d requests in %s; gateway RSS %.1f MiB before, peak %.1f MiB: growth %.1f MiB",
			what, requests, took.Round(time.Millisecond), listingsMiB(start), listingsMiB(hwm), listingsMiB(hwm-start))
		if hwm-start >= listingsMaxGrowth {
			t.Errorf("%s: the gateway's resident memory rose %.1f MiB (from %d to a peak of %d bytes), want under 64 MiB", what, listingsMiB(hwm-start), start, hwm)
		}
	}
	defer func() {
		t.Logf("all listings: gateway RSS %.1f MiB after the warm-up, peak %.1f MiB: growth %.1f MiB", listingsMiB(base), listingsMiB(highest), listingsMiB(highest-base))
		if highest-base >= listingsMaxGrowth {
			t.Errorf("the gateway's resident memory rose %.1f MiB above its RSS after the warm-up (%d to a peak of %d bytes), want under 64 MiB", listingsMiB(highest-base), base, highest)
		}
	}()

	t.Run("flat/index", func(t *testing.T) {
		measure(t, "index page of 100 000 keys", func() int {
			resp, body := g.request(t, http.MethodGet, "/d/many/big/")
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET /d/many/big/: %d %.300s", resp.StatusCode, body)
			}
			links := listingsIndexLinks(t, g.url+"/d/many/big/", body)
			t.Logf("GET /d/many/big/: %d bytes, %d links", len(body), len(links))
			listingsCheckNames(t, "the index page /d/many/big/", links, flat)
			return 1
		})
	})
	t.Run("flat/json", func(t *testing.T) {
		measure(t, "JSON listing of 100 000 keys", func() int {
			keys, prefixes, pages := g.jsonList(t, "/d/many/big/", "", true, "max_keys=10000")
			for i, k := range keys {
				keys[i] = strings.TrimPrefix(k, "big/")
			}
			listingsCheckNames(t, "the JSON listing of /d/many/big/", keys, flat)
			if len(prefixes) != 0 {
				t.Errorf("the JSON listing of /d/many/big/ lists prefixes %q", listingsHead(prefixes))
			}
			return pages
		})
	})
	t.Run("nested/index", func(t *testing.T) {
		measure(t, "index pages of 1 000 prefixes of 100 keys", func() int {
			resp, body := g.request(t, http.MethodGet, "/d/many/nest/")
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET /d/many/nest/: %d %.300s", resp.StatusCode, body)
			}
			links := listingsIndexLinks(t, g.url+"/d/many/nest/", body)
			listingsCheckNames(t, "the index page /d/many/nest/", links, subs)
			var keys []string
			for _, sub := range links {
				if !strings.HasSuffix(sub, "/") {
					continue
				}
				path := "/d/many/nest/" + sub
				resp, body := g.request(t, http.MethodGet, path)
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("GET %s: %d %.300s", path, resp.StatusCode, body)
				}
				for _, k := range listingsIndexLinks(t, g.url+path, body) {
					keys = append(keys, sub+k)
				}
			}
			listingsCheckNames(t, "the index pages below /d/many/nest/", keys, nested)
			return 1 + len(links)
		})
	})
	t.Run("nested/json", func(t *testing.T) {
		measure(t, "JSON listings of 1 000 prefixes of 100 keys", func() int {
			keys, prefixes, pages := g.jsonList(t, "/d/many/nest/", "", true)
			if len(keys) != 0 {
				t.Errorf("the JSON listing of /d/many/nest/ lists keys %q", listingsHead(keys))
			}
			for i, p := range prefixes {
				prefixes[i] = strings.TrimPrefix(p, "nest/")
			}
			listingsCheckNames(t, "the JSON listing of /d/many/nest/", prefixes, subs)
			all, _, more := g.jsonList(t, "/d/many/", "list&prefix=nest/&max_keys=10000", false)
			for i, k := range all {
				all[i] = strings.TrimPrefix(k, "nest/")
			}
			listingsCheckNames(t, "GET /d/many/?list&prefix=nest/", all, nested)
			return pages + more
		})
	})
}
