package sts_test

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/host/serve/identity/sts"
)

// Seal keys made up for the tests (random hex, as `openssl rand -hex 32`
// makes them).
const (
	keyA = "4f1c2a9e7b3d5f60812a4c6e8f0b1d3f5a7c9e0b2d4f6a8c0e1f3a5b7c9d0e2f"
	keyB = "9a8b7c6d5e4f30211203f4e5d6c7b8a99a8b7c6d5e4f30211203f4e5d6c7b8a9"
	keyC = "0011223344556677889900aabbccddeeff0011223344556677889900aabbccdd"
)

// t0 is the tests' clock, with a fraction of a second: expiries are whole
// seconds, rounded down.
var t0 = time.Date(2026, 5, 4, 12, 0, 0, 250_000_000, time.UTC)

// clock is a settable clock for Config.Now.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

func newIssuer(t *testing.T, c *clock, keys ...string) *sts.Issuer {
	t.Helper()
	is, err := sts.New(sts.Config{SealKeys: keys, Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	return is
}

// A web identity token's secret-looking value: no error or log may hold it.
const webToken = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLXNlY3JldC12YWx1ZQ"

func request() sts.AssumeRoleRequest {
	return sts.AssumeRoleRequest{RoleArn: "arn:aws:iam::000000000000:role/reader", RoleSessionName: "alice-laptop",
		WebIdentityToken: webToken}
}

func identity(exp time.Time) sts.WebIdentity {
	return sts.WebIdentity{Subject: "8f3e9a1c-alice", Provider: "https://id.example.org", Audience: "zarrgw", Expiry: exp}
}

func issue(t *testing.T, is *sts.Issuer) sts.Credentials {
	t.Helper()
	c, err := is.Issue(request(), identity(t0.Add(24*time.Hour)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var (
	accessKeyPattern = regexp.MustCompile(`^ASIA[A-Z2-7]{16}$`)
	secretPattern    = regexp.MustCompile(`^[A-Za-z0-9]{40}$`)
	tokenPattern     = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
)

func TestIssueAndOpen(t *testing.T) {
	c := &clock{t0}
	is := newIssuer(t, c, keyA)
	creds := issue(t, is)
	if !accessKeyPattern.MatchString(creds.AccessKeyID) {
		t.Errorf("access key id %q is not ASIA and 16 base32 characters", creds.AccessKeyID)
	}
	if !secretPattern.MatchString(creds.SecretAccessKey) {
		t.Errorf("secret %q is not 40 letters and digits", creds.SecretAccessKey)
	}
	if !tokenPattern.MatchString(creds.SessionToken) {
		t.Errorf("session token %q is not base64url text", creds.SessionToken)
	}
	want := time.Date(2026, 5, 4, 13, 0, 0, 0, time.UTC) // the default hour, rounded down
	if !creds.Expiration.Equal(want) {
		t.Errorf("expiration %s, want %s", creds.Expiration, want)
	}
	s, err := is.Open(creds.AccessKeyID, creds.SessionToken)
	if err != nil {
		t.Fatal(err)
	}
	wantSession := sts.Session{AccessKeyID: creds.AccessKeyID, SecretAccessKey: creds.SecretAccessKey, Principal: "reader",
		Subject: "8f3e9a1c-alice", Provider: "https://id.example.org", SessionName: "alice-laptop",
		IssuedAt: time.Date(2026, 5, 4, 12, 0, 0, 0, time.UTC), Expiration: want}
	if s != wantSession {
		t.Errorf("opened\n%+v\nwant\n%+v", s, wantSession)
	}
	// another replica, configured alike, opens it: nothing is shared but
	// the key
	if s2, err := newIssuer(t, c, "  "+keyA+"\n").Open(creds.AccessKeyID, creds.SessionToken); err != nil || s2 != wantSession {
		t.Errorf("another issuer with the same key (read with a newline): %v, %v", s2, err)
	}
}

func TestEveryIssueIsNew(t *testing.T) {
	is := newIssuer(t, &clock{t0}, keyA)
	seen := map[string]bool{}
	for range 50 {
		c := issue(t, is)
		for _, v := range []string{c.AccessKeyID, c.SecretAccessKey, c.SessionToken} {
			if seen[v] {
				t.Fatalf("%q issued twice", v)
			}
			seen[v] = true
		}
	}
}

func TestRotation(t *testing.T) {
	c := &clock{t0}
	old := newIssuer(t, c, keyA)
	rotated := newIssuer(t, c, keyB, keyA)
	oldCreds := issue(t, old)
	if _, err := rotated.Open(oldCreds.AccessKeyID, oldCreds.SessionToken); err != nil {
		t.Errorf("the rotated issuer does not open a token of its second key: %v", err)
	}
	newCreds := issue(t, rotated)
	if _, err := old.Open(newCreds.AccessKeyID, newCreds.SessionToken); !errors.Is(err, sts.ErrInvalid) {
		t.Errorf("the new token opened with the old key only: %v; want ErrInvalid (the first key seals)", err)
	}
	if _, err := newIssuer(t, c, keyB).Open(newCreds.AccessKeyID, newCreds.SessionToken); err != nil {
		t.Errorf("the new key alone does not open the new token: %v", err)
	}
	// the old key dropped: its tokens are refused
	if _, err := newIssuer(t, c, keyB, keyC).Open(oldCreds.AccessKeyID, oldCreds.SessionToken); !errors.Is(err, sts.ErrInvalid) {
		t.Errorf("a token of a dropped key: %v, want ErrInvalid", err)
	}
}

// b64 is the token's encoding, for the tests that alter its bytes.
var b64 = base64.RawURLEncoding

func TestAlteredTokens(t *testing.T) {
	c := &clock{t0}
	is := newIssuer(t, c, keyA)
	creds := issue(t, is)
	tok := creds.SessionToken
	refused := func(what, token string) {
		t.Helper()
		s, err := is.Open(creds.AccessKeyID, token)
		if !errors.Is(err, sts.ErrInvalid) || errors.Is(err, sts.ErrExpired) {
			t.Fatalf("%s: Open = %+v, %v; want ErrInvalid", what, s, err)
		}
		if len(token) >= 16 && strings.Contains(err.Error(), token) {
			t.Fatalf("%s: the error repeats the token: %v", what, err)
		}
	}
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	// every character of the text, replaced by each of a few others (the
	// last one's unused bits included: a lax decoder would ignore them)
	for i := range len(tok) {
		for _, k := range []int{1, 17, 32, 63} {
			ch := alphabet[(strings.IndexByte(alphabet, tok[i])+k)%len(alphabet)]
			refused(fmt.Sprintf("character %d replaced", i), tok[:i]+string(ch)+tok[i+1:])
		}
	}
	// every byte of the decoded token, each bit flipped
	raw, err := b64.DecodeString(tok)
	if err != nil {
		t.Fatal(err)
	}
	for i := range raw {
		for bit := range 8 {
			altered := append([]byte(nil), raw...)
			altered[i] ^= 1 << bit
			refused(fmt.Sprintf("byte %d bit %d flipped", i, bit), b64.EncodeToString(altered))
		}
	}
	// every truncation, of the text and of the bytes
	for n := range len(tok) {
		refused(fmt.Sprintf("text cut to %d", n), tok[:n])
	}
	for n := range len(raw) {
		refused(fmt.Sprintf("bytes cut to %d", n), b64.EncodeToString(raw[:n]))
	}
	refused("a byte added", b64.EncodeToString(append(append([]byte(nil), raw...), 0)))
	refused("a line break inserted", tok[:10]+"\n"+tok[10:])
	refused("padded", tok+"==")
	refused("standard base64", base64.RawStdEncoding.EncodeToString(raw)+"+/")
	refused("huge", strings.Repeat("A", 1<<20))
	// and the untouched token still opens: the refusals were the changes'
	if _, err := is.Open(creds.AccessKeyID, tok); err != nil {
		t.Fatalf("the untouched token: %v", err)
	}
}

func TestAccessKeyBinding(t *testing.T) {
	c := &clock{t0}
	is := newIssuer(t, c, keyA)
	one, two := issue(t, is), issue(t, is)
	for _, id := range []string{two.AccessKeyID, strings.ToLower(one.AccessKeyID), one.AccessKeyID[:19], one.AccessKeyID + "A", ""} {
		if _, err := is.Open(id, one.SessionToken); !errors.Is(err, sts.ErrInvalid) {
			t.Errorf("token of %s opened with %q: %v, want ErrInvalid", one.AccessKeyID, id, err)
		}
	}
	if _, err := is.Open(one.AccessKeyID, one.SessionToken); err != nil {
		t.Errorf("with its own access key id: %v", err)
	}
}

func TestExpiry(t *testing.T) {
	c := &clock{t0}
	is := newIssuer(t, c, keyA)
	creds := issue(t, is)
	c.now = creds.Expiration.Add(-time.Nanosecond)
	if _, err := is.Open(creds.AccessKeyID, creds.SessionToken); err != nil {
		t.Fatalf("just before expiry: %v", err)
	}
	for _, at := range []time.Time{creds.Expiration, creds.Expiration.Add(time.Hour)} {
		c.now = at
		s, err := is.Open(creds.AccessKeyID, creds.SessionToken)
		if !errors.Is(err, sts.ErrExpired) || errors.Is(err, sts.ErrInvalid) || s != (sts.Session{}) {
			t.Fatalf("at %s: %+v, %v; want ErrExpired alone", at, s, err)
		}
		if code, msg, status := sts.S3Error(err); code != "ExpiredToken" || msg != "The provided token has expired." || status != http.StatusBadRequest {
			t.Errorf("S3Error(expired) = %s %q %d", code, msg, status)
		}
	}
	// an expired token altered is invalid, not expired: expiry is told
	// only of what opened
	raw, _ := b64.DecodeString(creds.SessionToken)
	raw[len(raw)-1] ^= 1
	_, err := is.Open(creds.AccessKeyID, b64.EncodeToString(raw))
	if !errors.Is(err, sts.ErrInvalid) || errors.Is(err, sts.ErrExpired) {
		t.Fatalf("an altered expired token: %v; want ErrInvalid", err)
	}
	if code, msg, status := sts.S3Error(err); code != "InvalidToken" || msg != "The provided token is malformed or otherwise invalid." || status != http.StatusBadRequest {
		t.Errorf("S3Error(invalid) = %s %q %d", code, msg, status)
	}
	if code, msg, status := sts.S3Error(nil); code != "" || msg != "" || status != 0 {
		t.Errorf("S3Error(nil) = %s %q %d", code, msg, status)
	}
}

func TestDurations(t *testing.T) {
	c := &clock{t0}
	is := newIssuer(t, c, keyA)
	far := identity(t0.Add(48 * time.Hour))
	for _, tc := range []struct {
		seconds int
		want    time.Duration // 0: refused
		message string
	}{
		{0, time.Hour, ""},
		{900, 15 * time.Minute, ""},
		{43200, 12 * time.Hour, ""},
		{899, 0, "1 validation error detected: Value '899' at 'durationSeconds' failed to satisfy constraint: Member must have value greater than or equal to 900"},
		{43201, 0, "The requested DurationSeconds exceeds the MaxSessionDuration set for this role (43200 seconds)."},
	} {
		req := request()
		req.DurationSeconds = tc.seconds
		creds, err := is.Issue(req, far)
		verr := is.Validate(req)
		if tc.want == 0 {
			var e *sts.Error
			if !errors.As(err, &e) || e.Code != "ValidationError" || e.Status != 400 || e.Type != "Sender" || e.Message != tc.message {
				t.Errorf("DurationSeconds %d: %v; want ValidationError %q", tc.seconds, err, tc.message)
			}
			if verr == nil || verr.Error() != err.Error() {
				t.Errorf("DurationSeconds %d: Validate says %v, Issue %v", tc.seconds, verr, err)
			}
			continue
		}
		if err != nil || verr != nil {
			t.Errorf("DurationSeconds %d: %v, %v", tc.seconds, err, verr)
			continue
		}
		if want := time.Unix(t0.Add(tc.want).Unix(), 0).UTC(); !creds.Expiration.Equal(want) {
			t.Errorf("DurationSeconds %d: expires %s, want %s", tc.seconds, creds.Expiration, want)
		}
	}
	// configured bounds
	custom, err := sts.New(sts.Config{SealKeys: []string{keyA}, Now: c.Now, MinDuration: time.Hour, MaxDuration: 2 * time.Hour, DefaultDuration: 90 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	for seconds, ok := range map[int]bool{0: true, 3599: false, 3600: true, 7200: true, 7201: false} {
		req := request()
		req.DurationSeconds = seconds
		creds, err := custom.Issue(req, far)
		if (err == nil) != ok {
			t.Errorf("bounds 1h..2h, DurationSeconds %d: %v", seconds, err)
		}
		if seconds == 0 && err == nil && !creds.Expiration.Equal(time.Unix(t0.Add(90*time.Minute).Unix(), 0)) {
			t.Errorf("the configured default: expires %s", creds.Expiration)
		}
	}
}

func TestClippedToTheWebIdentity(t *testing.T) {
	c := &clock{t0}
	is := newIssuer(t, c, keyA)
	req := request()
	req.DurationSeconds = 3600
	tokenExp := t0.Add(10*time.Minute + 700*time.Millisecond)
	creds, err := is.Issue(req, identity(tokenExp))
	if err != nil {
		t.Fatal(err)
	}
	// clipped, and rounded down, never up past the token's exp
	if want := time.Date(2026, 5, 4, 12, 10, 0, 0, time.UTC); !creds.Expiration.Equal(want) {
		t.Errorf("expires %s, want the token's exp rounded down, %s", creds.Expiration, want)
	}
	c.now = creds.Expiration
	if _, err := is.Open(creds.AccessKeyID, creds.SessionToken); !errors.Is(err, sts.ErrExpired) {
		t.Errorf("at the web identity's expiry: %v, want ErrExpired", err)
	}
	c.now = t0
	for what, id := range map[string]sts.WebIdentity{
		"expired":              identity(t0.Add(-time.Second)),
		"expiring this second": identity(t0.Add(500 * time.Millisecond)),
	} {
		var e *sts.Error
		if _, err := is.Issue(req, id); !errors.As(err, &e) || e.Code != "ExpiredTokenException" || e.Status != 400 {
			t.Errorf("a web identity %s: %v, want ExpiredTokenException", what, err)
		}
	}
	var e *sts.Error
	if _, err := is.Issue(req, identity(time.Time{})); !errors.As(err, &e) || e.Code != "InvalidIdentityToken" {
		t.Errorf("a web identity without exp: %v, want InvalidIdentityToken", err)
	}
}

func TestIssueRefusals(t *testing.T) {
	is := newIssuer(t, &clock{t0}, keyA)
	far := identity(t0.Add(time.Hour))
	bad := request()
	bad.RoleArn = "arn:aws:iam::0:user/reader"
	var e *sts.Error
	if _, err := is.Issue(bad, far); !errors.As(err, &e) || e.Code != "ValidationError" || !strings.HasPrefix(e.Message, "Request ARN is invalid") {
		t.Errorf("a user ARN: %v", err)
	}
	bad = request()
	bad.RoleSessionName = "a b"
	if _, err := is.Issue(bad, far); !errors.As(err, &e) || e.Code != "ValidationError" {
		t.Errorf("a session name with a space: %v", err)
	}
	long := identity(t0.Add(time.Hour))
	long.Subject = strings.Repeat("s", 2049)
	if _, err := is.Issue(request(), long); !errors.As(err, &e) || e.Code != "InvalidIdentityToken" {
		t.Errorf("a subject of 2049 bytes: %v", err)
	}
}

// The longest fields accepted still make a token that opens.
func TestLargestToken(t *testing.T) {
	is := newIssuer(t, &clock{t0}, keyA)
	req := request()
	req.RoleArn = "arn:aws:iam::0:role/" + strings.Repeat("p", 2048)
	req.RoleSessionName = strings.Repeat("n", 64)
	id := identity(t0.Add(time.Hour))
	id.Subject, id.Provider = strings.Repeat("s", 2048), strings.Repeat("i", 2048)
	creds, err := is.Issue(req, id)
	if err != nil {
		t.Fatal(err)
	}
	s, err := is.Open(creds.AccessKeyID, creds.SessionToken)
	if err != nil || len(s.Principal) != 2048 || s.Subject != id.Subject || s.Provider != id.Provider {
		t.Fatalf("the largest session: %v (%d characters)", err, len(creds.SessionToken))
	}
}

func TestConfig(t *testing.T) {
	for what, cfg := range map[string]sts.Config{
		"no keys":                 {},
		"a short key":             {SealKeys: []string{keyA, "short-key-31-characters-long-xx"}},
		"a key of spaces":         {SealKeys: []string{strings.Repeat(" ", 40)}},
		"default above max":       {SealKeys: []string{keyA}, MaxDuration: time.Hour, DefaultDuration: 2 * time.Hour},
		"min above max":           {SealKeys: []string{keyA}, MinDuration: 3 * time.Hour, MaxDuration: time.Hour},
		"default below min":       {SealKeys: []string{keyA}, MinDuration: time.Hour, DefaultDuration: 30 * time.Minute},
		"a fraction of a second":  {SealKeys: []string{keyA}, MaxDuration: time.Hour + time.Millisecond},
		"a negative minimum":      {SealKeys: []string{keyA}, MinDuration: -time.Second},
		"a sub-second minimum":    {SealKeys: []string{keyA}, MinDuration: time.Millisecond},
		"default above a max<1h:": {SealKeys: []string{keyA}, MaxDuration: 30 * time.Minute, DefaultDuration: time.Hour},
	} {
		is, err := sts.New(cfg)
		if err == nil || is != nil {
			t.Errorf("%s: New = %v, %v; want an error", what, is, err)
			continue
		}
		for _, k := range cfg.SealKeys {
			if strings.TrimSpace(k) != "" && strings.Contains(err.Error(), k) {
				t.Errorf("%s: the error repeats a key: %v", what, err)
			}
		}
	}
	// a minimum over an hour makes it the default
	if is, err := sts.New(sts.Config{SealKeys: []string{keyA}, MinDuration: 2 * time.Hour, Now: (&clock{t0}).Now}); err != nil {
		t.Errorf("min 2h: %v", err)
	} else if creds := issue(t, is); !creds.Expiration.Equal(time.Date(2026, 5, 4, 14, 0, 0, 0, time.UTC)) {
		t.Errorf("min 2h: the default session expires %s", creds.Expiration)
	}
	// a maximum under an hour makes it the default
	c := &clock{t0}
	is, err := sts.New(sts.Config{SealKeys: []string{keyA}, MaxDuration: 30 * time.Minute, Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	if creds := issue(t, is); !creds.Expiration.Equal(time.Date(2026, 5, 4, 12, 30, 0, 0, time.UTC)) {
		t.Errorf("max 30m: the default session expires %s", creds.Expiration)
	}
}

// Secrets and tokens stay out of what is printed.
func TestNothingSecretPrinted(t *testing.T) {
	c := &clock{t0}
	is := newIssuer(t, c, keyA)
	creds := issue(t, is)
	s, err := is.Open(creds.AccessKeyID, creds.SessionToken)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []any{creds, s, request(), &creds, &s} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
			out := fmt.Sprintf(verb, v)
			for _, secret := range []string{creds.SecretAccessKey, creds.SessionToken, webToken} {
				if strings.Contains(out, secret) {
					t.Errorf("%s of %T prints a secret: %s", verb, v, out)
				}
			}
		}
	}
	if !strings.Contains(fmt.Sprint(creds), creds.AccessKeyID) || !strings.Contains(fmt.Sprint(request()), "reader") {
		t.Errorf("the printed forms lost what they should show: %v / %v", creds, request())
	}
}

func TestSecurityToken(t *testing.T) {
	for _, tc := range []struct {
		header, query []string
		want          string
		invalid       bool
	}{
		{nil, nil, "", false},
		{[]string{"tok"}, nil, "tok", false},
		{nil, []string{"tok"}, "tok", false},
		{[]string{"tok"}, []string{"tok"}, "tok", false},
		{[]string{"tok"}, []string{"other"}, "", true},
		{[]string{"tok", "other"}, nil, "", true},
		{nil, []string{"tok", "other"}, "", true},
	} {
		r := httptest.NewRequest(http.MethodGet, "/bucket/key", nil)
		for _, h := range tc.header {
			r.Header.Add("X-Amz-Security-Token", h)
		}
		q := url.Values{"X-Amz-Security-Token": tc.query}
		if tc.query == nil {
			q = url.Values{}
		}
		got, err := sts.SecurityToken(r, q)
		if got != tc.want || errors.Is(err, sts.ErrInvalid) != tc.invalid || (err != nil) != tc.invalid {
			t.Errorf("header %q, query %q: %q, %v", tc.header, tc.query, got, err)
		}
	}
}
