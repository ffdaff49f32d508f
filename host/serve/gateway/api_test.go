package gateway_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"math"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/host/commands/render"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
)

// Listing pages through keys in byte order, with and without the "/"
// delimiter, never returning a key twice.
func TestListingPages(t *testing.T) {
	tg := newTestGateway(t)
	var want []string
	for i := 0; i < 23; i++ {
		k := fmt.Sprintf("g/k%02d", i)
		tg.put(t, "/d/open/"+k, "v")
		want = append(want, k)
	}
	tg.put(t, "/d/open/g/sub/x", "v")
	tg.put(t, "/d/open/h", "v")

	got := listAll(t, tg, "prefix=g/&max_keys=10")
	if !slices.Equal(got, append(append([]string{}, want...), "g/sub/x")) {
		t.Fatalf("flat listing: %v", got)
	}
	got = listAll(t, tg, "prefix=g/&delimiter=/&max_keys=7")
	if !slices.Equal(got, append(append([]string{}, want...), "g/sub/")) {
		t.Fatalf("listing by directory: %v", got)
	}
	got = listAll(t, tg, "prefix=g/k1&max_keys=3")
	if !slices.Equal(got, want[10:20]) {
		t.Fatalf("listing of a partial prefix: %v", got)
	}
	if resp, _ := tg.do(t, "GET", "/d/open/?list&delimiter=,", ""); resp.StatusCode != 400 {
		t.Fatalf("bad delimiter: %d", resp.StatusCode)
	}
	if resp, _ := tg.do(t, "GET", "/d/open/?list&page_token=!!", ""); resp.StatusCode != 400 {
		t.Fatalf("bad token: %d", resp.StatusCode)
	}
}

// listAll follows next_page_token to the end and returns keys and
// prefixes in the order they came.
func listAll(t *testing.T, tg *testGateway, query string) []string {
	t.Helper()
	var out []string
	seen := map[string]bool{}
	tok := ""
	for pages := 0; pages < 100; pages++ {
		q := "/d/open/?list&" + query
		if tok != "" {
			q += "&page_token=" + url.QueryEscape(tok)
		}
		resp, body := tg.do(t, "GET", q, "")
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", q, resp.StatusCode, body)
		}
		var page struct {
			Keys, Prefixes []string
			Next           *string `json:"next_page_token"`
		}
		if err := json.Unmarshal([]byte(body), &page); err != nil {
			t.Fatal(err)
		}
		for _, k := range append(page.Keys, page.Prefixes...) {
			if seen[k] {
				t.Fatalf("%s listed twice", k)
			}
			seen[k] = true
		}
		out = append(out, page.Keys...)
		out = append(out, page.Prefixes...)
		if page.Next == nil {
			slices.Sort(out)
			return out
		}
		tok = *page.Next
	}
	t.Fatal("listing never ended")
	return nil
}

