package gateway

import (
	"net/http"
	"strings"

	"github.com/zarrgw/zarrgw/host/serve/server"
)

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
		g.serviceRow("key:ListDatasets", server.Exactly("/d", "/d/"), server.AccessAny, func(g *Gateway, c *server.Call) error { return g.keys.ListDatasets(c) }),
		g.serviceRow("", server.Below("/d/"), server.AccessNone, func(g *Gateway, c *server.Call) error { return g.keys.Serve(c) }), // the key table names it
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
