package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/zarrgw/zarrgw/core/store"
)

// Readiness answers /readyz: every plugin answers and every dataset's
// store is reachable.
type Readiness struct{ g *Server }

func newReadiness(g *Server) *Readiness { return &Readiness{g: g} }

// probeKey is a key no dataset holds: asking for it shows that the store
// answers (ErrNotFound) without reading data.
const probeKey = "zarrgw.readiness.probe"

// Serve answers /readyz.
func (rd *Readiness) Serve(w http.ResponseWriter, r *http.Request) {
	if rd.g.Draining.Load() {
		WriteJSON(w, http.StatusServiceUnavailable, map[string]any{"ready": false, "draining": true})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	problems := map[string]string{}
	for _, p := range rd.g.host.Launcher().Plugins() {
		if err := p.Start(ctx); err != nil {
			problems["plugin "+p.Name()] = err.Error()
		}
	}
	for _, ds := range rd.g.All() {
		name := ds.Name
		if _, err := ds.Store.Stat(ctx, probeKey); err != nil && !errors.Is(err, store.ErrNotFound) {
			problems["dataset "+name] = fmt.Sprintf("store unreachable: %v", err)
		}
	}
	if len(problems) > 0 {
		WriteJSON(w, http.StatusServiceUnavailable, map[string]any{"ready": false, "problems": problems})
		return
	}
	WriteJSON(w, http.StatusOK, map[string]any{"ready": true})
}
