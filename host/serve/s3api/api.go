// Package s3api is the gateway's S3 face, with STS: every dataset a
// bucket of the same name, served through the serving core's datasets,
// middleware, limits, metrics and access log (host/serve/server); its
// wire format (s3wire) and signatures (sigv4) lie below it.
package s3api

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/zarrgw/zarrgw/host/serve/identity"
	"github.com/zarrgw/zarrgw/host/serve/identity/sts"
	"github.com/zarrgw/zarrgw/host/serve/server"
	"github.com/zarrgw/zarrgw/host/serve/server/keypath"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/serve/s3api/s3wire"
	"github.com/zarrgw/zarrgw/host/serve/s3api/sigv4"
)

// API is the gateway's S3 face: every dataset a bucket of the same
// name. A request goes through the same datasets, access checks, key
// checks, body limit, metrics and access log as the key API; only the
// dialect differs (paths, signatures, XML, error codes).
type API struct {
	g        *server.Server
	listener *config.S3Listener
	verifier *sigv4.Verifier
	// issuer seals and opens session credentials; nil without an sts
	// block.
	issuer *sts.Issuer
	// keys are the principals' access keys: each one's secret, and the
	// caller its requests act as (made once, not per request)
	keys    map[string]s3Key
	stop    chan struct{}
	stopped sync.WaitGroup
}

// s3Key is a principal's access key.
type s3Key struct {
	secret string
	caller identity.Caller
}

// New makes the S3 face of s for the listener l: the principals' access
// keys, STS when l has a block for it, the buckets made earlier, and the
// clean-up of abandoned multipart uploads (ended by Close).
func New(ctx context.Context, g *server.Server, l *config.S3Listener) (*API, error) {
	api := &API{g: g, listener: l, stop: make(chan struct{}), keys: map[string]s3Key{}}
	for _, p := range g.Cfg.Principals {
		if _, seen := api.keys[p.S3AccessKeyID]; p.S3AccessKeyID != "" && !seen { // the first, as PrincipalByAccessKey finds
			api.keys[p.S3AccessKeyID] = s3Key{secret: p.S3SecretAccessKey,
				caller: identity.Caller{Principals: []string{p.Name}, Method: identity.SigV4}}
		}
	}
	api.verifier = &sigv4.Verifier{Region: l.Region, Secrets: func(id string) (string, bool) {
		k, ok := api.keys[id]
		return k.secret, ok
	}}
	var err error
	if api.issuer, err = newIssuer(l.STS); err != nil {
		return nil, err
	}
	// only a request carrying a session token has a slot for its session
	// (see authenticate): others are signed by a principal's key, and
	// openSession need not look for a token in them again
	api.verifier.Sessions = func(r *http.Request, id string) (string, bool, error) {
		if _, ok := r.Context().Value(sessionKey{}).(*sessionSlot); !ok {
			return "", false, nil
		}
		return api.openSession(r, id)
	}
	if err := api.loadBuckets(ctx); err != nil {
		return nil, err
	}
	api.stopped.Add(1)
	go api.janitor()
	return api, nil
}

// Close stops the clean-up of abandoned multipart uploads.
func (api *API) Close() {
	close(api.stop)
	api.stopped.Wait()
}

// s3Request is one S3 request on its way.
type s3Request struct {
	w      http.ResponseWriter
	r      *http.Request
	info   *server.RequestInfo
	c      *server.Call
	id     string
	bucket string
	key    string
	caller identity.Caller
	signed *sigv4.Request // nil for anonymous requests
	api    *API
}

// s3Of is the S3 request of a call on the S3 face.
func s3Of(c *server.Call) *s3Request { return c.Ext.(*s3Request) }

// query is the request's query, parsed once (see call.query).
func (req *s3Request) query() url.Values { return req.c.Query() }

// ServeHTTP answers one S3 or STS request.
func (api *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g := api.g
	rw, c := server.Begin(w, r, g.Cfg.Server)
	start := time.Now()
	defer g.Done(rw, c.R, c.Info, start)
	req := &s3Request{w: rw, r: c.R, info: c.Info, c: c, id: requestID(), api: api}
	c.Ext, c.Decoded = req, true
	// both headers' values in one slice (Header.Set makes one per value);
	// each capped, so an Add to either copies rather than writes over the
	// other
	vals := []string{req.id, "zarrgw"}
	h := rw.Header()
	h["X-Amz-Request-Id"], h["Server"] = vals[0:1:1], vals[1:2:2]
	if sts.IsSTSRequest(c.R) {
		if err := g.Pass(c, sigV4, &stsRoute); err != nil {
			api.failSTS(req, err)
		}
		return
	}
	if err := api.serve(req); err != nil {
		api.fail(req, err)
	}
}

