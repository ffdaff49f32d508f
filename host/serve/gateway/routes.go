package gateway

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/zarrgw/zarrgw/host/serve/server"
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

func isPNG(c *server.Call) bool    { return c.Query().Get("format") == "png" }
func isNotPNG(c *server.Call) bool { return !isPNG(c) }

// valueHandler answers a request on a dataset's key or node; the S3 API
// calls the same functions (serveValue, eraseValue, ...).
type valueHandler func(g *Gateway, w http.ResponseWriter, r *http.Request, ds *server.Dataset, key string) error

// onValue is the row handler of a valueHandler.
func onValue(f valueHandler) handler {
	return func(g *Gateway, c *server.Call) error { return f(g, c.W, c.R, c.DS, c.Key) }
}

// keyRow is a row of the key and array APIs. A browser asking for a node
// (a path that holds no value) is sent to its page instead.
func (g *Gateway) keyRow(op string, shape keyShape, method string, a server.Access, k server.Cost, f server.Handler) server.Route {
	return server.Route{Op: op, Method: method, Match: server.Match{Target: string(shape)}, Access: a, Cost: k,
		Handle: func(c *server.Call) error {
			if server.WantsHTML(c.R) && g.isNodePath(c.R, c.DS, c.Key) {
				http.Redirect(c.W, c.R, server.NodeURL(c.DS.Name, c.Key), http.StatusSeeOther)
				return nil
			}
			return f(c)
		}}
}

// forPictures narrows a slice row to pictures (want) or to the rest.
func forPictures(rt server.Route, want bool) server.Route {
	rt.Match.When = isNotPNG
	if want {
		rt.Match.When = isPNG
	}
	return rt
}

// keyRoutes is the key and array APIs, as data. openapi.json documents
// each operation under its name (a test holds the two together).
func keyRoutes(g *Gateway) []server.Route {
	costPicture := g.pages.PictureCost()
	costSlice := server.Costing("slice", server.Expensive, g, estimateSlice)
	costSliceWrite := server.Costing("slice_write", server.Bodies, g, estimateSliceWrite)
	return []server.Route{
		g.keyRow("key:List", shapeList, http.MethodGet, server.AccessRead, server.CostListing, g.bind(onValue((*Gateway).List))),
		g.keyRow("key:List", shapeList, http.MethodHead, server.AccessRead, server.CostListing, g.bind(onValue((*Gateway).List))),
		g.keyRow("key:Index", shapeIndex, http.MethodGet, server.AccessRead, server.CostListing, g.bind(onValue((*Gateway).index))),
		g.keyRow("key:IndexHead", shapeIndex, http.MethodHead, server.AccessRead, server.CostListing, g.bind(onValue((*Gateway).index))),
		g.keyRow("node:Meta", shapeMeta, http.MethodGet, server.AccessRead, server.CostNone, g.bind(onValue((*Gateway).nodeMeta))),
		g.keyRow("node:Meta", shapeMeta, http.MethodHead, server.AccessRead, server.CostNone, g.bind(onValue((*Gateway).nodeMeta))),
		forPictures(g.keyRow("array:Picture", shapeSlice, http.MethodGet, server.AccessRead, costPicture, g.pages.Picture), true),
		forPictures(g.keyRow("array:Picture", shapeSlice, http.MethodHead, server.AccessRead, costPicture, g.pages.Picture), true),
		forPictures(g.keyRow("array:Slice", shapeSlice, http.MethodGet, server.AccessRead, costSlice, g.bind((*Gateway).getSlice)), false),
		forPictures(g.keyRow("array:Slice", shapeSlice, http.MethodHead, server.AccessRead, costSlice, g.bind((*Gateway).getSlice)), false),
		g.keyRow("array:PutSlice", shapeSlice, http.MethodPut, server.AccessWrite, costSliceWrite, g.bind((*Gateway).putSlice)),
		g.keyRow("key:Get", shapeKey, http.MethodGet, server.AccessRead, server.CostNone, g.bind(onValue((*Gateway).serveKey))),
		g.keyRow("key:Head", shapeKey, http.MethodHead, server.AccessRead, server.CostNone, g.bind(onValue((*Gateway).serveKey))),
		g.keyRow("key:Put", shapeKey, http.MethodPut, server.AccessWrite, server.CostUpload, g.bind((*Gateway).putKey)),
		g.keyRow("key:Delete", shapeKey, http.MethodDelete, server.AccessWrite, server.CostNone, g.bind(onValue((*Gateway).EraseValue))),
	}
}

