package gateway

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
)

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

func isPNG(c *call) bool    { return c.query().Get("format") == "png" }
func isNotPNG(c *call) bool { return !isPNG(c) }

// valueHandler answers a request on a dataset's key or node; the S3 API
// calls the same functions (serveValue, eraseValue, ...).
type valueHandler func(g *Gateway, w http.ResponseWriter, r *http.Request, ds *dataset, key string) error

// onValue is the row handler of a valueHandler.
func onValue(f valueHandler) handler {
	return func(g *Gateway, c *call) error { return f(g, c.w, c.r, c.ds, c.key) }
}

// keyRow is a row of the key and array APIs. A browser asking for a node
// (a path that holds no value) is sent to its page instead.
func keyRow(op string, shape keyShape, method string, a access, k cost, f handler) route {
	return route{op: op, method: method, match: match{target: string(shape)}, access: a, cost: k,
		handle: func(g *Gateway, c *call) error {
			if wantsHTML(c.r) && g.isNodePath(c.r, c.ds, c.key) {
				http.Redirect(c.w, c.r, nodeURL(c.ds.name, c.key), http.StatusSeeOther)
				return nil
			}
			return f(g, c)
		}}
}

// forPictures narrows a slice row to pictures (want) or to the rest.
func forPictures(rt route, want bool) route {
	rt.match.when = isNotPNG
	if want {
		rt.match.when = isPNG
	}
	return rt
}

// keyRoutes is the key and array APIs, as data. openapi.json documents
// each operation under its name (a test holds the two together).
var keyRoutes = []route{
	keyRow("key:List", shapeList, http.MethodGet, accessRead, costListing, onValue((*Gateway).list)),
	keyRow("key:List", shapeList, http.MethodHead, accessRead, costListing, onValue((*Gateway).list)),
	keyRow("key:Index", shapeIndex, http.MethodGet, accessRead, costListing, onValue((*Gateway).index)),
	keyRow("key:IndexHead", shapeIndex, http.MethodHead, accessRead, costListing, onValue((*Gateway).index)),
	keyRow("node:Meta", shapeMeta, http.MethodGet, accessRead, costNone, onValue((*Gateway).nodeMeta)),
	keyRow("node:Meta", shapeMeta, http.MethodHead, accessRead, costNone, onValue((*Gateway).nodeMeta)),
	forPictures(keyRow("array:Picture", shapeSlice, http.MethodGet, accessRead, costPicture, (*Gateway).getPicture), true),
	forPictures(keyRow("array:Picture", shapeSlice, http.MethodHead, accessRead, costPicture, (*Gateway).getPicture), true),
	forPictures(keyRow("array:Slice", shapeSlice, http.MethodGet, accessRead, costSlice, (*Gateway).getSlice), false),
	forPictures(keyRow("array:Slice", shapeSlice, http.MethodHead, accessRead, costSlice, (*Gateway).getSlice), false),
	keyRow("array:PutSlice", shapeSlice, http.MethodPut, accessWrite, costSliceWrite, (*Gateway).putSlice),
	keyRow("key:Get", shapeKey, http.MethodGet, accessRead, costNone, onValue((*Gateway).serveKey)),
	keyRow("key:Head", shapeKey, http.MethodHead, accessRead, costNone, onValue((*Gateway).serveKey)),
	keyRow("key:Put", shapeKey, http.MethodPut, accessWrite, costUpload, (*Gateway).putKey),
	keyRow("key:Delete", shapeKey, http.MethodDelete, accessWrite, costNone, onValue((*Gateway).eraseValue)),
}

