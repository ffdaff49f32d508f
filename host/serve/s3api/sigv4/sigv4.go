// Package sigv4 verifies AWS Signature Version 4 on S3 requests: the
// Authorization header form (payload hash, UNSIGNED-PAYLOAD, and the
// aws-chunked streaming forms with per-chunk signatures and trailers) and
// presigned URLs. Canonicalisation follows S3's rules exactly: the path
// encoded once, query parameters sorted, only the signed headers.
package sigv4

import (
	"cmp"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
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
	// text is "DATE/REGION/SERVICE/aws4_request" as the request spelled
	// it (a part of the header or parameter, not a copy), when parsed
	text string
}

func (c Credential) scope() string {
	if c.text != "" {
		return c.text
	}
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
	Signature string
	key       *derivedKey
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
// one day's scope, and deriving it costs four HMACs per request. Each
// keeps its HMACs ready (see derivedKey), so a request pays for neither
// the derivation nor the key's padding blocks.
type signingKeys struct {
	mu   sync.RWMutex
	keys map[keyID]*derivedKey
}

// keyID names a derived key without joining its parts into a new string
// per request.
type keyID struct{ secret, scope string }

// derivedKey is a signing key and HMACs keyed with it. An HMAC holds
// state, so each is used by one request at a time: taken from the pool
// and put back. After its first Reset, crypto/hmac restores the padded
// key's hashed blocks instead of hashing them again.
type derivedKey struct {
	key  []byte
	macs sync.Pool // of hash.Hash
}

// sum appends the HMAC of msg to out.
func (k *derivedKey) sum(out, msg []byte) []byte {
	m, _ := k.macs.Get().(hash.Hash)
	if m == nil {
		m = hmac.New(sha256.New, k.key)
	}
	m.Reset()
	m.Write(msg)
	out = m.Sum(out)
	k.macs.Put(m)
	return out
}

func (c *signingKeys) get(secret string, cred Credential) *derivedKey {
	id := keyID{secret, cred.scope()}
	c.mu.RLock()
	k, ok := c.keys[id]
	c.mu.RUnlock()
	if ok {
		return k
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if k, ok := c.keys[id]; ok {
		return k
	}
	if c.keys == nil || len(c.keys) >= 1024 {
		c.keys = map[keyID]*derivedKey{} // old days' keys, or a flood of scopes: start again
	}
	k = &derivedKey{key: signingKey(secret, cred)}
	// the scope is part of a request's header: kept, it would keep the
	// whole header
	c.keys[keyID{secret, strings.Clone(id.scope)}] = k
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
// presigned URL's is long, and the caller reads it too). The signature
// covers exactly q: whoever acts on the request must read its query from
// the same q.
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
	payload := r.Header.Get("X-Amz-Content-Sha256")
	if payload == "" {
		return nil, fmt.Errorf("%w: missing x-amz-content-sha256", ErrMalformed)
	}
	date := r.Header.Get("X-Amz-Date")
	if date == "" {
		date = r.Header.Get("Date")
	}
	t, err := parseTime(date)
	if err != nil {
		return nil, err
	}
	if skew := v.now().Sub(t); skew > MaxSkew || skew < -MaxSkew {
		return nil, ErrSkewed
	}
	if !strings.HasPrefix(date, cred.Date) {
		return nil, malformed(false, "Invalid credential date. Date is not the same as X-Amz-Date.")
	}
	key, err := v.signingKey(r, cred)
	if err != nil {
		return nil, err
	}
	s := getScratch()
	defer putScratch(s)
	s.buf = appendCanonicalRequest(s.buf[:0], r, signed, q, "", payload)
	if !s.matches(key, date, cred, sig) {
		return nil, ErrSignature
	}
	return &Request{Credential: cred, Time: t, PayloadHash: payload, Signature: sig, key: key}, nil
}

// verifyPresigned checks a signature in the query: the payload is
// unsigned, and the URL is good until X-Amz-Date + X-Amz-Expires.
func (v *Verifier) verifyPresigned(r *http.Request, q url.Values) (*Request, error) {
	if q.Get("X-Amz-Algorithm") != algorithm {
		return nil, queryError(`X-Amz-Algorithm only supports "AWS4-HMAC-SHA256"`)
	}
	for _, p := range [...]string{"X-Amz-Credential", "X-Amz-Signature", "X-Amz-Date", "X-Amz-SignedHeaders", "X-Amz-Expires"} {
		if q.Get(p) == "" {
			return nil, queryError("Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.")
		}
	}
	cred, err := parseCredential(q.Get("X-Amz-Credential"), true)
	if err != nil {
		return nil, err
	}
	date := q.Get("X-Amz-Date")
	t, err := parseAmzDate(date)
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
	signed := q.Get("X-Amz-SignedHeaders")
	if err := allAmzSigned(r, signed); err != nil {
		return nil, err
	}
	sig := q.Get("X-Amz-Signature")
	payload := UnsignedPayload
	if ph := r.Header.Get("X-Amz-Content-Sha256"); ph != "" {
		payload = ph
	}
	key, err := v.signingKey(r, cred)
	if err != nil {
		return nil, err
	}
	s := getScratch()
	defer putScratch(s)
	s.buf = appendCanonicalRequest(s.buf[:0], r, signed, q, "X-Amz-Signature", UnsignedPayload)
	if !s.matches(key, date, cred, sig) {
		return nil, ErrSignature
	}
	return &Request{Credential: cred, Time: t, PayloadHash: payload, Signature: sig, key: key}, nil
}

// signingKey is the derived key of the secret a credential's access key
// ID signs with: a session's, or a principal's.
func (v *Verifier) signingKey(r *http.Request, cred Credential) (*derivedKey, error) {
	id := cred.AccessKeyID
	if v.Sessions != nil {
		if secret, handled, err := v.Sessions(r, id); err != nil {
			return nil, err
		} else if handled {
			return v.keys.get(secret, cred), nil
		}
	}
	secret, ok := v.Secrets(id)
	if !ok {
		return nil, &UnknownKey{ID: id}
	}
	return v.keys.get(secret, cred), nil
}

// scratch is one verification's working memory, pooled: the canonical
// request is appended into buf, hashed, then the string to sign is
// appended into the same buf, and its HMAC lands in mac.
type scratch struct {
	buf  []byte
	mac  [sha256.Size]byte
	sent [sha256.Size]byte
}

var scratches = sync.Pool{New: func() any { return &scratch{buf: make([]byte, 0, 1024)} }}

func getScratch() *scratch { return scratches.Get().(*scratch) }

func putScratch(s *scratch) {
	if cap(s.buf) <= 64<<10 { // a rare huge request's buffer is not kept
		scratches.Put(s)
	}
}

// matches reports whether sig is the signature of the canonical request
// in s.buf. sig must be 64 lower-case hex digits (as clients send it); it
// is decoded and compared in constant time with the HMAC, so how much of
// a forged signature is right does not show in the time taken.
func (s *scratch) matches(key *derivedKey, date string, cred Credential, sig string) bool {
	hashed := sha256.Sum256(s.buf)
	b := append(s.buf[:0], algorithm+"\n"...)
	b = append(b, date...)
	b = append(b, '\n')
	b = append(b, cred.scope()...)
	b = append(b, '\n')
	b = hex.AppendEncode(b, hashed[:])
	s.buf = b
	key.sum(s.mac[:0], b)
	if !decodeSignature(&s.sent, sig) {
		return false
	}
	return subtle.ConstantTimeCompare(s.mac[:], s.sent[:]) == 1
}

// decodeSignature decodes 64 lower-case hex digits into out.
func decodeSignature(out *[sha256.Size]byte, sig string) bool {
	if len(sig) != 2*sha256.Size {
		return false
	}
	for i := range out {
		hi, ok1 := lowerHex(sig[2*i])
		lo, ok2 := lowerHex(sig[2*i+1])
		if !ok1 || !ok2 {
			return false
		}
		out[i] = hi<<4 | lo
	}
	return true
}

func lowerHex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

// allAmzSigned refuses a request carrying an x-amz-* header its signature
// does not cover, as S3 does: such headers change what a request does
// (x-amz-copy-source turns a PUT into a copy), so whoever could add one in
// flight could change a signed request. signed is the signed headers'
// names, separated by ';'.
func allAmzSigned(r *http.Request, signed string) error {
	var missing []string
	for name := range r.Header {
		if len(name) < 6 || !strings.EqualFold(name[:6], "x-amz-") {
			continue
		}
		if !signedName(signed, name) {
			missing = append(missing, strings.ToLower(name))
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return fmt.Errorf("%w (%s)", ErrUnsignedHeader, strings.Join(missing, ", "))
	}
	return nil
}

// signedName reports whether the list of signed headers names the header
// name: one of its entries is name in lower case. (Header names are ASCII
// tokens; a name with other bytes is never taken for signed.)
func signedName(signed, name string) bool {
	for rest, more := signed, true; more; {
		var entry string
		entry, rest, more = strings.Cut(rest, ";")
		if len(entry) != len(name) {
			continue
		}
		i := 0
		for i < len(name) && name[i] < 0x80 && lowerASCII(name[i]) == entry[i] {
			i++
		}
		if i == len(name) {
			return true
		}
	}
	return false
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// parseAuthorization reads "AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=...",
// returning the signed headers as the header lists them (names separated
// by ';'). Its parts are parts of h, not copies.
func parseAuthorization(h string) (cred Credential, signed, sig string, err error) {
	alg, rest, _ := strings.Cut(h, " ")
	if alg != algorithm {
		return Credential{}, "", "", fmt.Errorf("%w: algorithm %q, only %s is supported", ErrMalformed, alg, algorithm)
	}
	// components are "name=value", separated by commas; a name given
	// twice keeps its last value, and three different names are needed
	var credText string
	var names [3]string
	distinct := 0
	for more := true; more; {
		var p string
		p, rest, more = strings.Cut(rest, ",")
		p = strings.TrimSpace(p)
		k, val, ok := strings.Cut(p, "=")
		if !ok {
			return Credential{}, "", "", malformed(false, "the authorization component %q is malformed.", p)
		}
		switch k {
		case "Credential":
			credText = val
		case "SignedHeaders":
			signed = val
		case "Signature":
			sig = val
		}
		if distinct < len(names) && !slices.Contains(names[:distinct], k) {
			names[distinct] = k
			distinct++
		}
	}
	if distinct < 3 {
		return Credential{}, "", "", malformed(false, "the authorization header requires three components: Credential, SignedHeaders, and Signature.")
	}
	for _, c := range [...]struct{ name, val string }{{"Credential", credText}, {"SignedHeaders", signed}, {"Signature", sig}} {
		if c.val == "" {
			return Credential{}, "", "", malformed(false, "missing %s.", c.name)
		}
	}
	if cred, err = parseCredential(credText, false); err != nil {
		return Credential{}, "", "", err
	}
	return cred, signed, sig, nil
}

// parseCredential reads "AKID/20130524/us-east-1/s3/aws4_request" from
// the header or the query, in the order S3 checks its parts.
func parseCredential(s string, query bool) (Credential, error) {
	id, scope, _ := strings.Cut(s, "/")
	date, rest, ok1 := strings.Cut(scope, "/")
	region, rest, ok2 := strings.Cut(rest, "/")
	service, terminal, ok3 := strings.Cut(rest, "/")
	switch {
	case !ok1 || !ok2 || !ok3 || strings.Contains(terminal, "/") || id == "":
		return Credential{}, malformed(query, `the Credential is mal-formed; expecting "<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request".`)
	case service != "s3":
		return Credential{}, malformed(query, `incorrect service %q. This endpoint belongs to "s3".`, service)
	case terminal != "aws4_request":
		return Credential{}, malformed(query, `incorrect terminal %q. This endpoint uses "aws4_request".`, terminal)
	}
	if _, ok := digitsDate(date); !ok {
		if _, err := time.Parse("20060102", date); err != nil {
			return Credential{}, malformed(query, `incorrect date format %q. This date in the credential must be in the format "yyyyMMdd".`, date)
		}
	}
	return Credential{AccessKeyID: id, Date: date, Region: region, Service: service, text: scope}, nil
}

// parseTime reads X-Amz-Date, or an HTTP Date.
func parseTime(s string) (time.Time, error) {
	if t, err := parseAmzDate(s); err == nil {
		return t, nil
	}
	if t, err := http.ParseTime(s); err == nil {
		return t.UTC(), nil
	}
	return time.Time{}, ErrDate
}

// parseAmzDate reads "20060102T150405Z" as time.Parse does, without its
// general parser for the form every client sends.
func parseAmzDate(s string) (time.Time, error) {
	if len(s) == len(timeFormat) && s[8] == 'T' && s[15] == 'Z' {
		day, ok := digitsDate(s[:8])
		h, ok1 := digits2(s[9:11])
		m, ok2 := digits2(s[11:13])
		sec, ok3 := digits2(s[13:15])
		if ok && ok1 && ok2 && ok3 && h < 24 && m < 60 && sec < 60 {
			return day.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(sec)*time.Second), nil
		}
	}
	return time.Parse(timeFormat, s) // what the fast form does not take, with time's own error
}

// digitsDate reads "yyyymmdd" of eight digits naming a day that exists;
// false for anything else (which time.Parse may still take).
func digitsDate(s string) (time.Time, bool) {
	if len(s) != 8 {
		return time.Time{}, false
	}
	y1, ok1 := digits2(s[0:2])
	y2, ok2 := digits2(s[2:4])
	m, ok3 := digits2(s[4:6])
	d, ok4 := digits2(s[6:8])
	if !ok1 || !ok2 || !ok3 || !ok4 || m < 1 || m > 12 || d < 1 {
		return time.Time{}, false
	}
	t := time.Date(y1*100+y2, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d { // past the month's end: time.Date moved it on
		return time.Time{}, false
	}
	return t, true
}

func digits2(s string) (int, bool) {
	if s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9' {
		return 0, false
	}
	return int(s[0]-'0')*10 + int(s[1]-'0'), true
}

// appendCanonicalRequest appends the canonical request of S3's SigV4 to
// b: method, path, the query (all of q but the parameter named skip),
// each signed header with its value, the list of signed headers and the
// payload hash. Nothing is built on the way but the bytes appended.
func appendCanonicalRequest(b []byte, r *http.Request, signed string, q url.Values, skip, payloadHash string) []byte {
	b = append(b, r.Method...)
	b = append(b, '\n')
	b = appendCanonicalURI(b, r.URL.EscapedPath())
	b = append(b, '\n')
	b = appendCanonicalQuery(b, q, skip)
	b = append(b, '\n')
	for rest, more := signed, true; more; {
		var name string
		name, rest, more = strings.Cut(rest, ";")
		b = append(b, name...)
		b = append(b, ':')
		b = appendHeaderValue(b, r, name)
		b = append(b, '\n')
	}
	b = append(b, '\n')
	b = append(b, signed...)
	b = append(b, '\n')
	return append(b, payloadHash...)
}

// appendHeaderValue appends a signed header's value as canonicalised:
// values of a repeated header joined by commas, each trimmed, inner runs
// of spaces folded to one.
func appendHeaderValue(b []byte, r *http.Request, name string) []byte {
	var vals []string
	switch name {
	case "host":
		return appendFolded(b, r.Host)
	case "content-length":
		vals = r.Header["Content-Length"]
		if len(vals) == 0 && r.ContentLength >= 0 {
			return strconv.AppendInt(b, r.ContentLength, 10)
		}
	case "transfer-encoding":
		vals = r.Header["Transfer-Encoding"]
		if len(vals) == 0 && len(r.TransferEncoding) > 0 {
			vals = r.TransferEncoding
		}
	default:
		vals = headerValues(r.Header, name)
	}
	for i, v := range vals {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendFolded(b, v)
	}
	return b
}

// headerValues is h.Values(name) for a lower-case name, its canonical key
// made on the stack rather than in a new string.
func headerValues(h http.Header, name string) []string {
	var key [64]byte
	if len(name) == 0 || len(name) > len(key) {
		return h.Values(name)
	}
	upper := true
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z':
			if upper {
				c -= 'a' - 'A'
			}
		case '0' <= c && c <= '9' || c == '-':
		default:
			return h.Values(name) // other bytes: textproto's own rules
		}
		key[i] = c
		upper = c == '-'
	}
	return h[string(key[:len(name)])]
}

// appendFolded appends v trimmed, its inner runs of white space folded to
// one space, as strings.Fields and strings.Join would.
func appendFolded(b []byte, v string) []byte {
	plain := len(v) == 0 || v[0] != ' ' && v[len(v)-1] != ' '
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c >= utf8.RuneSelf:
			return append(b, strings.Join(strings.Fields(v), " ")...) // Unicode spaces too
		case c == ' ':
			plain = plain && v[i+1] != ' ' // not the last byte: plain says so
		case asciiSpace(c):
			plain = false
		}
	}
	if plain { // most values: nothing to trim or fold
		return append(b, v...)
	}
	space := false
	start := len(b)
	for i := 0; i < len(v); i++ {
		c := v[i]
		if asciiSpace(c) {
			space = true
			continue
		}
		if space && len(b) > start {
			b = append(b, ' ')
		}
		space = false
		b = append(b, c)
	}
	return b
}

func asciiSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// appendCanonicalURI appends the path encoded once as S3 does: the
// request's escaped path decoded, then each byte but the unreserved ones
// and '/' encoded.
func appendCanonicalURI(b []byte, escaped string) []byte {
	if escaped == "" {
		return append(b, '/')
	}
	p, err := url.PathUnescape(escaped) // no copy without a '%'
	if err != nil {
		p = escaped
	}
	return appendEncoded(b, p, false)
}

// appendCanonicalQuery appends the query sorted by name and value, both
// encoded, all but the parameter named skip. Names sort by their encoded
// form, as S3 sorts them; a name's values likewise.
func appendCanonicalQuery(b []byte, q url.Values, skip string) []byte {
	var room [16]string // a request's parameters, without a new slice for most
	names := room[:0]
	for k := range q {
		if k != skip {
			names = append(names, k)
		}
	}
	slices.SortFunc(names, compareEncoded)
	first := true
	for _, k := range names {
		vals := q[k]
		if len(vals) > 1 {
			vals = slices.Clone(vals)
			slices.SortFunc(vals, compareEncoded)
		}
		for _, v := range vals {
			if !first {
				b = append(b, '&')
			}
			first = false
			b = appendEncoded(b, k, true)
			b = append(b, '=')
			b = appendEncoded(b, v, true)
		}
	}
	return b
}

// compareEncoded compares the encodings of a and b (see appendEncoded)
// without making them: a byte kept as it is compares as itself, an
// encoded one as '%' and then by its value (its upper-case hex digits
// sort as the byte does).
func compareEncoded(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := a[i], b[i]
		if x == y {
			continue
		}
		ex, ey := !unreserved(x), !unreserved(y)
		switch {
		case ex && ey, !ex && !ey:
			return cmp.Compare(x, y)
		case ex:
			return cmp.Compare('%', y)
		default:
			return cmp.Compare(x, '%')
		}
	}
	return cmp.Compare(len(a), len(b))
}

// appendEncoded appends s percent-encoded: every byte but A-Z a-z 0-9 -
// . _ ~ (and '/' unless slash is set), upper-case hex: AWS's URI encoding.
func appendEncoded(b []byte, s string, slash bool) []byte {
	const hexd = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		if unreserved(c) || c == '/' && !slash {
			b = append(b, c)
			continue
		}
		b = append(b, '%', hexd[c>>4], hexd[c&15])
	}
	return b
}

// unreserved reports whether URI encoding keeps c as it is.
func unreserved(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
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