// Array slices through the gateway equal what render.Stream (zarrgw cat)
// writes, in every format, and a slice written with PUT reads back.
func TestArraySlices(t *testing.T) {
	tg := newTestGateway(t)
	ctx := context.Background()
	s, err := fsstore.New(tg.root + "/open")
	if err != nil {
		t.Fatal(err)
	}
	m := &meta.ArrayMeta{Format: meta.V3, Shape: []int{20, 30}, ChunkShape: []int{7, 4}, DataType: dtype.Named("float32"),
		FillValue: []byte{0, 0, 0xc0, 0x7f}, ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"},
		Codecs:     []meta.Extension{{Name: "bytes", Configuration: json.RawMessage(`{"endian":"little"}`)}, {Name: "zstd", Configuration: json.RawMessage(`{"level":1}`)}},
		Attributes: json.RawMessage(`{}`)}
	a, err := hierarchy.CreateArray(ctx, s, "grp/t", m, array.Options{Codecs: registry.Codecs()})
	if err != nil {
		t.Fatal(err)
	}
	data := ndarray.New(m.DataType, []int{20, 12})
	for i := range data.Data {
		data.Data[i] = byte(i * 7)
	}
	if err := a.Write(ctx, grid.Box([]int{0, 0}, []int{20, 12}), data); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"json", "npy", "raw"} {
		for _, slice := range []string{"", "3:17:2,5", "0:20,10:14", "-1"} {
			sel, err := grid.Parse(slice, m.Shape)
			if err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			if err := render.Stream(ctx, &want, a, sel, render.Format(f), array.StreamOptions{}); err != nil {
				t.Fatal(err)
			}
			resp, body := tg.do(t, "GET", "/d/open/grp/t?format="+f+"&slice="+url.QueryEscape(slice), "")
			if resp.StatusCode != 200 || body != want.String() {
				t.Errorf("format %s slice %q: %d, %d bytes, want %d", f, slice, resp.StatusCode, len(body), want.Len())
			}
			if f != "json" && resp.ContentLength != int64(want.Len()) {
				t.Errorf("format %s slice %q: Content-Length %d, want %d", f, slice, resp.ContentLength, want.Len())
			}
		}
	}
	// write a slice as raw float32 and read it back as JSON
	raw := make([]byte, 0, 8)
	for _, v := range []uint32{0x3f800000, 0x40000000} { // 1.0, 2.0
		raw = append(raw, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	}
	if resp, body := tg.do(t, "PUT", "/d/open/grp/t?slice=19,28:30&format=raw", string(raw)); resp.StatusCode != 200 {
		t.Fatalf("PUT slice: %d %s", resp.StatusCode, body)
	}
	if _, body := tg.do(t, "GET", "/d/open/grp/t?slice=19,27:30", ""); !strings.Contains(body, `"data": ["NaN", 1.0, 2.0]`) {
		t.Fatalf("slice after the write: %s", body)
	}
	for _, c := range []struct{ path, want string }{
		{"/d/open/grp/t?slice=0:2,0:2:0", "invalid step"},
		{"/d/open/grp/t?slice=99", "out of range"},
		{"/d/open/grp/t?format=xml", "use json, npy or raw"},
		{"/d/open/grp/nothing?slice=0", "no array or group"},
	} {
		resp, body := tg.do(t, "GET", c.path, "")
		if resp.StatusCode/100 != 4 || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d %q, want 4xx with %q", c.path, resp.StatusCode, body, c.want)
		}
	}
	if resp, body := tg.do(t, "PUT", "/d/open/grp/t?slice=19,28:30&format=raw", "short"); resp.StatusCode != 400 || !strings.Contains(body, "needs 8") {
		t.Errorf("PUT of a short body: %d %q", resp.StatusCode, body)
	}
	// node metadata
	resp, body := tg.do(t, "GET", "/d/open/grp?meta", "")
	if resp.StatusCode != 200 || !strings.Contains(body, `"node_type":"group"`) || !strings.Contains(body, `"path":"/grp/t"`) {
		t.Fatalf("group meta: %d %s", resp.StatusCode, body)
	}
}

