// Package sigv4 verifies AWS Signature Version 4 on S3 requests: the
// Authorization header form (payload hash, UNSIGNED-PAYLOAD, and the
// aws-chunked streaming forms with per-chunk signatures and trailers) and
// presigned URLs. Canonicalisation follows S3's rules exactly: the path
// encoded once, query parameters sorted, only the signed headers.
package sigv4

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

const (
	algorithm = "AWS4-HMAC-SHA256"
	// MaxSkew is how far a signed request's date may be from the clock.
	MaxSkew = 15 * time.Minute
	// timeFormat is X-Amz-Date's form.
	timeFormat = "20060102T150405Z"

	// Payload hash values that are not a hash.
	UnsignedPayload          = "UNSIGNED-PAYLOAD"
	StreamingPayload         = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"
	StreamingPayloadTrailer  = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER"
	StreamingUnsignedTrailer = "STREAMING-UNSIGNED-PAYLOAD-TRAILER"
)

// Errors, each the condition of one S3 error code.
var (
	ErrMissing         = errors.New("request is not signed")                                                 // AccessDenied (anonymous)
	ErrMalformed       = errors.New("malformed authorization")                                               // AuthorizationHeaderMalformed (see Malformed)
	ErrDate            = errors.New("AWS authentication requires a valid Date or x-amz-date header.")        // AccessDenied
	ErrUnknownKey      = errors.New("the access key does not exist")                                         // InvalidAccessKeyId (see UnknownKey)
	ErrSignature       = errors.New("the signature does not match")                                          // SignatureDoesNotMatch
	ErrSkewed          = errors.New("the difference between the request time and the server's is too large") // RequestTimeTooSkewed
	ErrExpired         = errors.New("Request has expired.")                                                  // AccessDenied
	ErrPayloadMismatch = errors.New("the payload does not match its signed hash")                            // XAmzContentSHA256Mismatch
	ErrUnsignedHeader  = errors.New("There were headers present in the request which were not signed")       // AccessDenied
)

// UnknownKey is a signature by an access key the verifier does not know.
type UnknownKey struct{ ID string }

func (u *UnknownKey) Error() string { return ErrUnknownKey.Error() + ": " + u.ID }

// Is makes every UnknownKey an ErrUnknownKey.
func (u *UnknownKey) Is(target error) bool { return target == ErrUnknownKey }

// Malformed is an authorization S3 refuses as malformed, with S3's own
// text for what is wrong (clients and their tests compare it). Query
// tells a presigned URL's parameters (AuthorizationQueryParametersError)
// from the Authorization header (AuthorizationHeaderMalformed).
type Malformed struct {
	Query  bool
	Text   string
	Region string // the right region, when the credential named another
}

func (m *Malformed) Error() string { return m.Text }

// Is makes every Malformed an ErrMalformed.
func (m *Malformed) Is(target error) bool { return target == ErrMalformed }

// malformed is a Malformed in the header (query false) or the query, its
// text in S3's words for either.
func malformed(query bool, format string, args ...any) *Malformed {
	lead := "The authorization header is malformed; "
	if query {
		lead = "Error parsing the X-Amz-Credential parameter; "
	}
	return &Malformed{Query: query, Text: lead + fmt.Sprintf(format, args...)}
}

// wrongRegion is the Malformed of a credential scoped to another region;
// it names the right one, which SDKs follow.
func (v *Verifier) wrongRegion(query bool, region string) error {
	m := malformed(query, "the region %q is wrong; expecting %q", region, v.Region)
	m.Region = v.Region
	return m
}

// queryError is a presigned URL's Malformed whose text S3 gives whole.
func queryError(text string) error { return &Malformed{Query: true, Text: text} }

// Credential is the scope a request was signed for.
type Credential struct {
	AccessKeyID string
	Date        string // yyyymmdd
	Region      string
	Service     string
}

func (c Credential) scope() string {
	return c.Date + "/" + c.Region + "/" + c.Service + "/aws4_request"
}

// Request is what a verified request carries.
type Request struct {
	Credential Credential
	// Time is X-Amz-Date.
	Time time.Time
	// PayloadHash is x-amz-content-sha256 (or UNSIGNED-PAYLOAD for
	// presigned URLs): a hex hash the body must match, or one of the
	// constants above.
	PayloadHash string
	// Signature is the request's signature, the seed of chunk signatures.
	Signature  string
	signingKey []byte
}

// Secrets finds the secret key of an access key ID ("" and false when
// there is none).
type Secrets func(accessKeyID string) (string, bool)

// Verifier checks signatures for one region.
type Verifier struct {
	Region  string
	Secrets Secrets
	// Sessions, when set, finds the secret of temporary credentials: a
	// request carrying a session token (X-Amz-Security-Token) is handled
	// by it (handled true), its error returned as the request's; others
	// go to Secrets.
	Sessions func(r *http.Request, accessKeyID string) (secret string, handled bool, err error)
	// Now is the clock (time.Now when nil), for tests.
	Now func() time.Time

	keys signingKeys
}