// sigV4 is the S3 face: a request signed with a principal's access key
// or a session's credentials, or anonymous.
var sigV4 = &server.Face{
	Identify: func(c *server.Call) (identity.Caller, error) {
		req := s3Of(c)
		err := req.api.authenticate(req)
		return req.caller, err
	},
	Reason: s3FailureReason,
}

// serve addresses a request (its bucket and key, checked) and passes it
// through its row in s3Routes, which names the operation, the access it
// needs and what answers it.
func (api *API) serve(req *s3Request) error {
	var err error
	if req.bucket, req.key, err = api.route(req.r); err != nil {
		return err
	}
	req.info.Dataset, req.info.Key, req.c.Key = req.bucket, req.key, req.key
	if req.r.Method == http.MethodHead && req.bucket != "" && req.key == "" {
		req.w.Header().Set("X-Amz-Bucket-Region", api.listener.Region) // clients find a bucket's region this way, allowed or not
	}
	return api.g.Pass(req.c, sigV4, findS3Route(req))
}

// slowDown words a request over a rate limit: S3's SlowDown.
func slowDown(over *server.RateError) error {
	e := s3wire.Errorf(s3wire.SlowDown, "Please reduce your request rate.")
	e.Detail = fmt.Sprintf("over the rate limit of %s", over.Decision.Limiter)
	return e
}

// route finds the bucket and key: from the host name when it is
// BUCKET.DOMAIN, else from the path (/BUCKET/KEY). The key's segments are
// checked as the key API checks them, before anything else happens.
func (api *API) route(r *http.Request) (bucket, key string, err error) {
	path := r.URL.EscapedPath()
	if api.listener.Domain != "" {
		host, _, splitErr := net.SplitHostPort(r.Host)
		if splitErr != nil {
			host = r.Host
		}
		if b, ok := strings.CutSuffix(host, "."+api.listener.Domain); ok && b != "" {
			key, err := routeKey(strings.TrimPrefix(path, "/"))
			return b, key, err
		}
	}
	rest := strings.TrimPrefix(path, "/")
	if rest == "" {
		return "", "", nil
	}
	b, k, _ := strings.Cut(rest, "/")
	if bucket, err = keypath.DecodeSegment(b); err != nil {
		return "", "", s3wire.Errorf(s3wire.InvalidBucketName, "the bucket name is not valid")
	}
	key, err = routeKey(k)
	return bucket, key, err
}

// routeKey decodes and checks an escaped key. A key may end in "/" (S3
// tools name "directories" so); no store holds one, and objectOp answers
// for them without asking.
func routeKey(escaped string) (string, error) {
	if escaped == "" {
		return "", nil
	}
	dir := strings.HasSuffix(escaped, "/")
	key, err := keypath.DecodeKey(strings.TrimSuffix(escaped, "/"))
	if err != nil {
		return "", s3wire.Errorf(s3wire.InvalidArgument, keypath.KeyProblem(err))
	}
	switch err := keypath.CheckWhole(key); {
	case errors.Is(err, keypath.ErrKeyTooLong):
		return "", s3wire.Errorf(s3wire.KeyTooLongError, keypath.KeyProblem(err))
	case err != nil:
		return "", s3wire.Errorf(s3wire.InvalidArgument, keypath.KeyProblem(err))
	}
	if dir {
		key += "/"
	}
	return key, nil
}

// authenticate verifies the signature (anonymous requests act as "*"):
// a session's credentials act as its principal, a principal's key as
// that principal.
func (api *API) authenticate(req *s3Request) error {
	req.caller = identity.Caller{Method: identity.Anonymous}
	if !sigv4.Signed(req.r) {
		return nil
	}
	// only a request with a session token needs a place for its session
	// (the common signed request pays nothing for sessions): a token in
	// the header or the query, even an empty one, as sts.SecurityToken
	// finds them (two different tokens are refused there)
	r, slot := req.r, (*sessionSlot)(nil)
	if len(req.r.Header["X-Amz-Security-Token"]) > 0 || req.query().Has("X-Amz-Security-Token") {
		r, slot = withSessionSlot(req.r)
	}
	signed, err := api.verifier.VerifyQuery(r, req.query())
	if err != nil {
		return signatureError(err)
	}
	req.signed = signed
	if s := sessionIn(slot); s != nil {
		req.caller = identity.Caller{Principals: []string{s.Principal}, Method: identity.Session, Subject: s.Subject, Provider: s.Provider}
		return nil
	}
	k, ok := api.keys[signed.Credential.AccessKeyID]
	if !ok { // the verifier found its secret, so it has one
		return s3wire.Errorf(s3wire.InvalidAccessKeyID, "The AWS Access Key Id you provided does not exist in our records.")
	}
	req.caller = k.caller // shared by its requests: Principals is never written
	return nil
}

