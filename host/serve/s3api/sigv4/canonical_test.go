package sigv4

import (
	"errors"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// The canonical request appended in one buffer is the canonical request
// of the plain construction (strings built, encoded, sorted and joined:
// below, as the verifier made it before), for requests with paths,
// queries and header values that need encoding, sorting by their encoded
// form, trimming and folding.
func TestCanonicalRequestAsBuilt(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 5000 {
		r, signed, q := randomRequest(rng)
		skip := ""
		if i%2 == 1 {
			skip = "X-Amz-Signature"
		}
		got := string(appendCanonicalRequest(nil, r, signed, q, skip, "hash"))
		want := plainCanonicalRequest(r, strings.Split(signed, ";"), plainCanonicalQuery(q, skip), "hash")
		if got != want {
			t.Fatalf("request %d:\n got %q\nwant %q", i, got, want)
		}
	}
}

// Any path, query and header value: the canonical request is the plain
// construction's.
func FuzzCanonicalRequest(f *testing.F) {
	f.Add("/b/a%20b/%E6%BC%A2~", "list-type=2&prefix=a%2Fb&prefix=A&delimiter=%2F&start-after=x+y&%7B=1&~=2", "  a \t b  ", "host;x-amz-date;range;;x-amz-meta-a")
	f.Add("/b/k", "X-Amz-Signature=ab&b=&=c&a", "\u00a0x\u3000y\u0085", "range")
	f.Fuzz(func(t *testing.T, path, query, value, signed string) {
		r := httptest.NewRequest(http.MethodGet, "http://h.test/", nil)
		if u, err := url.Parse("http://h.test" + path); err == nil && strings.HasPrefix(u.Path, "/") {
			r.URL.Path, r.URL.RawPath = u.Path, u.RawPath
		}
		r.URL.RawQuery = query
		r.Header["Range"] = []string{value, value}
		r.Header["X-Amz-Date"] = []string{value}
		r.Header["X-Amz-Meta-A"] = []string{"1", value}
		q := r.URL.Query()
		got := string(appendCanonicalRequest(nil, r, signed, q, "X-Amz-Signature", "hash"))
		want := plainCanonicalRequest(r, strings.Split(signed, ";"), plainCanonicalQuery(q, "X-Amz-Signature"), "hash")
		if got != want {
			t.Fatalf("\n got %q\nwant %q", got, want)
		}
	})
}

// Encoded names compare as their encodings do.
func TestCompareEncoded(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		a, b := randomText(rng, 6), randomText(rng, 6)
		if rng.IntN(4) == 0 {
			b = a + b // one a prefix of the other
		}
		want := strings.Compare(plainEncode(a, true), plainEncode(b, true))
		if got := compareEncoded(a, b); sign(got) != want {
			t.Fatalf("compareEncoded(%q, %q) = %d, want %d", a, b, got, want)
		}
	}
}

func sign(n int) int { return min(max(n, -1), 1) }

// A signature is 64 lower-case hex digits: the right one in upper case,
// cut short, lengthened or with one digit changed is refused.
func TestSignatureForms(t *testing.T) {
	v, header, _ := sdkRequests(t)
	auth := header.Header.Get("Authorization")
	i := strings.Index(auth, "Signature=") + len("Signature=")
	sig := auth[i:]
	flip := func(s string, at int) string {
		c := byte('0')
		if s[at] == '0' {
			c = '1'
		}
		return s[:at] + string(c) + s[at+1:]
	}
	for name, bad := range map[string]string{
		"upper case": strings.ToUpper(sig), "cut short": sig[:63], "lengthened": sig + "0",
		"first digit": flip(sig, 0), "last digit": flip(sig, 63), "not hex": sig[:62] + "zz", "zeros": strings.Repeat("0", 64),
	} {
		if bad == sig {
			continue // all digits: upper case is the same
		}
		r := header.Clone(header.Context())
		r.Header.Set("Authorization", auth[:i]+bad)
		if _, err := v.Verify(r); !errors.Is(err, ErrSignature) {
			t.Errorf("%s: %v, want ErrSignature", name, err)
		}
	}
	if _, err := v.Verify(header); err != nil {
		t.Fatalf("the right signature: %v", err)
	}
}

