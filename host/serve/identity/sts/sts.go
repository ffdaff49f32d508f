// Package sts gives temporary S3 credentials for a web identity, as AWS
// STS's AssumeRoleWithWebIdentity does (and MinIO after it): a client
// posts a form with an OpenID Connect ID token and the role it wants, the
// gateway verifies the token and that the principal named by the role
// accepts it, and this package issues an access key id, a secret and a
// session token, and writes STS's XML answer.
//
// Sessions are stateless: everything a later request needs (principal,
// subject, provider, expiry, secret) is sealed into the session token with
// AES-256-GCM, under a key derived from a configured secret, and bound to
// the access key id it was issued with. Any replica configured with the
// same seal keys opens a token another replica issued; nothing is stored.
// Several seal keys allow rotation: the first seals, every one opens.
//
// What the gateway does with it:
//
//   - Routing: IsSTSRequest, before authentication, on the S3 listener;
//     then ParseAssumeRole, the token's verification (another package),
//     the principal's acceptance of it, Issuer.Issue and WriteResponse; any
//     error goes to WriteError, which answers STS's ErrorResponse.
//   - Signed S3 requests: when SecurityToken finds an X-Amz-Security-Token,
//     Issuer.Open(access key id, token) gives the session's principal and
//     secret, which verify the signature; an Open error goes to S3Error
//     for S3's code, message and status (ExpiredToken or InvalidToken),
//     answered before the signature is checked.
package sts

