package gateway

import (
	"net"
	"net/http"
)

// serveMetrics answers /metrics to the principals of the server block's
// metrics { read = [...] }, or, without that block, to clients on this
// machine only: the metrics name every dataset, private ones included.
// A reverse proxy on the same machine makes every client local, so a
// gateway behind one declares the block.
func (g *Gateway) serveMetrics(w http.ResponseWriter, r *http.Request, info *requestInfo) {
	access := g.cfg.Server.Metrics
	if access == nil {
		if !fromLoopback(r) {
			g.fail(w, info, &requestError{http.StatusForbidden,
				"/metrics answers clients on this machine only; a metrics { read = [...] } block in the server block opens it to principals"})
			return
		}
		g.metrics.handler().ServeHTTP(w, r)
		return
	}
	caller, ok := g.who(w, r, info)
	switch {
	case !ok:
	case caller.Allowed(access.Read):
		g.metrics.handler().ServeHTTP(w, r)
	case caller.Anonymous():
		g.unauthorized(w, info, "", "/metrics needs a token")
	default:
		g.fail(w, info, &requestError{http.StatusForbidden, "no read access to /metrics"})
	}
}

// fromLoopback reports whether the request's peer is on this machine.
func fromLoopback(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