// Consolidated metadata is built on the fly for a dataset that asks for
// it, and rebuilt after a metadata write through the gateway.
func TestConsolidatedOnTheFly(t *testing.T) {
	tg := newTestGateway(t)
	tg.put(t, "/d/cons/zarr.json", `{"zarr_format":3,"node_type":"group","attributes":{}}`)
	tg.put(t, "/d/cons/a/zarr.json", `{"zarr_format":3,"node_type":"group","attributes":{"x":1}}`)
	_, body := tg.do(t, "GET", "/d/cons/zarr.json", "")
	if !strings.Contains(body, "consolidated_metadata") || !strings.Contains(body, `"a"`) {
		t.Fatalf("root zarr.json without consolidated metadata: %s", body)
	}
	// the built document has a Last-Modified that rebuilding the same
	// content keeps (S3 clients and sync tools rely on it)
	first, _ := tg.do(t, "HEAD", "/d/cons/zarr.json", "")
	tg.put(t, "/d/cons/a/zarr.json", `{"zarr_format":3,"node_type":"group","attributes":{"x":1}}`) // the same again: rebuilt
	again, _ := tg.do(t, "HEAD", "/d/cons/zarr.json", "")
	if lm := first.Header.Get("Last-Modified"); lm == "" || again.Header.Get("Last-Modified") != lm {
		t.Fatalf("built document: Last-Modified %q, then %q after an identical rebuild", lm, again.Header.Get("Last-Modified"))
	}
	tg.put(t, "/d/cons/b/zarr.json", `{"zarr_format":3,"node_type":"group","attributes":{}}`)
	if _, body = tg.do(t, "GET", "/d/cons/zarr.json", ""); !strings.Contains(body, `"b"`) {
		t.Fatalf("consolidated metadata not rebuilt after a write: %s", body)
	}
	// a dataset that does not ask serves the document as stored
	tg.put(t, "/d/open/zarr.json", `{"zarr_format":3,"node_type":"group","attributes":{}}`)
	tg.put(t, "/d/open/a/zarr.json", `{"zarr_format":3,"node_type":"group","attributes":{}}`)
	if _, body = tg.do(t, "GET", "/d/open/zarr.json", ""); strings.Contains(body, "consolidated") {
		t.Fatalf("consolidated metadata where none was asked for: %s", body)
	}
	// v2: .zmetadata appears
	tg.do(t, "DELETE", "/d/cons/zarr.json", "")
	tg.do(t, "DELETE", "/d/cons/a/zarr.json", "")
	tg.do(t, "DELETE", "/d/cons/b/zarr.json", "")
	tg.put(t, "/d/cons/.zgroup", `{"zarr_format":2}`)
	tg.put(t, "/d/cons/v/.zarray", `{"zarr_format":2,"shape":[4],"chunks":[2],"dtype":"<i2","compressor":null,"fill_value":0,"filters":null,"order":"C"}`)
	resp, body := tg.do(t, "GET", "/d/cons/.zmetadata", "")
	if resp.StatusCode != 200 || !strings.Contains(body, `"v/.zarray"`) || !strings.Contains(body, `"zarr_consolidated_format"`) {
		t.Fatalf(".zmetadata: %d %s", resp.StatusCode, body)
	}
}

// Metadata documents served from the metadata cache keep their
// Last-Modified, on GET and HEAD, first read and cached.
func TestMetadataLastModified(t *testing.T) {
	tg := newTestGateway(t)
	tg.put(t, "/d/open/a/zarr.json", `{"zarr_format":3,"node_type":"group","attributes":{}}`)
	tg.put(t, "/d/open/v/.zarray", `{"zarr_format":2}`)
	for _, key := range []string{"a/zarr.json", "v/.zarray"} {
		for i, method := range []string{"GET", "HEAD", "GET", "HEAD"} {
			resp, _ := tg.do(t, method, "/d/open/"+key, "")
			if resp.StatusCode != 200 || resp.Header.Get("Last-Modified") == "" {
				t.Fatalf("%s %s (read %d): %d, Last-Modified %q", method, key, i+1, resp.StatusCode, resp.Header.Get("Last-Modified"))
			}
		}
	}
}

// CORS: preflight answered, reads expose the headers range readers need.
func TestCORS(t *testing.T) {
	tg := newTestGateway(t)
	resp, _ := tg.do(t, http.MethodOptions, "/d/open/k", "", "Origin: https://app.example", "Access-Control-Request-Method: GET", "Access-Control-Request-Headers: range")
	h := resp.Header
	if resp.StatusCode != 204 || h.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(h.Get("Access-Control-Allow-Headers"), "Range") ||
		!strings.Contains(h.Get("Access-Control-Allow-Methods"), "PUT") {
		t.Fatalf("preflight: %d %v", resp.StatusCode, h)
	}
	tg.put(t, "/d/open/k", "v")
	resp, _ = tg.do(t, http.MethodGet, "/d/open/k", "", "Origin: https://app.example")
	if !strings.Contains(resp.Header.Get("Access-Control-Expose-Headers"), "Content-Range") || !strings.Contains(resp.Header.Get("Access-Control-Expose-Headers"), "ETag") {
		t.Fatalf("expose headers: %v", resp.Header)
	}
}