// signatureError maps a signature failure onto its S3 error code.
func signatureError(err error) error {
	if se := (*sessionError)(nil); errors.As(err, &se) {
		return se.e
	}
	code := s3wire.AccessDenied
	switch {
	case errors.Is(err, sigv4.ErrUnknownKey):
		code = s3wire.InvalidAccessKeyID
	case errors.Is(err, sigv4.ErrSignature):
		code = s3wire.SignatureDoesNotMatch
	case errors.Is(err, sigv4.ErrSkewed):
		code = s3wire.RequestTimeTooSkewed
	case errors.Is(err, sigv4.ErrMalformed):
		code = s3wire.AuthorizationHeaderMalformed
		if m := (*sigv4.Malformed)(nil); errors.As(err, &m) && m.Query {
			code = s3wire.AuthorizationQueryParametersError
		}
	case errors.Is(err, sigv4.ErrPayloadMismatch):
		code = s3wire.XAmzContentSHA256Mismatch
	case errors.Is(err, sigv4.ErrChecksum):
		code = s3wire.BadDigest
	}
	e := s3wire.Errorf(code, err.Error())
	var m *sigv4.Malformed
	if errors.As(err, &m) && m.Region != "" {
		e = e.With("Region", m.Region)
	}
	var u *sigv4.UnknownKey
	if errors.As(err, &u) {
		e = e.With("AWSAccessKeyId", u.ID)
	}
	if errors.Is(err, sigv4.ErrUnsignedHeader) {
		// S3's text; the headers it names go to the log
		e.Message, e.Detail = sigv4.ErrUnsignedHeader.Error(), err.Error()
	}
	return e
}

// receive begins reading the request body: decoded from aws-chunked
// framing and checked against the signature and checksums, within
// max_request_size, and against Content-MD5, each check failing the
// read at the body's end, so that nothing is stored from a body that
// fails one. The caller releases the upload.
func (api *API) receive(req *s3Request) (*server.Upload, error) {
	r := req.r
	limit := api.g.Cfg.Server.MaxRequestSize
	payload := req.signed
	if payload == nil {
		// unsigned: aws-chunked framing and checksums still apply
		payload = &sigv4.Request{PayloadHash: r.Header.Get("X-Amz-Content-Sha256")}
		switch payload.PayloadHash {
		case "":
			payload.PayloadHash = sigv4.UnsignedPayload
		case sigv4.StreamingPayload, sigv4.StreamingPayloadTrailer:
			return nil, s3wire.Errorf(s3wire.AccessDenied, "a signed streaming payload without a signature")
		}
	}
	if r.ContentLength > framedLimit(limit) {
		return nil, server.TooLarge(limit)
	}
	r.Body = http.MaxBytesReader(req.w, r.Body, framedLimit(limit))
	in, err := payload.Body(r)
	if err != nil {
		return nil, signatureError(err)
	}
	if in, err = withContentMD5(r, in); err != nil {
		return nil, err
	}
	u, err := api.g.Receive(req.c, in, server.BodyLength(r))
	return u, s3BodyFailure(err)
}

// body reads a whole request body (a document: CreateBucket's
// configuration, a Delete or CompleteMultipartUpload list, or a part)
// into memory reserved from body_memory; release gives it back.
func (api *API) body(req *s3Request) (data []byte, release func(), err error) {
	u, err := api.receive(req)
	if err != nil {
		return nil, nil, err
	}
	if data, err = u.Data(); err != nil {
		u.Release()
		return nil, nil, s3BodyFailure(err)
	}
	return data, u.Release, nil
}

// s3BodyFailure answers a body that failed its signature or a checksum
// with S3's code for it; a body cut off for its pace stays a 408,
// whatever the framing makes of the cut.
func s3BodyFailure(err error) error {
	var be *server.BodyError
	if errors.Is(err, server.ErrSlowBody) || !errors.As(err, &be) {
		return err
	}
	if errors.Is(err, sigv4.ErrSignature) || errors.Is(err, sigv4.ErrPayloadMismatch) ||
		errors.Is(err, sigv4.ErrChecksum) || errors.Is(err, sigv4.ErrMalformed) {
		return signatureError(be.Err)
	}
	return err
}

