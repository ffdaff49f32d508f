package server

import (
	"net/http"
	"slices"
)

// cors adds the CORS headers a browser needs to read from another origin
// (zarrita.js in a page, say) and answers preflight requests; it reports
// true when the request is fully answered.
func (g *Server) cors(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	allowedOrigins := g.Cfg.Server.CORSOrigins
	if origin != "" && len(allowedOrigins) > 0 {
		h := w.Header()
		switch {
		case slices.Contains(allowedOrigins, "*"):
			h.Set("Access-Control-Allow-Origin", "*")
		case slices.Contains(allowedOrigins, origin):
			h.Set("Access-Control-Allow-Origin", origin)
			h.Add("Vary", "Origin")
		default:
			origin = "" // not allowed: no CORS headers at all
		}
		if origin != "" {
			h.Set("Access-Control-Expose-Headers", "Content-Range, Content-Length, ETag, Accept-Ranges, Zarr-Shape, Zarr-Data-Type, X-Zarrgw-Vmin, X-Zarrgw-Vmax, X-Zarrgw-Colormap")
		}
	}
	if r.Method != http.MethodOptions {
		return false
	}
	h := w.Header()
	h.Set("Allow", "GET, HEAD, PUT, DELETE, OPTIONS")
	if origin != "" && r.Header.Get("Access-Control-Request-Method") != "" {
		h.Set("Access-Control-Allow-Methods", "GET, HEAD, PUT, DELETE, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Range, Authorization, Content-Type, If-Match, If-None-Match")
		h.Set("Access-Control-Max-Age", "3600")
	}
	w.WriteHeader(http.StatusNoContent)
	return true
}