import (
	"crypto/rand"
	"encoding/base32"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// ErrExpired is a session token that opened but whose session is over. S3
// answers it with ExpiredToken (see S3Error).
var ErrExpired = errors.New("the session has expired")

// ErrInvalid is a session token that does not open: not base64url, sealed
// by no configured key, altered, cut, or issued with another access key
// id. S3 answers it with InvalidToken (see S3Error).
var ErrInvalid = errors.New("the session token is not valid")

// Bounds on a session's length, AWS's for AssumeRoleWithWebIdentity.
const (
	DefaultDuration    = time.Hour
	DefaultMinDuration = 15 * time.Minute
	DefaultMaxDuration = 12 * time.Hour
)

// MinSealKey is the shortest seal key accepted, in bytes (surrounding
// white space not counted): 32 characters of a random secret are at least
// 128 bits even as hex digits.
const MinSealKey = 32

// Config configures an Issuer.
type Config struct {
	// SealKeys seal and open session tokens: the first seals new sessions,
	// every one opens (to rotate, put a new key first and drop the old
	// one once its sessions have expired). Each is a random secret of at
	// least MinSealKey characters; white space around it is ignored, so a
	// key read from a file with a trailing newline is the same key.
	SealKeys []string
	// DefaultDuration is a session's length when the request asks for
	// none (0: DefaultDuration, brought within MinDuration..MaxDuration);
	// MinDuration and MaxDuration bound what a request may ask for (0:
	// DefaultMinDuration, DefaultMaxDuration).
	DefaultDuration, MinDuration, MaxDuration time.Duration
	// Now is the clock (nil: time.Now); tests set it.
	Now func() time.Time
}

// Issuer issues and opens sessions. It is safe for concurrent use.
type Issuer struct {
	keys                  []*sealKey // keys[0] seals
	def, minimum, maximum time.Duration
	now                   func() time.Time
}

// New checks cfg and derives the seal keys.
func New(cfg Config) (*Issuer, error) {
	if len(cfg.SealKeys) == 0 {
		return nil, errors.New("sts: no seal keys: at least one is needed to seal sessions")
	}
	is := &Issuer{now: cfg.Now, minimum: cfg.MinDuration, maximum: cfg.MaxDuration, def: cfg.DefaultDuration}
	for i, k := range cfg.SealKeys {
		sk, err := deriveKey(k)
		if err != nil {
			return nil, fmt.Errorf("sts: seal key %d: %w", i+1, err)
		}
		is.keys = append(is.keys, sk)
	}
	if is.now == nil {
		is.now = time.Now
	}
	if is.minimum == 0 {
		is.minimum = DefaultMinDuration
	}
	if is.maximum == 0 {
		is.maximum = DefaultMaxDuration
	}
	if is.def == 0 {
		is.def = max(is.minimum, min(DefaultDuration, is.maximum))
	}
	switch {
	case is.minimum < time.Second || is.minimum%time.Second != 0:
		return nil, fmt.Errorf("sts: the minimum duration %s is not a positive whole number of seconds", is.minimum)
	case is.maximum%time.Second != 0 || is.def%time.Second != 0:
		return nil, fmt.Errorf("sts: durations are whole seconds (default %s, maximum %s)", is.def, is.maximum)
	case is.maximum < is.minimum:
		return nil, fmt.Errorf("sts: the maximum duration %s is shorter than the minimum %s", is.maximum, is.minimum)
	case is.def < is.minimum || is.def > is.maximum:
		return nil, fmt.Errorf("sts: the default duration %s is outside %s..%s", is.def, is.minimum, is.maximum)
	}
	return is, nil
}

// WebIdentity is what the verified web identity token says, as the
// gateway's verifier read it.
type WebIdentity struct {
	Subject string // "sub"
	// Provider is the token's issuer ("iss"), or the name of the
	// configured identity provider: STS's Provider element.
	Provider string
	Audience string // the "aud" the token was accepted for
	// Expiry is the token's "exp": no session outlives it.
	Expiry time.Time
}

// Credentials are a new session's temporary S3 credentials.
type Credentials struct {
	AccessKeyID     string
	SecretAccessKey string
	SessionToken    string
	Expiration      time.Time // whole seconds, UTC
}

// String keeps the secret and the token out of logs.
func (c Credentials) String() string {
	return fmt.Sprintf("sts.Credentials{AccessKeyID: %s, Expiration: %s}", c.AccessKeyID, c.Expiration.Format(time.RFC3339))
}

// GoString keeps the secret and the token out of %#v.
func (c Credentials) GoString() string { return c.String() }

// Session is an opened session token: who signs with the temporary key.
type Session struct {
	AccessKeyID     string
	SecretAccessKey string
	Principal       string // the gateway's principal, from the role ARN
	Subject         string // the web identity's "sub"
	Provider        string // the web identity's issuer
	SessionName     string // the request's RoleSessionName
	IssuedAt        time.Time
	Expiration      time.Time
}

// String keeps the secret out of logs.
func (s Session) String() string {
	return fmt.Sprintf("sts.Session{AccessKeyID: %s, Principal: %q, Subject: %q, Provider: %q, SessionName: %q, Expiration: %s}",
		s.AccessKeyID, s.Principal, s.Subject, s.Provider, s.SessionName, s.Expiration.Format(time.RFC3339))
}

// GoString keeps the secret out of %#v.
func (s Session) GoString() string { return s.String() }

// maxField bounds each text sealed into a token (an ARN's own bound), so
// that a token stays a few kilobytes at most: it travels in every request's
// headers.
const maxField = 2048

// Validate checks what Issue checks of the request before anything is
// sealed: the requested duration against the configured bounds. The
// gateway may call it before verifying the web identity token, so that a
// bad duration costs no verification.
func (is *Issuer) Validate(req AssumeRoleRequest) error {
	_, err := is.duration(req)
	return err
}

// duration is the session length the request asks for, within bounds.
func (is *Issuer) duration(req AssumeRoleRequest) (time.Duration, error) {
	if req.DurationSeconds == 0 {
		return is.def, nil
	}
	d := time.Duration(req.DurationSeconds) * time.Second
	if d < is.minimum {
		return 0, validation(fmt.Sprintf("Value '%d' at 'durationSeconds' failed to satisfy constraint: Member must have value greater than or equal to %d",
			req.DurationSeconds, is.minimum/time.Second))
	}
	if d > is.maximum {
		// AWS's words when a request asks more than the role's maximum
		return 0, NewError(CodeValidationError, fmt.Sprintf("The requested DurationSeconds exceeds the MaxSessionDuration set for this role (%d seconds).",
			is.maximum/time.Second))
	}
	return d, nil
}

// Issue makes a session for the principal named by req.RoleArn, which the
// gateway has found to accept the web identity id. The session lasts what
// the request asks (or the default), clipped to the web identity token's
// expiry: clipping, as MinIO does, rather than refusing, so a client that
// asks for an hour with a token good for ten minutes gets ten minutes.
// Errors are *Error, for WriteError.
func (is *Issuer) Issue(req AssumeRoleRequest, id WebIdentity) (Credentials, error) {
	d, err := is.duration(req)
	if err != nil {
		return Credentials{}, err
	}
	principal, err := PrincipalFromRoleArn(req.RoleArn)
	if err != nil {
		return Credentials{}, invalidArn(err)
	}
	if !roleSessionName(req.RoleSessionName) {
		return Credentials{}, validation("Value at 'roleSessionName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]{2,64}")
	}
	if id.Expiry.IsZero() {
		// go-oidc refuses such tokens too: an unbounded token would make
		// an unbounded session
		return Credentials{}, NewError(CodeInvalidIdentityToken, "The web identity token has no expiry (exp).")
	}
	if len(id.Subject) > maxField || len(id.Provider) > maxField {
		return Credentials{}, NewError(CodeInvalidIdentityToken, fmt.Sprintf("The web identity token's subject or issuer is longer than %d bytes.", maxField))
	}
	now := is.now()
	// whole seconds, rounded down: the response says the expiry to the
	// second, and rounding up could outlive the web identity token
	exp := now.Add(d)
	if id.Expiry.Before(exp) {
		exp = id.Expiry
	}
	exp = time.Unix(exp.Unix(), 0).UTC()
	if !exp.After(now) {
		return Credentials{}, NewError(CodeExpiredToken, "The web identity token has expired.")
	}
	s := Session{Principal: principal, Subject: id.Subject, Provider: id.Provider, SessionName: req.RoleSessionName,
		IssuedAt: time.Unix(now.Unix(), 0).UTC(), Expiration: exp}
	if s.AccessKeyID, err = accessKeyID(); err != nil {
		return Credentials{}, internal(err)
	}
	if s.SecretAccessKey, err = secretAccessKey(); err != nil {
		return Credentials{}, internal(err)
	}
	token, err := is.seal(s)
	if err != nil {
		return Credentials{}, internal(err)
	}
	return Credentials{AccessKeyID: s.AccessKeyID, SecretAccessKey: s.SecretAccessKey, SessionToken: token, Expiration: exp}, nil
}

// Open opens a session token presented with accessKeyID. It fails with an
// error matching ErrExpired for a genuine session that is over, and
// ErrInvalid for anything else; neither error holds the token. Expiry is
// only told of a token that opened: a forged token is invalid, never
// expired.
func (is *Issuer) Open(accessKeyID, sessionToken string) (Session, error) {
	s, err := is.open(accessKeyID, sessionToken)
	if err != nil {
		return Session{}, fmt.Errorf("session token of %s: %w", printableKeyID(accessKeyID), err)
	}
	if !is.now().Before(s.Expiration) {
		return Session{}, fmt.Errorf("session token of %s: %w (at %s)", s.AccessKeyID, ErrExpired, s.Expiration.Format(time.RFC3339))
	}
	return s, nil
}

// printableKeyID is an access key id for an error message: a client's
// text, so only a plausible id is repeated.
func printableKeyID(id string) string {
	if len(id) > 128 || strings.IndexFunc(id, func(r rune) bool { return !isWordChar(r) }) >= 0 {
		return "an unreadable access key id"
	}
	return id
}

// accessKeyID is a new temporary access key id: "ASIA" and 16 characters
// of base32 (80 random bits), as AWS's temporary keys look, so that tools
// recognise them.
func accessKeyID() (string, error) {
	b := make([]byte, 10)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("making an access key id: %w", err)
	}
	return "ASIA" + base32.StdEncoding.EncodeToString(b), nil
}

