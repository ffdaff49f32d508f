// Package keyapi is the gateway's key face: every dataset's keys below
// /d/NAME/ (GET, HEAD, PUT, DELETE with byte ranges, ETags and
// conditional requests, as Zarr clients read over HTTP), its index pages
// and listings, and the array API (node metadata, slices read and
// written as .npy, raw or JSON), over the serving core
// (host/serve/server). Pictures of arrays (?format=png) are rows of its
// table that the pages face answers (Pictures).
package keyapi

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/zarrgw/zarrgw/host/serve/server"
	"github.com/zarrgw/zarrgw/host/serve/server/keypath"
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
type valueHandler func(g *API, w http.ResponseWriter, r *http.Request, ds *server.Dataset, key string) error

// API is the key face of one server.
type API struct {
	*server.Server
	rows []server.Route
}

// Pictures are the rows of the key table that another face answers:
// ?format=png on an array, drawn by the pages face.
type Pictures struct {
	Handle server.Handler
	Cost   server.Cost
}

// New is the key face of s, its pictures answered by pics.
func New(s *server.Server, pics Pictures) *API {
	g := &API{Server: s}
	g.rows = keyRoutes(g, pics)
	return g
}

// Routes are the key table's rows, for the tests that hold them against
// openapi.json.
func (g *API) Routes() []server.Route { return g.rows }

// handler is a handler of the key face's rows.
type handler func(g *API, c *server.Call) error

func (g *API) bind(f handler) server.Handler { return server.Bind(g, f) }

// onValue is the row handler of a valueHandler.
func onValue(f valueHandler) handler {
	return func(g *API, c *server.Call) error { return f(g, c.W, c.R, c.DS, c.Key) }
}

// keyRow is a row of the key and array APIs. A browser asking for a node
// (a path that holds no value) is sent to its page instead.
func (g *API) keyRow(op string, shape keyShape, method string, a server.Access, k server.Cost, f server.Handler) server.Route {
	return server.Route{Op: op, Method: method, Match: server.Match{Target: string(shape)}, Access: a, Cost: k,
		Handle: func(c *server.Call) error {
			if server.WantsHTML(c.R) && g.isNodePath(c.R, c.DS, c.Key) {
				http.Redirect(c.W, c.R, keypath.NodeURL(c.DS.Name, c.Key), http.StatusSeeOther)
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
func keyRoutes(g *API, pics Pictures) []server.Route {
	costPicture := pics.Cost
	costSlice := server.Costing("slice", server.Expensive, g, estimateSlice)
	costSliceWrite := server.Costing("slice_write", server.Bodies, g, estimateSliceWrite)
	return []server.Route{
		g.keyRow("key:List", shapeList, http.MethodGet, server.AccessRead, server.CostListing, g.bind(onValue((*API).list))),
		g.keyRow("key:List", shapeList, http.MethodHead, server.AccessRead, server.CostListing, g.bind(onValue((*API).list))),
		g.keyRow("key:Index", shapeIndex, http.MethodGet, server.AccessRead, server.CostListing, g.bind(onValue((*API).index))),
		g.keyRow("key:IndexHead", shapeIndex, http.MethodHead, server.AccessRead, server.CostListing, g.bind(onValue((*API).index))),
		g.keyRow("node:Meta", shapeMeta, http.MethodGet, server.AccessRead, server.CostNone, g.bind(onValue((*API).nodeMeta))),
		g.keyRow("node:Meta", shapeMeta, http.MethodHead, server.AccessRead, server.CostNone, g.bind(onValue((*API).nodeMeta))),
		forPictures(g.keyRow("array:Picture", shapeSlice, http.MethodGet, server.AccessRead, costPicture, pics.Handle), true),
		forPictures(g.keyRow("array:Picture", shapeSlice, http.MethodHead, server.AccessRead, costPicture, pics.Handle), true),
		forPictures(g.keyRow("array:Slice", shapeSlice, http.MethodGet, server.AccessRead, costSlice, g.bind((*API).getSlice)), false),
		forPictures(g.keyRow("array:Slice", shapeSlice, http.MethodHead, server.AccessRead, costSlice, g.bind((*API).getSlice)), false),
		g.keyRow("array:PutSlice", shapeSlice, http.MethodPut, server.AccessWrite, costSliceWrite, g.bind((*API).putSlice)),
		g.keyRow("key:Get", shapeKey, http.MethodGet, server.AccessRead, server.CostNone, g.bind(onValue((*API).serveKey))),
		g.keyRow("key:Head", shapeKey, http.MethodHead, server.AccessRead, server.CostNone, g.bind(onValue((*API).serveKey))),
		g.keyRow("key:Put", shapeKey, http.MethodPut, server.AccessWrite, server.CostUpload, g.bind((*API).putKey)),
		g.keyRow("key:Delete", shapeKey, http.MethodDelete, server.AccessWrite, server.CostNone, g.bind(onValue((*API).EraseValue))),
	}
}

// Serve answers a request below /d/NAME/ (the key and array
// APIs): the path is checked and the dataset found before the request's
// row in keyRoutes goes through the middleware. A method no row takes is
// answered 405 to readers only.
func (g *API) Serve(c *server.Call) error {
	escaped := c.R.URL.EscapedPath()
	dir := strings.HasSuffix(escaped, "/")
	trimmed := strings.TrimSuffix(escaped, "/")
	name, key, err := keypath.SplitDatasetPath(trimmed)
	if err == nil && strings.HasSuffix(trimmed, "/") {
		err = keypath.ErrBadPath // "//": an empty segment
	}
	if err != nil {
		return server.BadRequest(keypath.KeyProblem(err))
	}
	c.Info.Dataset, c.Info.Key, c.Key = name, key, key
	ds, ok := g.Dataset(name)
	if !ok {
		return &server.RequestError{Status: http.StatusNotFound, Msg: "no dataset " + name}
	}
	c.DS = ds
	c.Target = string(shapeOf(c.Query(), key, dir))
	rt, allowed := server.Lookup(g.rows, c)
	if rt == nil {
		rt = server.Refusal(server.AccessRead, server.NotAllowed(c.R, allowed))
	}
	return g.Pass(c, server.Bearer, rt)
}

// ListDatasets answers GET /d/ with the datasets the caller may read.
func (g *API) ListDatasets(c *server.Call) error {
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
func (g *API) isNodePath(r *http.Request, ds *server.Dataset, key string) bool {
	if key == "" {
		return true
	}
	_, err := ds.Stat(r.Context(), key)
	return server.IsNotFound(err)
}
