package gateway

import (
	"net/http"
	"net/url"

	"github.com/zarrgw/zarrgw/host/serve/keyapi"
	"github.com/zarrgw/zarrgw/host/serve/pages"
	"github.com/zarrgw/zarrgw/host/serve/s3api"
	"github.com/zarrgw/zarrgw/host/serve/server"
)

// Route is a row of the route tables as the tests outside the package
// see it: enough to make a request the row takes.
type Route struct {
	Op, Method, Query, Header string
	Target                    string // key shape, or S3 target
	Picture                   bool   // a slice row taking ?format=png
	Write, Read               bool   // the access the row needs
}

// KeyRoutes are the key and array APIs' rows.
func KeyRoutes() []Route {
	var out []Route
	png := &server.Call{R: &http.Request{URL: &url.URL{RawQuery: "format=png"}}}
	for _, rt := range keyapi.New(nil, keyapi.Pictures{Handle: pages.New(nil).Picture}).Routes() {
		out = append(out, Route{Op: rt.Op, Method: rt.Method, Target: rt.Match.Target,
			Picture: rt.Match.When != nil && rt.Match.When(png),
			Write:   rt.Access == server.AccessWrite, Read: rt.Access == server.AccessRead})
	}
	return out
}

// S3Routes are the S3 API's rows.
func S3Routes() []Route {
	var out []Route
	for _, rt := range s3api.Routes() {
		out = append(out, Route{Op: rt.Op, Method: rt.Method, Query: rt.Match.Query, Header: rt.Match.Header, Target: rt.Match.Target,
			Write: rt.Access == server.AccessWrite, Read: rt.Access == server.AccessRead})
	}
	return out
}

// ServiceOps are the operations of the gateway's own paths.
func ServiceOps() []string {
	var out []string
	for _, rt := range serviceRoutes(&Gateway{pages: pages.New(nil), keys: keyapi.New(nil, keyapi.Pictures{})}) {
		if rt.Op != "" {
			out = append(out, rt.Op)
		}
	}
	return out
}
