package server

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/zarrgw/zarrgw/host/serve/identity"
)

// Route is one row of a face's table, the one row type of every face
// (the gateway's own paths, the key and array APIs, the pages, the S3
// API): the requests of one method and match, the operation they are,
// the access they need, what they cost and what answers them. The
// middleware (Pass) identifies the caller, applies the rate limits,
// checks the access and takes the cost from its budget, all from the
// row, before the handler runs; the operation names the request in the
// access log and metrics.
type Route struct {
	Op     string
	Method string // "": any (the mounts of faces, whose own rows say)
	Match  Match
	Access Access
	Cost   Cost
	Handle Handler
}

// Costs is the row with cost class k.
func (rt Route) Costs(k Cost) Route {
	rt.Cost = k
	return rt
}

// Handler answers a request its row's middleware has let through.
type Handler func(c *Call) error

// Match is what a row takes of a request besides its method: every part
// set must hold.
type Match struct {
	Path   func(string) bool // the URL's path (the gateway's own rows, the pages)
	Target string            // what the request addresses, as its face names it (a key shape, an S3 target)
	Query  string            // a query parameter the request has, or "name=value"
	Header string            // a header the request has
	When   func(*Call) bool  // anything else
}

// takes reports whether the row's match holds for c.
func (m *Match) takes(c *Call) bool {
	if m.Path != nil && !m.Path(c.R.URL.Path) {
		return false
	}
	if m.Target != "" && m.Target != c.Target {
		return false
	}
	if m.Header != "" && c.R.Header.Get(m.Header) == "" {
		return false
	}
	if m.Query != "" {
		name, value, hasValue := strings.Cut(m.Query, "=")
		q := c.Query()
		if !q.Has(name) || hasValue && q.Get(name) != value {
			return false
		}
	}
	return m.When == nil || m.When(c)
}

// Access is what a route needs of its caller.
type Access int

const (
	AccessNone      Access = iota // anyone, not even identified (health, static files, the faces' mounts)
	AccessAnonymous               // anyone, counted as anonymous by the rate limits (STS: the token is the request)
	AccessAny                     // anyone identified and within the rate limits (the pages, the dataset list, ListBuckets)
	AccessRead                    // read access to the dataset
	AccessWrite                   // write access to the dataset (never on a read-only one)
	AccessCreate                  // the right to make buckets (S3's bucket_access write)
	AccessMetrics                 // the server block's metrics { read }, or without one clients on this machine
)

// Cost is a row's cost class: the budget its requests take room from
// and how much, estimated before the handler runs from the metadata and
// the query. What an estimate found (an opened array, a selection) waits
// in call.plan for the handler, so that nothing is opened twice.
type Cost struct {
	Name     string
	Budget   func(g *Server) *Budget // nil: the class takes from no budget
	Estimate func(c *Call) (int64, error)
}

// TakesNothing is an estimate of a request that needs no room (a HEAD
// that reads no chunk, a picture the client has already).
const TakesNothing = -1

// The cost classes. Listings are bounded by their page size (max_keys)
// and take from no budget; slices and pictures take from the budget of
// expensive requests; slices written and bodies received take from that
// of request bodies.
var (
	CostNone    = Cost{Name: "none"}
	CostListing = Cost{Name: "listing"}
	CostUpload  = Cost{Name: "upload", Budget: Bodies, Estimate: estimateBody}
)

// Expensive is the budget of expensive requests (pictures, slices).
func Expensive(g *Server) *Budget { return g.ExpensiveBudget }

// Bodies is the budget of memory held for request bodies.
func Bodies(g *Server) *Budget { return g.BodyBudget }

// Call is one request on its way through a face: what the face's
// addressing found, what the middleware found (the dataset, the caller,
// the room reserved) and what the handler needs. It is allocated with
// the response (see Begin).
type Call struct {
	W    http.ResponseWriter
	R    *http.Request
	Info *RequestInfo
	// Target is what the request addresses, as its face names it.
	Target string
	DS     *Dataset // nil for rows on no dataset, until access resolves the bucket's
	Key    string
	// Ext is what the face keeps of the request (the S3 face: its
	// signed request), nil on the others.
	Ext any
	// Decoded: the body may come framed (S3's aws-chunked), so its
	// length is the one its headers declare for the decoded bytes
	// (BodyLength), not Content-Length.
	Decoded bool
	// srv is the server whose middleware the call is in (see Pass).
	srv *Server
	// Res is the room the row's cost took, nil when it took none.
	Res *Reservation
	// Plan is what the cost's estimate found, for the handler.
	Plan any
	q    url.Values // the query, parsed once (see query)
}