// secretAlphabet is letters and digits only: a secret is pasted into
// shells, config files and URLs, where "/" and "+" (AWS's) need care.
const secretAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// secretAccessKey is a new 40-character secret (about 238 random bits).
func secretAccessKey() (string, error) {
	out := make([]byte, 0, 40)
	buf := make([]byte, 64)
	for len(out) < 40 {
		if _, err := rand.Read(buf); err != nil {
			return "", fmt.Errorf("making a secret access key: %w", err)
		}
		for _, c := range buf {
			// rejection keeps every character equally likely: 248 is the
			// largest multiple of 62 below 256
			if c < 248 && len(out) < 40 {
				out = append(out, secretAlphabet[int(c)%len(secretAlphabet)])
			}
		}
	}
	return string(out), nil
}

// SecurityToken is the session token a request carries: the
// X-Amz-Security-Token header, or the query parameter of that name (a
// presigned URL's), given the request's parsed query. It is "" when the
// request has none, and ErrInvalid when it has several that differ: which
// one was signed could not be told.
func SecurityToken(r *http.Request, q url.Values) (string, error) {
	const name = "X-Amz-Security-Token"
	var found []string
	found = append(found, r.Header.Values(name)...)
	found = append(found, q[name]...)
	if len(found) == 0 {
		return "", nil
	}
	for _, t := range found[1:] {
		if t != found[0] {
			return "", fmt.Errorf("%w: the request has several different %s", ErrInvalid, name)
		}
	}
	return found[0], nil
}

// S3's answers to a session token that does not open.
const (
	S3CodeExpiredToken    = "ExpiredToken"
	S3MessageExpiredToken = "The provided token has expired."
	S3CodeInvalidToken    = "InvalidToken"
	S3MessageInvalidToken = "The provided token is malformed or otherwise invalid."
)

// S3Error is the S3 error code, message and HTTP status answering an
// error of Open (or of SecurityToken): ExpiredToken for ErrExpired,
// InvalidToken for anything else, both 400 as S3 answers them. It is for
// the gateway's authentication step, before the signature is verified
// (there is no secret to verify it with). A nil error gives "", "", 0.
func S3Error(err error) (code, message string, status int) {
	switch {
	case err == nil:
		return "", "", 0
	case errors.Is(err, ErrExpired):
		return S3CodeExpiredToken, S3MessageExpiredToken, http.StatusBadRequest
	default:
		return S3CodeInvalidToken, S3MessageInvalidToken, http.StatusBadRequest
	}
}
