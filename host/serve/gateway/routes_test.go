package gateway_test

import (
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/host/serve/gateway"
)

// arrayMeta is a small v3 array's metadata, for the array API's rows.
const arrayMeta = `{"zarr_format":3,"node_type":"array","shape":[4,4],"data_type":"uint8",
"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[2,2]}},
"chunk_key_encoding":{"name":"default","configuration":{"separator":"/"}},
"fill_value":0,"codecs":[{"name":"bytes","configuration":{"endian":"little"}}],"attributes":{}}`

// keyRequest is a request the key-API row takes: its path and query.
func keyRequest(rt gateway.Route) string {
	switch {
	case rt.Target == "list":
		return "/d/open/?list"
	case rt.Target == "index":
		return "/d/open/"
	case rt.Target == "meta":
		return "/d/open/arr?meta"
	case rt.Picture:
		return "/d/open/arr?format=png"
	case rt.Target == "slice" && rt.Method == http.MethodPut:
		return "/d/open/arr?slice=0:2,0:2&format=raw"
	case rt.Target == "slice":
		return "/d/open/arr?slice=0:2,0:2"
	}
	return "/d/open/k"
}

// s3Request is a request the S3 row takes: its path, query and headers.
func s3Request(rt gateway.Route) signedRequest {
	path := map[string]string{"SERVICE": "/", "BUCKET": "/open", "OBJECT": "/open/k", "DIRECTORY": "/open/dir/"}[rt.Target]
	if rt.Op == "s3:CreateBucket" {
		path = "/made-by-test"
	}
	if rt.Query != "" {
		q := rt.Query
		if q == "uploadId" {
			q += "=00000000000000000000000000000000&partNumber=1"
		}
		path += "?" + q
	}
	sr := signedRequest{method: rt.Method, path: path}
	if rt.Header != "" {
		sr.headers = map[string]string{rt.Header: "open/k"}
	}
	return sr
}

// Every row of both tables names its operation in the request's access
// log record and in the request metrics' operation label.
func TestEveryRouteLogsItsOperation(t *testing.T) {
	var log syncBuffer
	sg := newS3Gateway(t, s3Options{log: &log})
	sg.keys.put(t, "/d/open/arr/zarr.json", arrayMeta)
	sg.keys.put(t, "/d/open/k", "value")
	check := func(what, op string) {
		t.Helper()
		lines := strings.Split(strings.TrimSpace(log.String()), "\n")
		var rec struct {
			Operation string `json:"operation"`
		}
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &rec); err != nil || rec.Operation != op {
			t.Errorf("%s: logged operation %q (%v), want %q", what, rec.Operation, err, op)
		}
	}
	for _, rt := range gateway.KeyRoutes() {
		path := keyRequest(rt)
		body := ""
		if rt.Method == http.MethodPut {
			body = "abcd"
		}
		sg.keys.do(t, rt.Method, path, body, "Authorization: Bearer "+writerToken)
		check(rt.Method+" "+path, rt.Op)
	}
	for _, rt := range gateway.S3Routes() {
		sr := s3Request(rt)
		sg.send(t, sr)
		check("S3 "+sr.method+" "+sr.path, rt.Op)
	}
	_, metrics := sg.keys.do(t, http.MethodGet, "/metrics", "")
	for _, rt := range append(gateway.KeyRoutes(), gateway.S3Routes()...) {
		if !strings.Contains(metrics, `operation="`+rt.Op+`"`) {
			t.Errorf("no request metrics labelled operation=%q", rt.Op)
		}
	}
}

// An S3 request without the access its row names is refused before the
// row's handler runs: the store sees nothing.
func TestS3AccessCheckedBeforeHandlers(t *testing.T) {
	sg := newS3Gateway(t, s3Options{})
	sg.keys.put(t, "/d/private/k", "value", "Authorization: Bearer "+writerToken)
	for _, rt := range gateway.S3Routes() {
		if !rt.Read && !rt.Write {
			continue
		}
		sr := s3Request(rt)
		sr.path = strings.Replace(sr.path, "/open", "/private", 1)
		if sr.headers != nil {
			sr.headers[rt.Header] = "private/k"
		}
		if rt.Write {
			sr.keyID, sr.secret = readerKeyID, readerSecret // reads private, never writes it
		} else {
			sr.anonymous = true
		}
		sg.rec.reset()
		resp, body := sg.send(t, sr)
		if resp.StatusCode != http.StatusForbidden || resp.Header.Get("X-Amz-Error-Code") != "AccessDenied" {
			t.Errorf("%s without its access: %d %.200s, want 403 AccessDenied", rt.Op, resp.StatusCode, body)
		}
		if n := sg.rec.reset(); n != 0 {
			t.Errorf("%s without its access reached the store (%d calls)", rt.Op, n)
		}
	}
}

// /openapi.json documents every operation of the key and array APIs and
// of the gateway's own paths (the browser pages aside: they are HTML for
// people), and nothing else: a route added without its documentation, or
// documentation left after its route, fails here.
func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	tg := newTestGateway(t)
	_, body := tg.do(t, http.MethodGet, "/openapi.json", "")
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
		} `json:"paths"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for path, ops := range doc.Paths {
		for method, op := range ops {
			if op.OperationID == "" {
				t.Errorf("%s %s has no operationId", method, path)
			}
			documented[op.OperationID] = true
		}
	}
	routed := map[string]bool{}
	for _, rt := range gateway.KeyRoutes() {
		routed[rt.Op] = true
	}
	for _, op := range gateway.ServiceOps() {
		if !strings.HasPrefix(op, "ui:") {
			routed[op] = true
		}
	}
	sameOperations(t, routed, documented, "/openapi.json")
}

// sameOperations fails for every operation routed but not documented in
// doc, or documented there but not routed.
func sameOperations(t *testing.T, routed, documented map[string]bool, doc string) {
	t.Helper()
	for op := range routed {
		if !documented[op] {
			t.Errorf("the route %s is not in %s", op, doc)
		}
	}
	for op := range documented {
		if !routed[op] {
			t.Errorf("%s documents %s, which no route serves", doc, op)
		}
	}
}

// The README's list of the S3 operations answered is the S3 table's: an
// operation routed without its mention, or mentioned without its route,
// fails here.
func TestReadmeListsEveryS3Operation(t *testing.T) {
	b, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	start := strings.Index(readme, "- **S3 API**")
	if start < 0 {
		t.Fatal("the README has no S3 API paragraph")
	}
	section := readme[start:]
	if end := strings.Index(section[1:], "\n- **"); end >= 0 {
		section = section[:end+1]
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("`(s3:[A-Za-z0-9]+)`").FindAllStringSubmatch(section, -1) {
		listed[m[1]] = true
	}
	routed := map[string]bool{}
	for _, rt := range gateway.S3Routes() {
		routed[rt.Op] = true
	}
	sameOperations(t, routed, listed, "the README's list of S3 operations")
	if len(routed) < 20 {
		t.Errorf("%d S3 operations routed, want the whole table", len(routed))
	}
}