// Health, readiness, metrics and the OpenAPI document.
func TestOperability(t *testing.T) {
	tg := newTestGateway(t)
	tg.put(t, "/d/open/k", "v")
	tg.do(t, "GET", "/d/open/k", "")
	tg.do(t, "GET", "/d/open/missing", "")
	for path, want := range map[string]string{
		"/healthz":      "ok",
		"/readyz":       `"ready":true`,
		"/openapi.json": `"openapi": "3.0.3"`,
		"/metrics":      `zarrgw_http_requests_total{dataset="open",method="GET",operation="key:Get",status="404"} 1`,
	} {
		resp, body := tg.do(t, "GET", path, "")
		if resp.StatusCode != 200 || !strings.Contains(body, want) {
			t.Errorf("%s: %d, want %q in:\n%.400s", path, resp.StatusCode, want, body)
		}
	}
	_, body := tg.do(t, "GET", "/metrics", "")
	for _, want := range []string{"zarrgw_store_call_duration_seconds_bucket", `zarrgw_cache_misses_total{cache="metadata"}`, "zarrgw_http_response_bytes_total"} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	tg.rec.fail = "zarrgw.readiness.probe"
	if resp, body := tg.do(t, "GET", "/readyz", ""); resp.StatusCode != 503 || !strings.Contains(body, "store unreachable") {
		t.Errorf("readyz with a failing store: %d %s", resp.StatusCode, body)
	}
}

