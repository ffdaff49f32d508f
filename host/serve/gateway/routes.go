package gateway

import (
	"net/http"
	"strings"

	"github.com/zarrgw/zarrgw/host/serve/server"
)

// serviceRow is a row of the gateway's own paths: any method.
func serviceRow(op string, path func(string) bool, a server.Access, f server.Handler) server.Route {
	return server.Route{Op: op, Match: server.Match{Path: path}, Access: a, Handle: f}
}

// serviceRoutes are the gateway's own paths, and the mounts of its faces
// (the pages below /ui, the key and array APIs below /d/NAME/), whose
// own rows name their operations and methods. These rows take any method.
func serviceRoutes(g *Gateway) []server.Route {
	return []server.Route{
		serviceRow("service:Health", server.Exactly("/healthz"), server.AccessNone, serveHealth),
		serviceRow("service:Ready", server.Exactly("/readyz"), server.AccessNone, func(c *server.Call) error {
			g.Ready.Serve(c.W, c.R)
			return nil
		}),
		serviceRow("service:Metrics", server.Exactly("/metrics"), server.AccessMetrics, func(c *server.Call) error {
			g.Metrics.Handler().ServeHTTP(c.W, c.R)
			return nil
		}),
		serviceRow("service:OpenAPI", server.Exactly("/openapi.json"), server.AccessNone, func(c *server.Call) error {
			serveOpenAPI(c.W, c.R)
			return nil
		}),
		serviceRow("ui:Redirect", server.Exactly("/"), server.AccessNone, redirectTo("/ui/", http.StatusFound)),
		serviceRow("ui:Page", func(p string) bool { return p == "/ui" || strings.HasPrefix(p, "/ui/") }, server.AccessNone, g.pages.Serve),
		// a browser is sent to the pages before it is asked who it is
		{Op: "key:ListDatasets", Match: server.Match{Path: server.Exactly("/d", "/d/"), When: wantsHTMLCall}, Handle: redirectTo("/ui/", http.StatusSeeOther)},
		serviceRow("key:ListDatasets", server.Exactly("/d", "/d/"), server.AccessAny, g.keys.ListDatasets),
		serviceRow("", server.Below("/d/"), server.AccessNone, g.keys.Serve), // the key table names it
	}
}

func serveHealth(c *server.Call) error {
	server.WriteText(c.W, http.StatusOK, "ok")
	return nil
}

func redirectTo(url string, status int) server.Handler {
	return func(c *server.Call) error {
		http.Redirect(c.W, c.R, url, status)
		return nil
	}
}

func wantsHTMLCall(c *server.Call) bool { return server.WantsHTML(c.R) }
