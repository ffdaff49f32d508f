package server

import (
	"net"
	"net/http"
)

// metricsAccess is the access of /metrics: the principals of the server
// block's metrics { read = [...] }, or, without that block, clients on
// this machine only: the metrics name every dataset, private ones
// included. A reverse proxy on the same machine makes every client
// local, so a gateway behind one declares the block.
func (g *Server) metricsAccess(c *Call) error {
	access := g.Cfg.Server.Metrics
	switch {
	case access == nil && !fromLoopback(c.R):
		return &RequestError{http.StatusForbidden,
			"/metrics answers clients on this machine only; a metrics { read = [...] } block in the server block opens it to principals"}
	case access == nil, c.Info.Caller.Allowed(access.Read):
		return nil
	case c.Info.Caller.Anonymous():
		return &AccessError{Msg: "/metrics needs a token", challenge: true}
	}
	return &AccessError{Msg: "no read access to /metrics"}
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