// Query is the request's query, parsed on first use: a presigned URL's is
// long, and several steps read it. Its readers only read it.
func (c *Call) Query() url.Values {
	if c.q == nil {
		if c.R.URL.RawQuery == "" {
			c.q = noQuery // most GETs: no map to make
		} else {
			c.q = parseQuery(c.R.URL.RawQuery)
		}
	}
	return c.q
}

// noQuery is every request's query that has none; never written.
var noQuery = url.Values{}

// Face is what the middleware asks of the face a row belongs to: how it
// identifies a caller, and how its failures are labelled in the metrics.
type Face struct {
	Identify func(c *Call) (identity.Caller, error)
	Reason   func(err error) string
}

// Bearer is the face of the gateway's own paths, the key and array APIs
// and the pages: a bearer token, or the pages' cookie.
var Bearer = &Face{
	Identify: func(c *Call) (identity.Caller, error) { return c.srv.identify(c.R) },
	Reason:   identity.ReasonOf,
}

// Lookup is the row of rows that takes c, or nil with the methods the
// rows matching all but the method take (counted only then, so that a
// request found costs no allocation).
func Lookup(rows []Route, c *Call) (*Route, []string) {
	for i := range rows {
		if (rows[i].Method == "" || rows[i].Method == c.R.Method) && rows[i].Match.takes(c) {
			return &rows[i], nil
		}
	}
	var allowed []string
	for i := range rows {
		if rows[i].Match.takes(c) && !slices.Contains(allowed, rows[i].Method) {
			allowed = append(allowed, rows[i].Method)
		}
	}
	return nil, allowed
}

// Refusal is a row that refuses every request it is given with err,
// after the caller is identified and admitted as the access says: the
// answer to a request no row takes.
func Refusal(a Access, err error) *Route {
	return &Route{Access: a, Handle: func(*Call) error { return err }}
}

// Pass runs a request through its row: the caller identified and
// admitted by the rate limits, the access checked, the cost's room
// taken, then the handler; the room goes back when it returns.
func (g *Server) Pass(c *Call, f *Face, rt *Route) error {
	c.srv = g
	if rt.Op != "" {
		c.Info.op = rt.Op
	}
	if g.needsCaller(rt.Access) {
		if err := g.authenticate(c, f, rt.Access); err != nil {
			return err
		}
	}
	if err := g.checkAccess(c, rt.Access); err != nil {
		return err
	}
	if err := g.Take(c, rt.Cost); err != nil {
		return err
	}
	if c.Res != nil {
		defer c.Res.Release()
	}
	return rt.Handle(c)
}

// needsCaller reports whether a row's access asks who the caller is:
// /metrics without a metrics block answers by address alone.
func (g *Server) needsCaller(a Access) bool {
	return a != AccessNone && !(a == AccessMetrics && g.Cfg.Server.Metrics == nil)
}

// AuthError is a caller whose credentials were not accepted; each face
// words it.
type AuthError struct{ Err error }

func (e *AuthError) Error() string { return e.Err.Error() }
func (e *AuthError) Unwrap() error { return e.Err }

// authenticate identifies the caller and applies its rate limits. A
// failed identification is charged to the client address's anonymous
// bucket: made-up credentials cost a signature check each, and must not
// come for free.
func (g *Server) authenticate(c *Call, f *Face, a Access) error {
	caller := identity.Caller{Method: identity.Anonymous}
	if a != AccessAnonymous {
		var err error
		if caller, err = f.Identify(c); err != nil {
			g.Metrics.AuthFailure(f.Reason(err))
			if err := g.admitRate(c, identity.Caller{Method: identity.Anonymous}); err != nil {
				return err
			}
			return &AuthError{err}
		}
	}
	c.Info.Caller = caller
	return g.admitRate(c, caller)
}

// AccessError is a caller refused by a row's access; challenge says that
// a token would help (the caller is anonymous), which the bearer faces
// answer 401 with a challenge.
type AccessError struct {
	Msg       string
	challenge bool
}

func (e *AccessError) Error() string { return e.Msg }

// NoDataset is a request on a dataset (an S3 bucket) that is not served.
type NoDataset struct{ Name string }

func (e *NoDataset) Error() string { return "no dataset " + e.Name }

