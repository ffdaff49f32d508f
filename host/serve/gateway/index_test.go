package gateway_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// noRedirects sends a request and returns the response as it came, a
// redirect included.
func noRedirects(t *testing.T, tg *testGateway, method, path string, headers ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, tg.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Set(k, v)
	}
	c := *tg.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

var indexLink = regexp.MustCompile(`<a href="([^"]*)">([^<]*)</a>`)

// links are the hrefs and texts of an index page.
func links(page string) (hrefs, texts []string) {
	for _, m := range indexLink.FindAllStringSubmatch(page, -1) {
		hrefs, texts = append(hrefs, m[1]), append(texts, m[2])
	}
	return hrefs, texts
}

// A directory's index page links every key and child prefix below it,
// relative, escaped, prefixes ending in "/", and never the gateway's
// reserved names.
func TestIndexPage(t *testing.T) {
	tg := newTestGateway(t)
	for _, k := range []string{"g/zarr.json", "g/a/zarr.json", "g/a/c/0/0", "g/b c/<x>.bin", "g/x:y", "g/&q"} {
		tg.put(t, "/d/open/"+strings.ReplaceAll(strings.ReplaceAll(k, " ", "%20"), "&", "%26"), "v")
	}
	hidden := filepath.Join(tg.root, "open", "g", ".zarrgw_multipart", "u1")
	if err := os.MkdirAll(hidden, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(hidden, "part"), []byte("p"), 0o644); err != nil {
		t.Fatal(err)
	}
	resp, page := tg.do(t, http.MethodGet, "/d/open/g/", "")
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /d/open/g/: %d %s\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), page)
	}
	if !strings.Contains(page, "<title>Index of /d/open/g/</title>") {
		t.Errorf("the page's title is not nginx's form:\n%s", page)
	}
	hrefs, texts := links(page)
	wantHrefs := []string{"a/", "b%20c/", "%26q", "x%3Ay", "zarr.json"}
	wantTexts := []string{"a/", "b c/", "&amp;q", "x:y", "zarr.json"}
	if !slices.Equal(hrefs, wantHrefs) || !slices.Equal(texts, wantTexts) {
		t.Errorf("links %q %q, want %q %q", hrefs, texts, wantHrefs, wantTexts)
	}
	if strings.Contains(page, "zarrgw_") || strings.Contains(page, "<x>") {
		t.Errorf("the page shows a reserved name or unescaped markup:\n%s", page)
	}
	// each link, resolved against the page, is a value or another directory
	for _, h := range hrefs {
		want := http.StatusOK
		if resp, body := tg.do(t, http.MethodGet, "/d/open/g/"+strings.ReplaceAll(h, "&amp;", "&"), ""); resp.StatusCode != want || !strings.HasSuffix(h, "/") && body != "v" {
			t.Errorf("GET the link %s: %d %q", h, resp.StatusCode, body)
		}
	}
	head, _ := tg.do(t, http.MethodHead, "/d/open/g/", "")
	if head.StatusCode != http.StatusOK || head.ContentLength != int64(len(page)) {
		t.Errorf("HEAD /d/open/g/: %d, Content-Length %d, want 200 and %d", head.StatusCode, head.ContentLength, len(page))
	}
	if resp, sub := tg.do(t, http.MethodGet, "/d/open/g/b%20c/", ""); resp.StatusCode != http.StatusOK || !strings.Contains(sub, `<a href="%3Cx%3E.bin">&lt;x&gt;.bin</a>`) {
		t.Errorf("GET /d/open/g/b%%20c/: %d\n%s", resp.StatusCode, sub)
	}
}

// A prefix without its slash redirects to the slash form (301, as nginx
// and Go's FileServer do), HEAD included; a value is served as
// it is; only a name that is neither is 404. Slashes right after the
// dataset are one (a client joining a URL that ends in one adds its own).
func TestDirectoryRedirects(t *testing.T) {
	tg := newTestGateway(t)
	tg.put(t, "/d/open/g/a/zarr.json", "{}")
	for _, c := range []struct {
		method, path string
		status       int
		location     string
	}{
		{http.MethodGet, "/d/open/g", http.StatusMovedPermanently, "/d/open/g/"},
		{http.MethodHead, "/d/open/g", http.StatusMovedPermanently, "/d/open/g/"},
		{http.MethodGet, "/d/open/g/a", http.StatusMovedPermanently, "/d/open/g/a/"},
		{http.MethodGet, "/d/open", http.StatusMovedPermanently, "/d/open/"},
		{http.MethodHead, "/d/open/g/", http.StatusOK, ""},
		{http.MethodHead, "/d/open/g/a/", http.StatusOK, ""},
		{http.MethodGet, "/d/open/g/a/zarr.json", http.StatusOK, ""},
		{http.MethodGet, "/d/open/g/a/zarr.json/", http.StatusNotFound, ""},
		{http.MethodGet, "/d/open/none", http.StatusNotFound, ""},
		{http.MethodHead, "/d/open/none/", http.StatusNotFound, ""},
		{http.MethodGet, "/d/open/g/b", http.StatusNotFound, ""},
		{http.MethodGet, "/d/open/g//", http.StatusBadRequest, ""},
		{http.MethodGet, "/d/open//g/a/zarr.json", http.StatusOK, ""}, // a client's "/" after the dataset URL's own
		{http.MethodGet, "/d/open/g//a/zarr.json", http.StatusBadRequest, ""},
		{http.MethodGet, "/d/open/g/.zarrgw_multipart/", http.StatusBadRequest, ""},
		{http.MethodGet, "/d/private/", http.StatusUnauthorized, ""},
		{http.MethodGet, "/d/private/g", http.StatusUnauthorized, ""},
	} {
		resp, _ := noRedirects(t, tg, c.method, c.path)
		if resp.StatusCode != c.status || resp.Header.Get("Location") != c.location {
			t.Errorf("%s %s: %d Location %q, want %d %q", c.method, c.path, resp.StatusCode, resp.Header.Get("Location"), c.status, c.location)
		}
	}
	// a client that follows the redirect lands on the index page
	if resp, page := tg.do(t, http.MethodGet, "/d/open/g", ""); resp.StatusCode != http.StatusOK || !strings.Contains(page, `<a href="a/">a/</a>`) {
		t.Errorf("GET /d/open/g, following: %d\n%s", resp.StatusCode, page)
	}
	// an empty dataset's top level is there, empty
	if resp, page := tg.do(t, http.MethodGet, "/d/private/", "", "Authorization: Bearer "+readerToken); resp.StatusCode != http.StatusOK || strings.Contains(page, "<a ") {
		t.Errorf("GET /d/private/ of an empty dataset: %d\n%s", resp.StatusCode, page)
	}
}

