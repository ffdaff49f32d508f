package gateway

import (
	"encoding/json"
	"github.com/zarrgw/zarrgw/host/serve/identity"
	"net/http"
	"strings"
)

// serveDataset answers a request below /d/NAME/: the path is checked, the
// caller identified, the request's row found in keyRoutes and the access
// the row names checked, all before any store call.
func (g *Gateway) serveDataset(w http.ResponseWriter, r *http.Request, info *requestInfo) {
	escaped := r.URL.EscapedPath()
	dir := strings.HasSuffix(escaped, "/")
	trimmed := strings.TrimSuffix(escaped, "/")
	name, key, err := splitDatasetPath(trimmed)
	if err == nil && strings.HasSuffix(trimmed, "/") {
		err = errBadPath // "//": an empty segment
	}
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
	caller, ok := g.who(w, r, info)
	if !ok {
		return
	}
	rt, allowedMethods := findKeyRoute(r, key, dir)
	need := accessRead // a method no row takes is answered 405 to readers only
	if rt != nil {
		info.op, need = rt.op, rt.access
	}
	if err := g.authorize(ds, caller, need == accessWrite); err != nil {
		if caller.Anonymous() && !(need == accessWrite && ds.cfg.ReadOnly) {
			g.unauthorized(w, info, "", err.Error())
			return
		}
		g.fail(w, info, err)
		return
	}
	if rt == nil {
		g.fail(w, info, notAllowed(r, allowedMethods))
		return
	}
	if wantsHTML(r) && g.isNodePath(r, ds, key) {
		http.Redirect(w, r, nodeURL(name, key), http.StatusSeeOther)
		return
	}
	if err := rt.handle(g, w, r, ds, key); err != nil {
		g.fail(w, info, err)
	}
}

// authorize checks a principal's scope on a dataset; writes to a
// read-only dataset are refused whoever asks.
func (g *Gateway) authorize(ds *dataset, caller identity.Caller, write bool) error {
	switch {
	case write && ds.cfg.ReadOnly:
		return &requestError{http.StatusForbidden, "dataset " + ds.name + " is read-only"}
	case write && !caller.Allowed(ds.cfg.Access.Write):
		return &requestError{http.StatusForbidden, "no write access to dataset " + ds.name}
	case !write && !caller.Allowed(ds.cfg.Access.Read):
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

// methods refuses a request whose method is not one of allowed (405).
func methods(r *http.Request, allowed ...string) error {
	for _, m := range allowed {
		if r.Method == m {
			return nil
		}
	}
	return notAllowed(r, allowed)
}

// serveDatasetList answers GET /d/ with the datasets the caller may read.
func (g *Gateway) serveDatasetList(w http.ResponseWriter, r *http.Request, info *requestInfo) {
	if wantsHTML(r) {
		http.Redirect(w, r, "/ui/", http.StatusSeeOther)
		return
	}
	caller, ok := g.who(w, r, info)
	if !ok {
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
		if g.authorize(ds, caller, false) != nil {
			continue
		}
		out.Datasets = append(out.Datasets, entry{Name: name, ReadOnly: ds.cfg.ReadOnly, Writable: g.authorize(ds, caller, true) == nil})
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
