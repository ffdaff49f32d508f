package gateway

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/zarrgw/zarrgw/host/serve/identity"
)

// route is one row of a face's table, the one row type of every face
// (the gateway's own paths, the key and array APIs, the pages, the S3
// API): the requests of one method and match, the operation they are,
// the access they need, what they cost and what answers them. The
// middleware (pass) identifies the caller, applies the rate limits,
// checks the access and takes the cost from its budget, all from the
// row, before the handler runs; the operation names the request in the
// access log and metrics.
type route struct {
	op     string
	method string // "": any (the mounts of faces, whose own rows say)
	match  match
	access access
	cost   cost
	handle handler
}

// costs is the row with cost class k.
func (rt route) costs(k cost) route {
	rt.cost = k
	return rt
}

// handler answers a request its row's middleware has let through.
type handler func(g *Gateway, c *call) error

// match is what a row takes of a request besides its method: every part
// set must hold.
type match struct {
	path   func(string) bool // the URL's path (the gateway's own rows, the pages)
	target string            // what the request addresses, as its face names it (a key shape, an S3 target)
	query  string            // a query parameter the request has, or "name=value"
	header string            // a header the request has
	when   func(*call) bool  // anything else
}

// takes reports whether the row's match holds for c.
func (m *match) takes(c *call) bool {
	if m.path != nil && !m.path(c.r.URL.Path) {
		return false
	}
	if m.target != "" && m.target != c.target {
		return false
	}
	if m.header != "" && c.r.Header.Get(m.header) == "" {
		return false
	}
	if m.query != "" {
		name, value, hasValue := strings.Cut(m.query, "=")
		q := c.query()
		if !q.Has(name) || hasValue && q.Get(name) != value {
			return false
		}
	}
	return m.when == nil || m.when(c)
}

// access is what a route needs of its caller.
type access int

const (
	accessNone      access = iota // anyone, not even identified (health, static files, the faces' mounts)
	accessAnonymous               // anyone, counted as anonymous by the rate limits (STS: the token is the request)
	accessAny                     // anyone identified and within the rate limits (the pages, the dataset list, ListBuckets)
	accessRead                    // read access to the dataset
	accessWrite                   // write access to the dataset (never on a read-only one)
	accessCreate                  // the right to make buckets (S3's bucket_access write)
	accessMetrics                 // the server block's metrics { read }, or without one clients on this machine
)

// cost is a row's cost class: the budget its requests take room from
// and how much, estimated before the handler runs from the metadata and
// the query. What an estimate found (an opened array, a selection) waits
// in call.plan for the handler, so that nothing is opened twice.
type cost struct {
	name     string
	budget   func(g *Gateway) *budget // nil: the class takes from no budget
	estimate func(g *Gateway, c *call) (int64, error)
}

// takesNothing is an estimate of a request that needs no room (a HEAD
// that reads no chunk, a picture the client has already).
const takesNothing = -1

// The cost classes. Listings are bounded by their page size (max_keys)
// and take from no budget; slices and pictures take from the budget of
// expensive requests; slices written and bodies received take from that
// of request bodies.
var (
	costNone       = cost{name: "none"}
	costListing    = cost{name: "listing"}
	costSlice      = cost{name: "slice", budget: expensive, estimate: estimateSlice}
	costPicture    = cost{name: "picture", budget: expensive, estimate: estimatePicture}
	costSliceWrite = cost{name: "slice_write", budget: bodies, estimate: estimateSliceWrite}
	costUpload     = cost{name: "upload", budget: bodies, estimate: estimateBody}
)

func expensive(g *Gateway) *budget { return g.budget }
func bodies(g *Gateway) *budget    { return g.bodies }

// call is one request on its way through a face: what the face's
// addressing found, what the middleware found (the dataset, the caller,
// the room reserved) and what the handler needs. It is allocated with
// the response (see begin).
type call struct {
	w    http.ResponseWriter
	r    *http.Request
	info *requestInfo
	// target is what the request addresses, as its face names it.
	target string
	ds     *dataset // nil for rows on no dataset, until access resolves the bucket's
	key    string
	// s3 is the S3 face's request, nil on the other faces.
	s3 *s3Request
	// res is the room the row's cost took, nil when it took none.
	res *reservation
	// plan is what the cost's estimate found, for the handler.
	plan any
	q    url.Values // the query, parsed once (see query)
}

