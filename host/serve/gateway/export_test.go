package gateway

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
	png := &call{q: map[string][]string{"format": {"png"}}}
	for _, rt := range keyRoutes {
		out = append(out, Route{Op: rt.op, Method: rt.method, Target: rt.match.target,
			Picture: rt.match.when != nil && rt.match.when(png),
			Write:   rt.access == accessWrite, Read: rt.access == accessRead})
	}
	return out
}

// S3Routes are the S3 API's rows.
func S3Routes() []Route {
	var out []Route
	for _, rt := range s3Routes {
		out = append(out, Route{Op: rt.op, Method: rt.method, Query: rt.match.query, Header: rt.match.header, Target: rt.match.target,
			Write: rt.access == accessWrite, Read: rt.access == accessRead})
	}
	return out
}

// ServiceOps are the operations of the gateway's own paths.
func ServiceOps() []string {
	var out []string
	for _, rt := range serviceRoutes {
		if rt.op != "" {
			out = append(out, rt.op)
		}
	}
	return out
}