// signingKeys remembers derived signing keys: a key serves one secret for
// one day's scope, and deriving it costs four HMACs per request.
type signingKeys struct {
	mu   sync.Mutex
	keys map[string][]byte
}

func (c *signingKeys) get(secret string, cred Credential) []byte {
	id := secret + "\x00" + cred.scope()
	c.mu.Lock()
	defer c.mu.Unlock()
	if k, ok := c.keys[id]; ok {
		return k
	}
	if c.keys == nil || len(c.keys) >= 1024 {
		c.keys = map[string][]byte{} // old days' keys, or a flood of scopes: start again
	}
	k := signingKey(secret, cred)
	c.keys[id] = k
	return k
}

func (v *Verifier) now() time.Time {
	if v.Now != nil {
		return v.Now()
	}
	return time.Now()
}

// Signed reports whether a request carries a signature (header or query).
func Signed(r *http.Request) bool {
	if r.Header.Get("Authorization") != "" {
		return true
	}
	// a presigned URL's parameter, without parsing the query (Verify does);
	// a percent-encoded name is not taken for one, and such a request is
	// served as anonymous, never as more
	raw := r.URL.RawQuery
	return strings.HasPrefix(raw, "X-Amz-Algorithm=") || strings.Contains(raw, "&X-Amz-Algorithm=")
}

// Verify checks a request's signature, in the header or in the query
// (presigned), and returns what it says. The body is not read: a hashed
// payload is checked by the caller against PayloadHash (see Body).
func (v *Verifier) Verify(r *http.Request) (*Request, error) {
	return v.VerifyQuery(r, r.URL.Query())
}

// VerifyQuery is Verify with the request's query parsed already (a
// presigned URL's is long, and the caller reads it too).
func (v *Verifier) VerifyQuery(r *http.Request, q url.Values) (*Request, error) {
	if q.Get("X-Amz-Algorithm") != "" {
		return v.verifyPresigned(r, q)
	}
	h := r.Header.Get("Authorization")
	if h == "" {
		return nil, ErrMissing
	}
	cred, signed, sig, err := parseAuthorization(h)
	if err != nil {
		return nil, err
	}
	if cred.Region != v.Region {
		return nil, v.wrongRegion(false, cred.Region)
	}
	if err := allAmzSigned(r, signed); err != nil {
		return nil, err
	}
	req := &Request{Credential: cred, PayloadHash: r.Header.Get("X-Amz-Content-Sha256"), Signature: sig}
	if req.PayloadHash == "" {
		return nil, fmt.Errorf("%w: missing x-amz-content-sha256", ErrMalformed)
	}
	date := r.Header.Get("X-Amz-Date")
	if date == "" {
		date = r.Header.Get("Date")
	}
	if req.Time, err = parseTime(date); err != nil {
		return nil, err
	}
	if skew := v.now().Sub(req.Time); skew > MaxSkew || skew < -MaxSkew {
		return nil, ErrSkewed
	}
	canonical := canonicalRequest(r, signed, canonicalQuery(q, ""), req.PayloadHash)
	return v.check(r, req, cred, date, canonical, sig)
}

// verifyPresigned checks a signature in the query: the payload is
// unsigned, and the URL is good until X-Amz-Date + X-Amz-Expires.
func (v *Verifier) verifyPresigned(r *http.Request, q url.Values) (*Request, error) {
	if q.Get("X-Amz-Algorithm") != algorithm {
		return nil, queryError(`X-Amz-Algorithm only supports "AWS4-HMAC-SHA256"`)
	}
	for _, p := range []string{"X-Amz-Credential", "X-Amz-Signature", "X-Amz-Date", "X-Amz-SignedHeaders", "X-Amz-Expires"} {
		if q.Get(p) == "" {
			return nil, queryError("Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.")
		}
	}
	cred, err := parseCredential(q.Get("X-Amz-Credential"), true)
	if err != nil {
		return nil, err
	}
	date := q.Get("X-Amz-Date")
	t, err := time.Parse(timeFormat, date)
	if err != nil {
		return nil, queryError(`X-Amz-Date must be in the ISO8601 Long Format "yyyyMMdd'T'HHmmss'Z'"`)
	}
	if cred.Region != v.Region {
		return nil, v.wrongRegion(true, cred.Region)
	}
	if !strings.HasPrefix(date, cred.Date) {
		return nil, queryError(fmt.Sprintf("Invalid credential date %q. This date is not the same as X-Amz-Date: %q.", cred.Date, date[:min(len(date), 8)]))
	}
	expires, err := strconv.Atoi(q.Get("X-Amz-Expires"))
	switch {
	case err != nil:
		return nil, queryError("X-Amz-Expires should be a number")
	case expires < 0:
		return nil, queryError("X-Amz-Expires must be non-negative")
	case expires > 7*24*3600:
		return nil, queryError("X-Amz-Expires must be less than a week (in seconds); that is, the given X-Amz-Expires must be less than 604800 seconds")
	}
	now := v.now()
	if now.After(t.Add(time.Duration(expires) * time.Second)) {
		return nil, ErrExpired
	}
	if t.Sub(now) > MaxSkew {
		return nil, ErrSkewed // signed for a time still to come
	}
	signed := strings.Split(q.Get("X-Amz-SignedHeaders"), ";")
	if err := allAmzSigned(r, signed); err != nil {
		return nil, err
	}
	sig := q.Get("X-Amz-Signature")
	req := &Request{Credential: cred, Time: t, PayloadHash: UnsignedPayload, Signature: sig}
	if ph := r.Header.Get("X-Amz-Content-Sha256"); ph != "" {
		req.PayloadHash = ph
	}
	canonical := canonicalRequest(r, signed, canonicalQuery(q, "X-Amz-Signature"), UnsignedPayload)
	return v.check(r, req, cred, date, canonical, sig)
}

