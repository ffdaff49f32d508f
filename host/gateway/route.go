package gateway

import (
	"encoding/json"
	"net/http"
	"strings"
)

// serveDataset answers a request below /d/NAME/: the path is checked, the
// caller identified and its access checked, all before any store call.
func (g *Gateway) serveDataset(w http.ResponseWriter, r *http.Request, info *requestInfo) {
	name, key, err := splitDatasetPath(r.URL.EscapedPath())
	if err != nil {
		g.fail(w, info, badRequest(keyProblem(err)))
		return
	}
	info.dataset, info.key = name, key
	ds, ok := g.dataset(name)
	if !ok {
		g.fail(w, info, &requestError{http.StatusNotFound, "no dataset " + name})
		return
	}
	principal, known := g.principals.identify(r)
	info.principal = principal
	if !known {
		g.unauthorized(w, info, `error="invalid_token"`, "the bearer token is not known")
		return
	}
	write := r.Method == http.MethodPut || r.Method == http.MethodDelete
	if err := g.authorize(ds, principal, write); err != nil {
		if principal == anonymous && !(write && ds.cfg.ReadOnly) {
			g.unauthorized(w, info, "", err.Error())
			return
		}
		g.fail(w, info, err)
		return
	}
	if wantsHTML(r) && g.isNodePath(r, ds, key) {
		http.Redirect(w, r, nodeURL(name, key), http.StatusSeeOther)
		return
	}
	if err := g.dispatch(w, r, ds, key); err != nil {
		g.fail(w, info, err)
	}
}

// authorize checks a principal's scope on a dataset; writes to a
// read-only dataset are refused whoever asks.
func (g *Gateway) authorize(ds *dataset, principal string, write bool) error {
	switch {
	case write && ds.cfg.ReadOnly:
		return &requestError{http.StatusForbidden, "dataset " + ds.name + " is read-only"}
	case write && !allowed(ds.cfg.Access.Write, principal):
		return &requestError{http.StatusForbidden, "no write access to dataset " + ds.name}
	case !write && !allowed(ds.cfg.Access.Read, principal):
		return &requestError{http.StatusForbidden, "no read access to dataset " + ds.name}
	}
	return nil
}

// unauthorized answers 401 with the bearer challenge.
func (g *Gateway) unauthorized(w http.ResponseWriter, info *requestInfo, params, msg string) {
	challenge := `Bearer realm="zarrgw"`
	if params != "" {
		challenge += ", " + params
	}
	w.Header().Set("WWW-Authenticate", challenge)
	g.fail(w, info, &requestError{http.StatusUnauthorized, msg})
}

// dispatch picks the API a request is for: listing (?list), node
// metadata (?meta), array slices (?slice or ?format), else the key API.
func (g *Gateway) dispatch(w http.ResponseWriter, r *http.Request, ds *dataset, key string) error {
	q := r.URL.Query()
	switch {
	case q.Has("list") || key == "" && !q.Has("slice") && !q.Has("format") && !q.Has("meta"):
		if err := methods(r, http.MethodGet, http.MethodHead); err != nil {
			return err
		}
		return g.list(w, r, ds, key)
	case q.Has("meta"):
		if err := methods(r, http.MethodGet, http.MethodHead); err != nil {
			return err
		}
		return g.nodeMeta(w, r, ds, key)
	case q.Has("slice") || q.Has("format"):
		if err := methods(r, http.MethodGet, http.MethodHead, http.MethodPut); err != nil {
			return err
		}
		if r.Method == http.MethodPut {
			return g.putSlice(w, r, ds, key)
		}
		if q.Get("format") == "png" {
			return g.getPicture(w, r, ds, key)
		}
		return g.getSlice(w, r, ds, key)
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		return g.getKey(w, r, ds, key)
	case http.MethodPut:
		return g.putKey(w, r, ds, key)
	case http.MethodDelete:
		return g.deleteKey(w, r, ds, key)
	}
	return methods(r, http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete)
}

// methods refuses a request whose method is not one of allowed (405).
func methods(r *http.Request, allowed ...string) error {
	for _, m := range allowed {
		if r.Method == m {
			return nil
		}
	}
	return &requestError{http.StatusMethodNotAllowed, r.Method + " is not allowed here; use " + strings.Join(allowed, ", ")}
}

// serveDatasetList answers GET /d/ with the datasets the caller may read.
func (g *Gateway) serveDatasetList(w http.ResponseWriter, r *http.Request, info *requestInfo) {
	principal, known := g.principals.identify(r)
	info.principal = principal
	if !known {
		g.unauthorized(w, info, `error="invalid_token"`, "the bearer token is not known")
		return
	}
	type entry struct {
		Name     string `json:"name"`
		ReadOnly bool   `json:"read_only"`
		Writable bool   `json:"writable"`
	}
	out := struct {
		Datasets []entry `json:"datasets"`
	}{Datasets: []entry{}}
	for _, ds := range g.all() {
		name := ds.name
		if g.authorize(ds, principal, false) != nil {
			continue
		}
		out.Datasets = append(out.Datasets, entry{Name: name, ReadOnly: ds.cfg.ReadOnly, Writable: g.authorize(ds, principal, true) == nil})
	}
	writeJSON(w, http.StatusOK, out)
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