// query is the request's query, parsed on first use: a presigned URL's is
// long, and several steps read it. Its readers only read it.
func (c *call) query() url.Values {
	if c.q == nil {
		if c.r.URL.RawQuery == "" {
			c.q = noQuery // most GETs: no map to make
		} else {
			c.q = parseQuery(c.r.URL.RawQuery)
		}
	}
	return c.q
}

// noQuery is every request's query that has none; never written.
var noQuery = url.Values{}

// face is what the middleware asks of the face a row belongs to: how it
// identifies a caller, and how its failures are labelled in the metrics.
type face struct {
	identify func(g *Gateway, c *call) (identity.Caller, error)
	reason   func(err error) string
}

// bearer is the face of the gateway's own paths, the key and array APIs
// and the pages: a bearer token, or the pages' cookie.
var bearer = &face{
	identify: func(g *Gateway, c *call) (identity.Caller, error) { return g.identify(c.r) },
	reason:   identity.ReasonOf,
}

// lookup is the row of rows that takes c, or nil with the methods the
// rows matching all but the method take (counted only then, so that a
// request found costs no allocation).
func lookup(rows []route, c *call) (*route, []string) {
	for i := range rows {
		if (rows[i].method == "" || rows[i].method == c.r.Method) && rows[i].match.takes(c) {
			return &rows[i], nil
		}
	}
	var allowed []string
	for i := range rows {
		if rows[i].match.takes(c) && !slices.Contains(allowed, rows[i].method) {
			allowed = append(allowed, rows[i].method)
		}
	}
	return nil, allowed
}

// refusal is a row that refuses every request it is given with err,
// after the caller is identified and admitted as the access says: the
// answer to a request no row takes.
func refusal(a access, err error) *route {
	return &route{access: a, handle: func(*Gateway, *call) error { return err }}
}

// pass runs a request through its row: the caller identified and
// admitted by the rate limits, the access checked, the cost's room
// taken, then the handler; the room goes back when it returns.
func (g *Gateway) pass(c *call, f *face, rt *route) error {
	if rt.op != "" {
		c.info.op = rt.op
	}
	if g.needsCaller(rt.access) {
		if err := g.authenticate(c, f, rt.access); err != nil {
			return err
		}
	}
	if err := g.checkAccess(c, rt.access); err != nil {
		return err
	}
	if err := g.take(c, rt.cost); err != nil {
		return err
	}
	if c.res != nil {
		defer c.res.release()
	}
	return rt.handle(g, c)
}

// needsCaller reports whether a row's access asks who the caller is:
// /metrics without a metrics block answers by address alone.
func (g *Gateway) needsCaller(a access) bool {
	return a != accessNone && !(a == accessMetrics && g.cfg.Server.Metrics == nil)
}

// authError is a caller whose credentials were not accepted; each face
// words it.
type authError struct{ err error }

func (e *authError) Error() string { return e.err.Error() }
func (e *authError) Unwrap() error { return e.err }

// authenticate identifies the caller and applies its rate limits. A
// failed identification is charged to the client address's anonymous
// bucket: made-up credentials cost a signature check each, and must not
// come for free.
func (g *Gateway) authenticate(c *call, f *face, a access) error {
	caller := identity.Caller{Method: identity.Anonymous}
	if a != accessAnonymous {
		var err error
		if caller, err = f.identify(g, c); err != nil {
			g.metrics.authFailure(f.reason(err))
			if err := g.admitRate(c, identity.Caller{Method: identity.Anonymous}); err != nil {
				return err
			}
			return &authError{err}
		}
	}
	c.info.caller = caller
	return g.admitRate(c, caller)
}