// check compares the signature of the canonical request with sig.
func (v *Verifier) check(r *http.Request, req *Request, cred Credential, date, canonical, sig string) (*Request, error) {
	if !strings.HasPrefix(date, cred.Date) {
		return nil, malformed(false, "Invalid credential date. Date is not the same as X-Amz-Date.")
	}
	secret, err := v.secret(r, cred.AccessKeyID)
	if err != nil {
		return nil, err
	}
	key := v.keys.get(secret, cred)
	want := hex.EncodeToString(hmacSHA256(key, stringToSign(date, cred, canonical)))
	if !hmac.Equal([]byte(want), []byte(sig)) {
		return nil, ErrSignature
	}
	req.signingKey = key
	return req, nil
}

// secret finds the secret an access key ID signs with: a session's, or a
// principal's.
func (v *Verifier) secret(r *http.Request, id string) (string, error) {
	if v.Sessions != nil {
		if secret, handled, err := v.Sessions(r, id); handled || err != nil {
			return secret, err
		}
	}
	secret, ok := v.Secrets(id)
	if !ok {
		return "", &UnknownKey{ID: id}
	}
	return secret, nil
}

// allAmzSigned refuses a request carrying an x-amz-* header its signature
// does not cover, as S3 does: such headers change what a request does
// (x-amz-copy-source turns a PUT into a copy), so whoever could add one in
// flight could change a signed request.
func allAmzSigned(r *http.Request, signed []string) error {
	var missing []string
	for name := range r.Header {
		lower := strings.ToLower(name)
		if strings.HasPrefix(lower, "x-amz-") && !slices.Contains(signed, lower) {
			missing = append(missing, lower)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return fmt.Errorf("%w (%s)", ErrUnsignedHeader, strings.Join(missing, ", "))
	}
	return nil
}

// parseAuthorization reads "AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=...".
func parseAuthorization(h string) (Credential, []string, string, error) {
	alg, rest, _ := strings.Cut(h, " ")
	if alg != algorithm {
		return Credential{}, nil, "", fmt.Errorf("%w: algorithm %q, only %s is supported", ErrMalformed, alg, algorithm)
	}
	parts := map[string]string{}
	for _, p := range strings.Split(rest, ",") {
		p = strings.TrimSpace(p)
		k, val, ok := strings.Cut(p, "=")
		if !ok {
			return Credential{}, nil, "", malformed(false, "the authorization component %q is malformed.", p)
		}
		parts[k] = val
	}
	if len(parts) < 3 {
		return Credential{}, nil, "", malformed(false, "the authorization header requires three components: Credential, SignedHeaders, and Signature.")
	}
	for _, k := range []string{"Credential", "SignedHeaders", "Signature"} {
		if parts[k] == "" {
			return Credential{}, nil, "", malformed(false, "missing %s.", k)
		}
	}
	cred, err := parseCredential(parts["Credential"], false)
	if err != nil {
		return Credential{}, nil, "", err
	}
	return cred, strings.Split(parts["SignedHeaders"], ";"), parts["Signature"], nil
}

// parseCredential reads "AKID/20130524/us-east-1/s3/aws4_request" from
// the header or the query, in the order S3 checks its parts.
func parseCredential(s string, query bool) (Credential, error) {
	f := strings.Split(s, "/")
	switch {
	case len(f) != 5 || f[0] == "":
		return Credential{}, malformed(query, `the Credential is mal-formed; expecting "<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request".`)
	case f[3] != "s3":
		return Credential{}, malformed(query, `incorrect service %q. This endpoint belongs to "s3".`, f[3])
	case f[4] != "aws4_request":
		return Credential{}, malformed(query, `incorrect terminal %q. This endpoint uses "aws4_request".`, f[4])
	}
	if _, err := time.Parse("20060102", f[1]); err != nil {
		return Credential{}, malformed(query, `incorrect date format %q. This date in the credential must be in the format "yyyyMMdd".`, f[1])
	}
	return Credential{AccessKeyID: f[0], Date: f[1], Region: f[2], Service: f[3]}, nil
}

func parseTime(s string) (time.Time, error) {
	if t, err := time.Parse(timeFormat, s); err == nil {
		return t, nil
	}
	if t, err := http.ParseTime(s); err == nil {
		return t.UTC(), nil
	}
	return time.Time{}, ErrDate
}

// canonicalRequest builds the canonical request of S3's SigV4.
func canonicalRequest(r *http.Request, signed []string, query, payloadHash string) string {
	var b strings.Builder
	b.Grow(256 + len(query) + len(r.URL.RawPath) + len(r.URL.Path))
	b.WriteString(r.Method)
	b.WriteByte('\n')
	b.WriteString(canonicalURI(r.URL.EscapedPath()))
	b.WriteByte('\n')
	b.WriteString(query)
	b.WriteByte('\n')
	for _, name := range signed {
		b.WriteString(name)
		b.WriteByte(':')
		b.WriteString(headerValue(r, name))
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	b.WriteString(strings.Join(signed, ";"))
	b.WriteByte('\n')
	b.WriteString(payloadHash)
	return b.String()
}

// headerValue is a signed header's value as canonicalised: values of a
// repeated header joined by commas, each trimmed, inner runs of spaces
// folded to one.
func headerValue(r *http.Request, name string) string {
	var vals []string
	switch name {
	case "host":
		vals = []string{r.Host}
	case "content-length":
		vals = r.Header.Values("Content-Length")
		if len(vals) == 0 && r.ContentLength >= 0 {
			vals = []string{strconv.FormatInt(r.ContentLength, 10)}
		}
	case "transfer-encoding":
		vals = r.Header.Values("Transfer-Encoding")
		if len(vals) == 0 && len(r.TransferEncoding) > 0 {
			vals = r.TransferEncoding
		}
	default:
		vals = r.Header.Values(name)
	}
	for i, v := range vals {
		vals[i] = strings.Join(strings.Fields(v), " ")
	}
	return strings.Join(vals, ",")
}

// canonicalURI encodes the path once as S3 does: the request's escaped
// path decoded, then each byte but the unreserved ones and '/' encoded.
func canonicalURI(escaped string) string {
	if escaped == "" {
		return "/"
	}
	p, err := url.PathUnescape(escaped)
	if err != nil {
		p = escaped
	}
	return encode(p, false)
}

// canonicalQuery sorts the query by name and value and encodes both, all
// but the parameter named skip.
func canonicalQuery(q url.Values, skip string) string {
	type kv struct{ k, v string }
	var pairs []kv
	for k, vs := range q {
		if k == skip {
			continue
		}
		for _, v := range vs {
			pairs = append(pairs, kv{encode(k, true), encode(v, true)})
		}
	}
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i].k != pairs[j].k {
			return pairs[i].k < pairs[j].k
		}
		return pairs[i].v < pairs[j].v
	})
	parts := make([]string, len(pairs))
	for i, p := range pairs {
		parts[i] = p.k + "=" + p.v
	}
	return strings.Join(parts, "&")
}