// Asked for JSON, a directory answers the key API's listing of it.
func TestIndexAsJSON(t *testing.T) {
	tg := newTestGateway(t)
	for _, k := range []string{"g/zarr.json", "g/a/zarr.json", "g/b"} {
		tg.put(t, "/d/open/"+k, "v")
	}
	resp, body := tg.do(t, http.MethodGet, "/d/open/g/", "", "Accept: application/json")
	var l struct {
		Keys, Prefixes []string
	}
	if err := json.Unmarshal([]byte(body), &l); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /d/open/g/ as JSON: %d %v\n%s", resp.StatusCode, err, body)
	}
	if !slices.Equal(l.Keys, []string{"g/b", "g/zarr.json"}) || !slices.Equal(l.Prefixes, []string{"g/a/"}) {
		t.Errorf("listed %v %v", l.Keys, l.Prefixes)
	}
}

// With metadata consolidated on the fly, the root document is listed as
// it is served: a v2 .zmetadata the store lacks appears in the index and
// the listing, and S3's listing, HEAD and GET agree on the v3 zarr.json's
// size and ETag.
func TestConsolidatedListedAsServed(t *testing.T) {
	sg := newS3Gateway(t, s3Options{})
	tg := sg.keys
	tg.put(t, "/d/cons/zarr.json", `{"zarr_format":3,"node_type":"group","attributes":{}}`)
	tg.put(t, "/d/cons/arr/zarr.json", arrayMeta)
	ctx := context.Background()
	c := sg.writer()
	out, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("cons")})
	if err != nil {
		t.Fatal(err)
	}
	var listed *int64
	var listedTag string
	for _, o := range out.Contents {
		if aws.ToString(o.Key) == "zarr.json" {
			listed, listedTag = o.Size, aws.ToString(o.ETag)
		}
	}
	get, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("cons"), Key: aws.String("zarr.json")})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(get.Body)
	get.Body.Close()
	if !strings.Contains(string(body), "consolidated_metadata") {
		t.Fatalf("GetObject zarr.json is not the consolidated document: %s", body)
	}
	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("cons"), Key: aws.String("zarr.json")})
	if err != nil {
		t.Fatal(err)
	}
	if listed == nil || *listed != int64(len(body)) || aws.ToInt64(head.ContentLength) != int64(len(body)) {
		t.Errorf("zarr.json: listed %v bytes, HEAD %d, GET %d", aws.ToInt64(listed), aws.ToInt64(head.ContentLength), len(body))
	}
	if listedTag != aws.ToString(get.ETag) || listedTag != aws.ToString(head.ETag) {
		t.Errorf("zarr.json ETags: listed %s, HEAD %s, GET %s", listedTag, aws.ToString(head.ETag), aws.ToString(get.ETag))
	}
	if !head.LastModified.Equal(aws.ToTime(get.LastModified)) {
		t.Errorf("Last-Modified: HEAD %v, GET %v", head.LastModified, get.LastModified)
	}
}

// A v2 hierarchy consolidated on the fly lists the .zmetadata it serves.
func TestConsolidatedV2Listed(t *testing.T) {
	tg := newTestGateway(t)
	tg.put(t, "/d/cons/.zgroup", `{"zarr_format":2}`)
	tg.put(t, "/d/cons/a/.zarray", `{"zarr_format":2,"shape":[2],"chunks":[2],"dtype":"<u1","compressor":null,"fill_value":0,"order":"C","filters":null}`)
	resp, page := tg.do(t, http.MethodGet, "/d/cons/", "")
	if _, texts := links(page); resp.StatusCode != http.StatusOK || !slices.Equal(texts, []string{"a/", ".zgroup", ".zmetadata"}) {
		t.Errorf("GET /d/cons/: %d, links %q", resp.StatusCode, texts)
	}
	_, body := tg.do(t, http.MethodGet, "/d/cons/?list&delimiter=/", "")
	var l struct{ Keys []string }
	if err := json.Unmarshal([]byte(body), &l); err != nil || !slices.Equal(l.Keys, []string{".zgroup", ".zmetadata"}) {
		t.Errorf("?list: %v %s", err, body)
	}
	if resp, _ := tg.do(t, http.MethodGet, "/d/cons/.zmetadata", ""); resp.StatusCode != http.StatusOK {
		t.Errorf("GET .zmetadata: %d", resp.StatusCode)
	}
}