// checkAccess checks the access a row names, once, before its handler
// runs; for the rows on a dataset the face has not resolved (S3's
// buckets), it resolves it first.
func (g *Server) checkAccess(c *Call, a Access) error {
	switch a {
	case AccessRead, AccessWrite:
		if c.DS == nil {
			ds, ok := g.Dataset(c.Info.Dataset)
			if !ok {
				return &NoDataset{c.Info.Dataset}
			}
			c.DS = ds
		}
		err := g.Authorize(c.DS, c.Info.Caller, a == AccessWrite)
		if err != nil {
			return &AccessError{Msg: err.Error(), challenge: c.Info.Caller.Anonymous() && !(a == AccessWrite && c.DS.Cfg.ReadOnly)}
		}
	case AccessCreate:
		if g.MayCreate == nil {
			return &AccessError{Msg: "this gateway makes no datasets"}
		}
		return g.MayCreate(c.Info.Caller)
	case AccessMetrics:
		return g.metricsAccess(c)
	}
	return nil
}

// Authorize checks a principal's scope on a dataset; writes to a
// read-only dataset are refused whoever asks.
func (g *Server) Authorize(ds *Dataset, caller identity.Caller, write bool) error {
	switch {
	case write && ds.Cfg.ReadOnly:
		return &RequestError{http.StatusForbidden, "dataset " + ds.Name + " is read-only"}
	case write && !caller.Allowed(ds.Cfg.Access.Write):
		return &RequestError{http.StatusForbidden, "no write access to dataset " + ds.Name}
	case !write && !caller.Allowed(ds.Cfg.Access.Read):
		return &RequestError{http.StatusForbidden, "no read access to dataset " + ds.Name}
	}
	return nil
}

// Take reserves the room a row's cost estimates for the request.
func (g *Server) Take(c *Call, k Cost) error {
	c.srv = g
	if k.Estimate == nil {
		return nil
	}
	n, err := k.Estimate(c)
	if err != nil || n == TakesNothing {
		return err
	}
	res, err := k.Budget(g).reserve(c.R.Context(), n)
	if err != nil {
		return answerBusy(c.W, err)
	}
	c.Res = res
	return nil
}

// FailBearer answers an error of a bearer face (the gateway's own paths,
// the key and array APIs) as text: a refused token or an anonymous
// caller refused with the bearer challenge, the rest with their status.
func (g *Server) FailBearer(c *Call, err error) {
	var ae *AuthError
	var denied *AccessError
	switch {
	case errors.As(err, &ae):
		var f *identity.Failure
		if errors.As(ae.Err, &f) && f.Status == http.StatusServiceUnavailable {
			g.Fail(c.W, c.Info, &RequestError{http.StatusServiceUnavailable, f.Msg})
		} else {
			g.unauthorized(c.W, c.Info, `error="invalid_token"`, ae.Error())
		}
		c.Info.Err = identity.Detailed(ae.Err)
	case errors.As(err, &denied) && denied.challenge:
		g.unauthorized(c.W, c.Info, "", denied.Msg)
	case errors.As(err, &denied):
		g.Fail(c.W, c.Info, &RequestError{http.StatusForbidden, denied.Msg})
	default:
		g.Fail(c.W, c.Info, err)
	}
}

// unauthorized answers 401 with the bearer challenge.
func (g *Server) unauthorized(w http.ResponseWriter, info *RequestInfo, params, msg string) {
	challenge := `Bearer realm="zarrgw"`
	if params != "" {
		challenge += ", " + params
	}
	w.Header().Set("WWW-Authenticate", challenge)
	g.Fail(w, info, &RequestError{http.StatusUnauthorized, msg})
}

// NotAllowed is the 405 of a method a shape does not take.
func NotAllowed(r *http.Request, allowed []string) error {
	return &RequestError{http.StatusMethodNotAllowed, r.Method + " is not allowed here; use " + strings.Join(allowed, ", ")}
}

// Bind is h as the handler of rows of face f: a face builds its table
// with its handlers bound to itself.
func Bind[F any](f F, h func(F, *Call) error) Handler {
	return func(c *Call) error { return h(f, c) }
}

// Costing is the cost class name of face f: it takes from budget what
// estimate finds of a request.
func Costing[F any](name string, budget func(*Server) *Budget, f F, estimate func(F, *Call) (int64, error)) Cost {
	return Cost{Name: name, Budget: budget, Estimate: func(c *Call) (int64, error) { return estimate(f, c) }}
}

// Exactly matches a URL path that is one of paths.
func Exactly(paths ...string) func(string) bool {
	return func(p string) bool {
		for _, q := range paths {
			if p == q {
				return true
			}
		}
		return false
	}
}

// Below matches a URL path that starts with prefix.
func Below(prefix string) func(string) bool {
	return func(p string) bool { return strings.HasPrefix(p, prefix) }
}