// encode percent-encodes every byte but A-Z a-z 0-9 - . _ ~ (and '/'
// unless slash is set), upper-case hex: AWS's URI encoding.
func encode(s string, slash bool) string {
	const hexd = "0123456789ABCDEF"
	i := 0
	for i < len(s) && (unreserved(s[i]) || s[i] == '/' && !slash) {
		i++
	}
	if i == len(s) {
		return s // nothing to escape: most names and values, no copy
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case unreserved(c):
			b.WriteByte(c)
		case c == '/' && !slash:
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hexd[c>>4])
			b.WriteByte(hexd[c&15])
		}
	}
	return b.String()
}

// unreserved reports whether URI encoding keeps c as it is.
func unreserved(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

func stringToSign(date string, cred Credential, canonical string) []byte {
	sum := sha256.Sum256([]byte(canonical))
	return []byte(algorithm + "\n" + date + "\n" + cred.scope() + "\n" + hex.EncodeToString(sum[:]))
}

func signingKey(secret string, cred Credential) []byte {
	k := hmacSHA256([]byte("AWS4"+secret), []byte(cred.Date))
	k = hmacSHA256(k, []byte(cred.Region))
	k = hmacSHA256(k, []byte(cred.Service))
	return hmacSHA256(k, []byte("aws4_request"))
}

func hmacSHA256(key, data []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(data)
	return m.Sum(nil)
}