// accessError is a caller refused by a row's access; challenge says that
// a token would help (the caller is anonymous), which the bearer faces
// answer 401 with a challenge.
type accessError struct {
	msg       string
	challenge bool
}

func (e *accessError) Error() string { return e.msg }

// noDataset is a request on a dataset (an S3 bucket) that is not served.
type noDataset struct{ name string }

func (e *noDataset) Error() string { return "no dataset " + e.name }

// checkAccess checks the access a row names, once, before its handler
// runs; for the rows on a dataset the face has not resolved (S3's
// buckets), it resolves it first.
func (g *Gateway) checkAccess(c *call, a access) error {
	switch a {
	case accessRead, accessWrite:
		if c.ds == nil {
			ds, ok := g.dataset(c.info.dataset)
			if !ok {
				return &noDataset{c.info.dataset}
			}
			c.ds = ds
		}
		err := g.authorize(c.ds, c.info.caller, a == accessWrite)
		if err != nil {
			return &accessError{msg: err.Error(), challenge: c.info.caller.Anonymous() && !(a == accessWrite && c.ds.cfg.ReadOnly)}
		}
	case accessCreate:
		return g.s3.mayCreate(c.info.caller)
	case accessMetrics:
		return g.metricsAccess(c)
	}
	return nil
}

// authorize checks a principal's scope on a dataset; writes to a
// read-only dataset are refused whoever asks.
func (g *Gateway) authorize(ds *dataset, caller identity.Caller, write bool) error {
	switch {
	case write && ds.cfg.ReadOnly:
		return &requestError{http.StatusForbidden, "dataset " + ds.name + " is read-only"}
	case write && !caller.Allowed(ds.cfg.Access.Write):
		return &requestError{http.StatusForbidden, "no write access to dataset " + ds.name}
	case !write && !caller.Allowed(ds.cfg.Access.Read):
		return &requestError{http.StatusForbidden, "no read access to dataset " + ds.name}
	}
	return nil
}

// take reserves the room a row's cost estimates for the request.
func (g *Gateway) take(c *call, k cost) error {
	if k.estimate == nil {
		return nil
	}
	n, err := k.estimate(g, c)
	if err != nil || n == takesNothing {
		return err
	}
	res, err := k.budget(g).reserve(c.r.Context(), n)
	if err != nil {
		return answerBusy(c.w, err)
	}
	c.res = res
	return nil
}

// failBearer answers an error of a bearer face (the gateway's own paths,
// the key and array APIs) as text: a refused token or an anonymous
// caller refused with the bearer challenge, the rest with their status.
func (g *Gateway) failBearer(c *call, err error) {
	var ae *authError
	var denied *accessError
	switch {
	case errors.As(err, &ae):
		var f *identity.Failure
		if errors.As(ae.err, &f) && f.Status == http.StatusServiceUnavailable {
			g.fail(c.w, c.info, &requestError{http.StatusServiceUnavailable, f.Msg})
		} else {
			g.unauthorized(c.w, c.info, `error="invalid_token"`, ae.Error())
		}
		c.info.err = identity.Detailed(ae.err)
	case errors.As(err, &denied) && denied.challenge:
		g.unauthorized(c.w, c.info, "", denied.msg)
	case errors.As(err, &denied):
		g.fail(c.w, c.info, &requestError{http.StatusForbidden, denied.msg})
	default:
		g.fail(c.w, c.info, err)
	}
}

// unauthorized answers 401 with the bearer challenge.
func (g *Gateway) unauthorized(w http.ResponseWriter, info *requestInfo, params, msg string) {
	challenge := `Bearer realm="zarrgw"`
	if params != "" {
		challenge += ", " + params
	}
	w.Header().Set("WWW-Authenticate", challenge)
	g.fail(w, info, &requestError{http.StatusUnauthorized, msg})
}

// notAllowed is the 405 of a method a shape does not take.
func notAllowed(r *http.Request, allowed []string) error {
	return &requestError{http.StatusMethodNotAllowed, r.Method + " is not allowed here; use " + strings.Join(allowed, ", ")}
}