// withContentMD5 checks the body against its Content-MD5, when it has
// one: a mismatch is the reader's error at the body's end.
func withContentMD5(r *http.Request, in io.Reader) (io.Reader, error) {
	h, ok := r.Header["Content-Md5"]
	if !ok {
		return in, nil
	}
	want, err := base64.StdEncoding.DecodeString(strings.Join(h, ""))
	if err != nil || len(want) != md5.Size {
		return nil, s3wire.Errorf(s3wire.InvalidDigest, "Content-MD5 is not a base64 MD5")
	}
	return &md5Check{in: in, h: md5.New(), want: want}, nil
}

// md5Check is a body checked against its Content-MD5 when it ends.
type md5Check struct {
	in   io.Reader
	h    hash.Hash
	want []byte
}

func (c *md5Check) Read(p []byte) (int, error) {
	n, err := c.in.Read(p)
	c.h.Write(p[:n])
	if err == io.EOF && !bytes.Equal(c.h.Sum(nil), c.want) {
		err = s3wire.Errorf(s3wire.BadDigest, "the Content-MD5 you specified did not match what was received")
	}
	return n, err
}

// framedLimit bounds an S3 body holding at most limit bytes of payload:
// aws-chunked framing adds a header line and a signature per chunk (under
// 1/64 of the payload for chunks of 8 KiB and more, S3's smallest), and
// trailers at the end (within chunkedSlack).
func framedLimit(limit int64) int64 { return limit + limit/64 + chunkedSlack }

// chunkedSlack covers the framing of a small aws-chunked body: its last
// chunk, its trailers and their signature.
const chunkedSlack = 1 << 20

// fail answers an error in S3's form: S3 errors as they are, the
// gateway's own mapped onto S3's codes.
func (api *API) fail(req *s3Request, err error) {
	var se *s3wire.Error
	var over *server.RateError
	var denied *server.AccessError
	var missing *server.NoDataset
	switch {
	case errors.As(err, &over):
		err = slowDown(over)
	case errors.As(err, &denied):
		err = s3wire.Errorf(s3wire.AccessDenied, denied.Msg)
	case errors.As(err, &missing):
		err = s3wire.Errorf(s3wire.NoSuchBucket, "the bucket "+missing.Name+" does not exist")
	}
	req.info.Err = err
	if !errors.As(err, &se) {
		se = s3Error(err)
	}
	resource := "/" + req.bucket
	if req.key != "" {
		resource += "/" + req.key
	}
	s3wire.WriteError(req.w, req.r, se, resource, req.id)
}

// s3Error maps a gateway or store error onto an S3 error code.
func s3Error(err error) *s3wire.Error {
	status := server.StatusOf(err)
	code := s3wire.InternalError
	switch status {
	case http.StatusNotFound:
		code = s3wire.NoSuchKey
	case http.StatusPreconditionFailed:
		code = s3wire.PreconditionFailed
	case http.StatusRequestedRangeNotSatisfiable:
		code = s3wire.InvalidRange
	case http.StatusRequestEntityTooLarge:
		code = s3wire.EntityTooLarge
	case http.StatusForbidden, http.StatusUnauthorized:
		code = s3wire.AccessDenied
	case http.StatusBadRequest:
		code = s3wire.InvalidRequest
	case http.StatusRequestTimeout:
		code = s3wire.RequestTimeout
	case http.StatusNotImplemented:
		code = s3wire.NotImplemented
	case http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		code = s3wire.ServiceUnavailable
	}
	if errors.Is(err, store.ErrAccessDenied) {
		code = s3wire.InternalError // the gateway's own credentials failed: not the client's doing
	}
	msg := store.PublicText(err) // s3wire.WriteError answers S3's text for code where it has one
	if code == s3wire.AccessDenied {
		msg = "Access Denied" // the store's reason, its paths among it, goes to the log
	}
	e := s3wire.Errorf(code, msg)
	if code == s3wire.InternalError && status == http.StatusBadGateway {
		e.Status = http.StatusBadGateway
	}
	return e
}

// requestID is 16 upper-case hex digits, random: it tells requests apart
// in logs and errors and guards nothing, so it comes from the runtime's
// generator (per thread, no system call) rather than crypto/rand.
func requestID() string {
	const digits = "0123456789ABCDEF"
	n := rand.Uint64()
	var id [16]byte
	for i := range id {
		id[i] = digits[n>>60]
		n <<= 4
	}
	return string(id[:])
}

// methodNotAllowed is S3's answer to a method a resource does not take,
// naming both as S3 does.
func methodNotAllowed(req *s3Request, resource string) error {
	return s3wire.Errorf(s3wire.MethodNotAllowed, req.r.Method+" is not allowed on "+strings.ToLower(resource)).
		With("Method", req.r.Method).With("ResourceType", resource)
}