// Verifications of several keys at once each get their own answer: the
// HMACs kept per key are used by one verification at a time (run with
// -race).
func TestVerifyConcurrently(t *testing.T) {
	v, header, presigned := sdkRequests(t)
	other := &Verifier{Region: v.Region, Now: v.Now, Secrets: func(id string) (string, bool) { return "another-secret", true }}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				r := header
				if (g+i)%2 == 0 {
					r = presigned
				}
				_, good := v.Verify(r)
				_, bad := other.Verify(r)
				if good != nil || !errors.Is(bad, ErrSignature) {
					errs <- errors.Join(good, bad, errors.New("request "+strconv.Itoa(i)))
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// randomRequest is a request with a path, a query and headers whose
// canonical forms need every rule: escapes, several values, names that
// sort differently encoded, white space to trim and fold.
func randomRequest(rng *rand.Rand) (*http.Request, string, url.Values) {
	r := httptest.NewRequest(http.MethodGet, "http://h.test/", nil)
	r.Host = []string{"h.test", "h.test:9000", " h.test "}[rng.IntN(3)]
	var path strings.Builder
	for range rng.IntN(4) + 1 {
		path.WriteString("/" + randomText(rng, 5))
	}
	r.URL.Path = path.String()
	r.URL.RawPath = ""
	if rng.IntN(3) == 0 {
		r.URL.RawPath = url.PathEscape(r.URL.Path[1:]) // escaped otherwise than Go would
		r.URL.RawPath = "/" + r.URL.RawPath
		if u, err := url.Parse("http://h.test" + r.URL.RawPath); err == nil {
			r.URL.Path = u.Path
		}
	}
	q := url.Values{}
	for range rng.IntN(6) {
		k := randomText(rng, 4)
		for range rng.IntN(3) + 1 {
			q[k] = append(q[k], randomText(rng, 4))
		}
	}
	if rng.IntN(2) == 0 {
		q.Set("X-Amz-Signature", "s")
	}
	names := []string{"host"}
	for _, h := range []string{"x-amz-date", "range", "x-amz-meta-x", "content-type", "amz-sdk-request"} {
		if rng.IntN(2) == 0 {
			continue
		}
		names = append(names, h)
		for range rng.IntN(3) {
			r.Header.Add(h, randomValue(rng))
		}
	}
	switch rng.IntN(6) {
	case 0:
		names = append(names, "content-length")
		r.ContentLength = int64(rng.IntN(3)) - 1
	case 1:
		names = append(names, "transfer-encoding")
		r.TransferEncoding = []string{"chunked"}
	case 2:
		names = append(names, "", "X-Amz-Date") // empty and upper-case entries, as a client may send them
	}
	rng.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	return r, strings.Join(names, ";"), q
}

// randomText draws up to n bytes from letters, digits, the unreserved
// marks, and bytes that are encoded (among them some that sort before
// and after '%' and the letters, and UTF-8).
func randomText(rng *rand.Rand, n int) string {
	const alphabet = "aZz09-._~ /%+=&{}!*\x7f"
	var b strings.Builder
	for range rng.IntN(n + 1) {
		if rng.IntN(8) == 0 {
			b.WriteString("漢")
			continue
		}
		b.WriteByte(alphabet[rng.IntN(len(alphabet))])
	}
	return b.String()
}

func randomValue(rng *rand.Rand) string {
	parts := []string{"a", "b c", " ", "\t", "  ", "x\u00a0y", "\u3000", "bytes=0-9"}
	var b strings.Builder
	for range rng.IntN(5) {
		b.WriteString(parts[rng.IntN(len(parts))])
	}
	return b.String()
}

// The plain construction of the canonical request: the oracle of the
// tests above.

func plainCanonicalRequest(r *http.Request, signed []string, query, payloadHash string) string {
	var b strings.Builder
	b.WriteString(r.Method + "\n")
	escaped := r.URL.EscapedPath()
	if escaped == "" {
		b.WriteString("/")
	} else {
		p, err := url.PathUnescape(escaped)
		if err != nil {
			p = escaped
		}
		b.WriteString(plainEncode(p, false))
	}
	b.WriteString("\n" + query + "\n")
	for _, name := range signed {
		b.WriteString(name + ":" + plainHeaderValue(r, name) + "\n")
	}
	b.WriteString("\n" + strings.Join(signed, ";") + "\n" + payloadHash)
	return b.String()
}

func plainHeaderValue(r *http.Request, name string) string {
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
	folded := make([]string, len(vals))
	for i, v := range vals {
		folded[i] = strings.Join(strings.Fields(v), " ")
	}
	return strings.Join(folded, ",")
}

func plainCanonicalQuery(q url.Values, skip string) string {
	type kv struct{ k, v string }
	var pairs []kv
	for k, vs := range q {
		if k == skip {
			continue
		}
		for _, v := range vs {
			pairs = append(pairs, kv{plainEncode(k, true), plainEncode(v, true)})
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

func plainEncode(s string, slash bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if unreserved(c) || c == '/' && !slash {
			b.WriteByte(c)
		} else {
			b.WriteString("%" + strings.ToUpper(strconv.FormatUint(uint64(c)>>4, 16)+strconv.FormatUint(uint64(c)&15, 16)))
		}
	}
	return b.String()
}