// serveDataset answers a request below /d/NAME/ (the key and array
// APIs): the path is checked and the dataset found before the request's
// row in keyRoutes goes through the middleware. A method no row takes is
// answered 405 to readers only.
func (g *Gateway) serveDataset(c *server.Call) error {
	escaped := c.R.URL.EscapedPath()
	dir := strings.HasSuffix(escaped, "/")
	trimmed := strings.TrimSuffix(escaped, "/")
	name, key, err := server.SplitDatasetPath(trimmed)
	if err == nil && strings.HasSuffix(trimmed, "/") {
		err = server.ErrBadPath // "//": an empty segment
	}
	if err != nil {
		return server.BadRequest(server.KeyProblem(err))
	}
	c.Info.Dataset, c.Info.Key, c.Key = name, key, key
	ds, ok := g.Dataset(name)
	if !ok {
		return &server.RequestError{Status: http.StatusNotFound, Msg: "no dataset " + name}
	}
	c.DS = ds
	c.Target = string(shapeOf(c.Query(), key, dir))
	rt, allowed := server.Lookup(g.keyRows, c)
	if rt == nil {
		rt = server.Refusal(server.AccessRead, server.NotAllowed(c.R, allowed))
	}
	return g.Pass(c, server.Bearer, rt)
}

// serviceRow is a row of the gateway's own paths: any method.
func (g *Gateway) serviceRow(op string, path func(string) bool, a server.Access, f handler) server.Route {
	return server.Route{Op: op, Match: server.Match{Path: path}, Access: a, Handle: g.bind(f)}
}

// serviceRoutes are the gateway's own paths, and the mounts of its faces
// (the pages below /ui, the key and array APIs below /d/NAME/), whose
// own rows name their operations and methods. These rows take any method.
func serviceRoutes(g *Gateway) []server.Route {
	return []server.Route{
		g.serviceRow("service:Health", server.Exactly("/healthz"), server.AccessNone, serveHealth),
		g.serviceRow("service:Ready", server.Exactly("/readyz"), server.AccessNone, func(g *Gateway, c *server.Call) error {
			g.Ready.Serve(c.W, c.R)
			return nil
		}),
		g.serviceRow("service:Metrics", server.Exactly("/metrics"), server.AccessMetrics, func(g *Gateway, c *server.Call) error {
			g.Metrics.Handler().ServeHTTP(c.W, c.R)
			return nil
		}),
		g.serviceRow("service:OpenAPI", server.Exactly("/openapi.json"), server.AccessNone, func(_ *Gateway, c *server.Call) error {
			serveOpenAPI(c.W, c.R)
			return nil
		}),
		g.serviceRow("ui:Redirect", server.Exactly("/"), server.AccessNone, redirectTo("/ui/", http.StatusFound)),
		g.serviceRow("ui:Page", func(p string) bool { return p == "/ui" || strings.HasPrefix(p, "/ui/") }, server.AccessNone, func(g *Gateway, c *server.Call) error { return g.pages.Serve(c) }),
		// a browser is sent to the pages before it is asked who it is
		{Op: "key:ListDatasets", Match: server.Match{Path: server.Exactly("/d", "/d/"), When: wantsHTMLCall}, Handle: g.bind(redirectTo("/ui/", http.StatusSeeOther))},
		g.serviceRow("key:ListDatasets", server.Exactly("/d", "/d/"), server.AccessAny, (*Gateway).serveDatasetList),
		g.serviceRow("", server.Below("/d/"), server.AccessNone, (*Gateway).serveDataset), // keyRoutes name it
	}
}

func serveHealth(_ *Gateway, c *server.Call) error {
	server.WriteText(c.W, http.StatusOK, "ok")
	return nil
}

func redirectTo(url string, status int) handler {
	return func(_ *Gateway, c *server.Call) error {
		http.Redirect(c.W, c.R, url, status)
		return nil
	}
}

func wantsHTMLCall(c *server.Call) bool { return server.WantsHTML(c.R) }

// serveDatasetList answers GET /d/ with the datasets the caller may read.
func (g *Gateway) serveDatasetList(c *server.Call) error {
	caller := c.Info.Caller
	type entry struct {
		Name     string `json:"name"`
		ReadOnly bool   `json:"read_only"`
		Writable bool   `json:"writable"`
	}
	out := struct {
		Datasets []entry `json:"datasets"`
	}{Datasets: []entry{}}
	for _, ds := range g.All() {
		if g.Authorize(ds, caller, false) != nil {
			continue
		}
		out.Datasets = append(out.Datasets, entry{Name: ds.Name, ReadOnly: ds.Cfg.ReadOnly, Writable: g.Authorize(ds, caller, true) == nil})
	}
	server.WriteJSON(c.W, http.StatusOK, out)
	return nil
}

// isNodePath reports whether a browser's request names a node rather than
// a stored value (a key with a value is served as it is).
func (g *Gateway) isNodePath(r *http.Request, ds *server.Dataset, key string) bool {
	if key == "" {
		return true
	}
	_, err := ds.Stat(r.Context(), key)
	return server.IsNotFound(err)
}
