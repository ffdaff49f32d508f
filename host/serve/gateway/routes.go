package gateway

import (
	"net/http"
	"net/url"
	"strings"
)

// access is what a route needs of its caller.
type access int

const (
	accessNone   access = iota // anyone: the handler decides (service routes)
	accessRead                 // read access to the dataset
	accessWrite                // write access to the dataset (never on a read-only one)
	accessCreate               // the right to make buckets (S3's bucket_access write)
)

// handler answers a request on a dataset's key or node.
type handler func(g *Gateway, w http.ResponseWriter, r *http.Request, ds *dataset, key string) error

// keyRoute is one row of the key and array APIs' table: the requests of
// one shape and method, the operation they are, the access they need and
// what answers them. Access is checked from the row before the handler
// runs; the operation names the request in the access log and metrics.
type keyRoute struct {
	op     string
	shape  keyShape
	method string
	when   func(url.Values) bool // narrows a shape (nil: any)
	access access
	handle handler
}

// keyShape is what a request below /d/NAME/ addresses, from its query.
type keyShape string

const (
	shapeList  keyShape = "list"  // ?list
	shapeIndex keyShape = "index" // a directory: a path ending in "/", or the dataset's top level
	shapeMeta  keyShape = "meta"  // ?meta
	shapeSlice keyShape = "slice" // ?slice or ?format
	shapeKey   keyShape = "key"   // a stored value (or, when none, the directory of that name)
)

// shapeOf is the shape of a request for key with query q; dir is a path
// that ended in "/".
func shapeOf(q url.Values, key string, dir bool) keyShape {
	switch {
	case q.Has("list"):
		return shapeList
	case q.Has("meta"):
		return shapeMeta
	case q.Has("slice") || q.Has("format"):
		return shapeSlice
	case dir || key == "":
		return shapeIndex
	}
	return shapeKey
}

func isPNG(q url.Values) bool    { return q.Get("format") == "png" }
func isNotPNG(q url.Values) bool { return !isPNG(q) }

// keyRoutes is the key and array APIs, as data. openapi.json documents
// each operation under its name (a test holds the two together).
var keyRoutes = []keyRoute{
	{op: "key:List", shape: shapeList, method: http.MethodGet, access: accessRead, handle: (*Gateway).list},
	{op: "key:List", shape: shapeList, method: http.MethodHead, access: accessRead, handle: (*Gateway).list},
	{op: "key:Index", shape: shapeIndex, method: http.MethodGet, access: accessRead, handle: (*Gateway).index},
	{op: "key:IndexHead", shape: shapeIndex, method: http.MethodHead, access: accessRead, handle: (*Gateway).index},
	{op: "node:Meta", shape: shapeMeta, method: http.MethodGet, access: accessRead, handle: (*Gateway).nodeMeta},
	{op: "node:Meta", shape: shapeMeta, method: http.MethodHead, access: accessRead, handle: (*Gateway).nodeMeta},
	{op: "array:Picture", shape: shapeSlice, method: http.MethodGet, when: isPNG, access: accessRead, handle: (*Gateway).getPicture},
	{op: "array:Picture", shape: shapeSlice, method: http.MethodHead, when: isPNG, access: accessRead, handle: (*Gateway).getPicture},
	{op: "array:Slice", shape: shapeSlice, method: http.MethodGet, when: isNotPNG, access: accessRead, handle: (*Gateway).getSlice},
	{op: "array:Slice", shape: shapeSlice, method: http.MethodHead, when: isNotPNG, access: accessRead, handle: (*Gateway).getSlice},
	{op: "array:PutSlice", shape: shapeSlice, method: http.MethodPut, access: accessWrite, handle: (*Gateway).putSlice},
	{op: "key:Get", shape: shapeKey, method: http.MethodGet, access: accessRead, handle: (*Gateway).serveKey},
	{op: "key:Head", shape: shapeKey, method: http.MethodHead, access: accessRead, handle: (*Gateway).serveKey},
	{op: "key:Put", shape: shapeKey, method: http.MethodPut, access: accessWrite, handle: (*Gateway).putKey},
	{op: "key:Delete", shape: shapeKey, method: http.MethodDelete, access: accessWrite, handle: (*Gateway).eraseValue},
}

// findKeyRoute is the row for a request, or nil with the methods its
// shape takes.
func findKeyRoute(r *http.Request, key string, dir bool) (*keyRoute, []string) {
	var q url.Values // nil, read as empty, for the usual request without a query
	if r.URL.RawQuery != "" {
		q = r.URL.Query()
	}
	shape := shapeOf(q, key, dir)
	var allowed []string
	for i := range keyRoutes {
		rt := &keyRoutes[i]
		if rt.shape != shape || rt.when != nil && !rt.when(q) {
			continue
		}
		if rt.method == r.Method {
			return rt, nil
		}
		allowed = append(allowed, rt.method)
	}
	return nil, allowed
}

// notAllowed is the 405 of a method a shape does not take.
func notAllowed(r *http.Request, allowed []string) error {
	return &requestError{http.StatusMethodNotAllowed, r.Method + " is not allowed here; use " + strings.Join(allowed, ", ")}
}

// serviceRoute is a row of the gateway's own paths: everything but the
// requests below /d/NAME/, which keyRoutes takes (through "dataset").
type serviceRoute struct {
	op    string
	match func(path string) bool
	serve func(g *Gateway, w http.ResponseWriter, r *http.Request, info *requestInfo)
}

func exactly(paths ...string) func(string) bool {
	return func(p string) bool {
		for _, q := range paths {
			if p == q {
				return true
			}
		}
		return false
	}
}

var serviceRoutes = []serviceRoute{
	{op: "service:Health", match: exactly("/healthz"), serve: func(_ *Gateway, w http.ResponseWriter, _ *http.Request, _ *requestInfo) {
		writeText(w, http.StatusOK, "ok")
	}},
	{op: "service:Ready", match: exactly("/readyz"), serve: func(g *Gateway, w http.ResponseWriter, r *http.Request, _ *requestInfo) {
		g.ready.serve(w, r)
	}},
	{op: "service:Metrics", match: exactly("/metrics"), serve: (*Gateway).serveMetrics},
	{op: "service:OpenAPI", match: exactly("/openapi.json"), serve: func(_ *Gateway, w http.ResponseWriter, r *http.Request, _ *requestInfo) {
		serveOpenAPI(w, r)
	}},
	{op: "ui:Redirect", match: exactly("/"), serve: func(_ *Gateway, w http.ResponseWriter, r *http.Request, _ *requestInfo) {
		http.Redirect(w, r, "/ui/", http.StatusFound)
	}},
	{op: "ui:Page", match: func(p string) bool { return p == "/ui" || strings.HasPrefix(p, "/ui/") }, serve: (*Gateway).servePages},
	{op: "key:ListDatasets", match: exactly("/d", "/d/"), serve: (*Gateway).serveDatasetList},
	{op: "", match: func(p string) bool { return strings.HasPrefix(p, "/d/") }, serve: (*Gateway).serveDataset}, // keyRoutes name it
}