// serveDataset answers a request below /d/NAME/ (the key and array
// APIs): the path is checked and the dataset found before the request's
// row in keyRoutes goes through the middleware. A method no row takes is
// answered 405 to readers only.
func (g *Gateway) serveDataset(c *call) error {
	escaped := c.r.URL.EscapedPath()
	dir := strings.HasSuffix(escaped, "/")
	trimmed := strings.TrimSuffix(escaped, "/")
	name, key, err := splitDatasetPath(trimmed)
	if err == nil && strings.HasSuffix(trimmed, "/") {
		err = errBadPath // "//": an empty segment
	}
	if err != nil {
		return badRequest(keyProblem(err))
	}
	c.info.dataset, c.info.key, c.key = name, key, key
	ds, ok := g.dataset(name)
	if !ok {
		return &requestError{http.StatusNotFound, "no dataset " + name}
	}
	c.ds = ds
	c.target = string(shapeOf(c.query(), key, dir))
	rt, allowed := lookup(keyRoutes, c)
	if rt == nil {
		rt = refusal(accessRead, notAllowed(c.r, allowed))
	}
	return g.pass(c, bearer, rt)
}

// serviceRow is a row of the gateway's own paths: any method.
func serviceRow(op string, path func(string) bool, a access, f handler) route {
	return route{op: op, match: match{path: path}, access: a, handle: f}
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

func below(prefix string) func(string) bool {
	return func(p string) bool { return strings.HasPrefix(p, prefix) }
}

// serviceRoutes are the gateway's own paths, and the mounts of its faces
// (the pages below /ui, the key and array APIs below /d/NAME/), whose
// own rows name their operations and methods. These rows take any method.
var serviceRoutes = []route{
	serviceRow("service:Health", exactly("/healthz"), accessNone, serveHealth),
	serviceRow("service:Ready", exactly("/readyz"), accessNone, func(g *Gateway, c *call) error {
		g.ready.serve(c.w, c.r)
		return nil
	}),
	serviceRow("service:Metrics", exactly("/metrics"), accessMetrics, func(g *Gateway, c *call) error {
		g.metrics.handler().ServeHTTP(c.w, c.r)
		return nil
	}),
	serviceRow("service:OpenAPI", exactly("/openapi.json"), accessNone, func(_ *Gateway, c *call) error {
		serveOpenAPI(c.w, c.r)
		return nil
	}),
	serviceRow("ui:Redirect", exactly("/"), accessNone, redirectTo("/ui/", http.StatusFound)),
	serviceRow("ui:Page", func(p string) bool { return p == "/ui" || strings.HasPrefix(p, "/ui/") }, accessNone, (*Gateway).servePages),
	// a browser is sent to the pages before it is asked who it is
	{op: "key:ListDatasets", match: match{path: exactly("/d", "/d/"), when: wantsHTMLCall}, handle: redirectTo("/ui/", http.StatusSeeOther)},
	serviceRow("key:ListDatasets", exactly("/d", "/d/"), accessAny, (*Gateway).serveDatasetList),
	serviceRow("", below("/d/"), accessNone, (*Gateway).serveDataset), // keyRoutes name it
}

func serveHealth(_ *Gateway, c *call) error {
	writeText(c.w, http.StatusOK, "ok")
	return nil
}

func redirectTo(url string, status int) handler {
	return func(_ *Gateway, c *call) error {
		http.Redirect(c.w, c.r, url, status)
		return nil
	}
}

func wantsHTMLCall(c *call) bool { return wantsHTML(c.r) }

// serveDatasetList answers GET /d/ with the datasets the caller may read.
func (g *Gateway) serveDatasetList(c *call) error {
	caller := c.info.caller
	type entry struct {
		Name     string `json:"name"`
		ReadOnly bool   `json:"read_only"`
		Writable bool   `json:"writable"`
	}
	out := struct {
		Datasets []entry `json:"datasets"`
	}{Datasets: []entry{}}
	for _, ds := range g.all() {
		if g.authorize(ds, caller, false) != nil {
			continue
		}
		out.Datasets = append(out.Datasets, entry{Name: ds.name, ReadOnly: ds.cfg.ReadOnly, Writable: g.authorize(ds, caller, true) == nil})
	}
	writeJSON(c.w, http.StatusOK, out)
	return nil
}

// writeJSON answers with v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

// isNodePath reports whether a browser's request names a node rather than
// a stored value (a key with a value is served as it is).
func (g *Gateway) isNodePath(r *http.Request, ds *dataset, key string) bool {
	if key == "" {
		return true
	}
	_, err := ds.stat(r.Context(), key)
	return isNotFound(err)
}