// A client that goes away in the middle of a large slice ends the stream:
// the gateway's goroutines return to where they were.
func TestClientGoneMidStream(t *testing.T) {
	tg := newTestGateway(t)
	ctx := context.Background()
	s, err := fsstore.New(tg.root + "/open")
	if err != nil {
		t.Fatal(err)
	}
	m := &meta.ArrayMeta{Format: meta.V3, Shape: []int{262144, 262144}, ChunkShape: []int{4096, 4096}, DataType: dtype.Named("uint8"),
		FillValue: []byte{9}, ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"},
		Codecs: []meta.Extension{{Name: "bytes"}}, Attributes: json.RawMessage(`{}`)}
	if _, err := hierarchy.CreateArray(ctx, s, "big", m, array.Options{Codecs: registry.Codecs()}); err != nil {
		t.Fatal(err)
	}
	tg.Client().Get(tg.URL + "/healthz") // the client's connection pool and the server's accept loop exist
	base := runtime.NumGoroutine()
	for i := 0; i < 3; i++ {
		resp, err := tg.Client().Get(tg.URL + "/d/open/big?format=raw")
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 1<<20)
		if _, err := io.ReadFull(resp.Body, buf); err != nil || buf[0] != 9 {
			t.Fatalf("first MiB of 64 GiB: %v", err)
		}
		resp.Body.Close() // gone, with nearly all of 64 GiB unread: streaming on would take minutes
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > base+2 {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines 10s after the clients left, %d before:\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Small reads come from the decoded-chunk cache the second time; writes
// through either API are seen at once.
func TestChunkCache(t *testing.T) {
	tg := newTestGateway(t)
	tg.put(t, "/d/open/c/zarr.json", `{"zarr_format":3,"node_type":"array","shape":[4],"data_type":"uint8",
		"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[2]}},"chunk_key_encoding":{"name":"default"},
		"fill_value":0,"codecs":[{"name":"bytes"}],"attributes":{}}`)
	if resp, body := tg.do(t, "PUT", "/d/open/c?format=raw", "\x01\x02\x03\x04"); resp.StatusCode != 200 {
		t.Fatalf("write: %d %s", resp.StatusCode, body)
	}
	read := func() string {
		_, body := tg.do(t, "GET", "/d/open/c?format=raw", "")
		return body
	}
	if got := read(); got != "\x01\x02\x03\x04" {
		t.Fatalf("first read %q", got)
	}
	tg.rec.reset()
	if got := read(); got != "\x01\x02\x03\x04" {
		t.Fatalf("second read %q", got)
	}
	tg.rec.mu.Lock()
	for _, c := range tg.rec.calls {
		if strings.Contains(c, "c/c/") {
			t.Errorf("the second read went to the store for a chunk: %s", c)
		}
	}
	tg.rec.mu.Unlock()
	tg.put(t, "/d/open/c/c/1", "\x09\x09") // a chunk replaced through the key API
	if got := read(); got != "\x01\x02\x09\x09" {
		t.Fatalf("after a key write: %q", got)
	}
	tg.do(t, "PUT", "/d/open/c?slice=0:1&format=raw", "\x07")
	if got := read(); got != "\x07\x02\x09\x09" {
		t.Fatalf("after a slice write: %q", got)
	}
	tg.do(t, "DELETE", "/d/open/c/c/0", "")
	if got := read(); got != "\x00\x00\x09\x09" {
		t.Fatalf("after a chunk was erased: %q", got)
	}
	if _, body := tg.do(t, "GET", "/metrics", ""); !strings.Contains(body, `zarrgw_cache_hits_total{cache="chunks"}`) {
		t.Fatal("no chunk cache hits counted")
	}
}

// Pictures: a PNG of the 2-D selection, tagged with the versions of what
// it reads: revalidation answers 304 without reading a chunk, and a write
// changes the tag. A selection that is not 2-D is a 400.
func TestPictures(t *testing.T) {
	tg := newTestGateway(t)
	tg.put(t, "/d/open/p/zarr.json", `{"zarr_format":3,"node_type":"array","shape":[3,40,50],"data_type":"float32",
		"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[1,16,16]}},"chunk_key_encoding":{"name":"default"},
		"fill_value":"NaN","codecs":[{"name":"bytes","configuration":{"endian":"little"}}],"attributes":{}}`)
	raw := make([]byte, 40*50*4)
	for i := 0; i < 40*50; i++ {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(float32(i%50)))
	}
	if resp, body := tg.do(t, "PUT", "/d/open/p?slice=1,:,:&format=raw", string(raw)); resp.StatusCode != 200 {
		t.Fatalf("write: %d %s", resp.StatusCode, body)
	}
	resp, body := tg.do(t, "GET", "/d/open/p?slice=1,:,:&format=png&cmap=magma", "")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("png: %d %s", resp.StatusCode, body)
	}
	img, err := png.Decode(strings.NewReader(body))
	if err != nil || img.Bounds().Dx() != 50 || img.Bounds().Dy() != 40 {
		t.Fatalf("png: %v, bounds %v", err, img.Bounds())
	}
	tag := resp.Header.Get("ETag")
	tg.rec.reset()
	if resp, _ = tg.do(t, "GET", "/d/open/p?slice=1,:,:&format=png&cmap=magma", "", "If-None-Match: "+tag); resp.StatusCode != 304 {
		t.Fatalf("revalidation: %d", resp.StatusCode)
	}
	tg.rec.mu.Lock()
	for _, c := range tg.rec.calls {
		if !strings.HasPrefix(c, "stat ") {
			t.Errorf("revalidation made a %s call", c)
		}
	}
	tg.rec.mu.Unlock()
	tg.do(t, "PUT", "/d/open/p?slice=1,0,0&format=raw", "\x00\x00\x80\x3f")
	if resp, _ = tg.do(t, "GET", "/d/open/p?slice=1,:,:&format=png&cmap=magma", "", "If-None-Match: "+tag); resp.StatusCode != 200 || resp.Header.Get("ETag") == tag {
		t.Fatalf("after a write: %d, tag %s", resp.StatusCode, resp.Header.Get("ETag"))
	}
	for _, q := range []string{"slice=1,2,:&format=png", "format=png", "slice=1,:,:&format=png&cmap=jet", "slice=1,:,:&format=png&vmin=3"} {
		if resp, body := tg.do(t, "GET", "/d/open/p?"+q, ""); resp.StatusCode != 400 {
			t.Errorf("%s: %d %s, want 400", q, resp.StatusCode, body)
		}
	}
}
