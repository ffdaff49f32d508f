package keyapi

import (
	"net/http"

	"github.com/zarrgw/zarrgw/host/serve/server"
)

// putKey stores the request body as the value of key, honouring If-Match
// and If-None-Match: * through the store's conditional write; a write
// the store would refuse is refused before the body is read.
func (g *API) putKey(c *server.Call) error {
	w, r, ds, key := c.W, c.R, c.DS, c.Key
	cond, err := g.Condition(r, ds, key)
	if err != nil {
		return err
	}
	u, err := g.Receive(c, r.Body, r.ContentLength)
	if err != nil {
		return err
	}
	defer u.Release()
	version, err := g.StoreBody(r, ds, key, cond, u)
	if err != nil {
		return err
	}
	if tag := ds.ETag(version); tag != "" {
		w.Header().Set("ETag", tag)
	}
	if cond.IfNoneMatch {
		w.WriteHeader(http.StatusCreated)
	} else {
		w.WriteHeader(http.StatusNoContent)
	}
	return nil
}
