package gateway_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// Every Range form of RFC 9110: 206 with Content-Range, 416 with
// "bytes */size" only when unsatisfiable, several ranges and malformed
// ones answered 200 with the whole value.
func TestRanges(t *testing.T) {
	tg := newTestGateway(t)
	value := strings.Repeat("0123456789", 10)
	tg.put(t, "/d/open/a/c/0", value)
	cases := []struct {
		rng, want, contentRange string
		status                  int
	}{
		{"bytes=0-9", value[:10], "bytes 0-9/100", 206},
		{"bytes=95-200", value[95:], "bytes 95-99/100", 206},
		{"bytes=90-", value[90:], "bytes 90-99/100", 206},
		{"bytes=-5", value[95:], "bytes 95-99/100", 206},
		{"bytes=-500", value, "bytes 0-99/100", 206},
		{"bytes=100-", "", "bytes */100", 416},
		{"bytes=-0", "", "bytes */100", 416},
		{"bytes=0-1,5-6", value, "", 200},
		{"bytes=5-2", value, "", 200},
		{"bytes= -1", value, "", 200},
		{"bytes=0 -1", value, "", 200},
		{"items=0-1", value, "", 200},
		{"", value, "", 200},
	}
	for _, c := range cases {
		var h []string
		if c.rng != "" {
			h = append(h, "Range: "+c.rng)
		}
		resp, body := tg.do(t, http.MethodGet, "/d/open/a/c/0", "", h...)
		if resp.StatusCode != c.status || resp.Header.Get("Content-Range") != c.contentRange || c.status != 416 && body != c.want {
			t.Errorf("Range %q: %d, Content-Range %q, body %q; want %d, %q, %q", c.rng, resp.StatusCode, resp.Header.Get("Content-Range"), body, c.status, c.contentRange, c.want)
		}
		if c.status != 416 && resp.Header.Get("ETag") == "" {
			t.Errorf("Range %q: no ETag", c.rng)
		}
	}
	resp, body := tg.do(t, http.MethodHead, "/d/open/a/c/0", "")
	if resp.StatusCode != 200 || resp.ContentLength != 100 || body != "" || resp.Header.Get("Accept-Ranges") != "bytes" {
		t.Errorf("HEAD: %d, length %d, body %q", resp.StatusCode, resp.ContentLength, body)
	}
	// an empty value: its whole is empty, and a suffix range of it too
	tg.put(t, "/d/open/empty", "")
	for _, rng := range []string{"", "bytes=-4"} {
		resp, body = tg.do(t, http.MethodGet, "/d/open/empty", "", "Range: "+rng)
		if resp.StatusCode/100 != 2 || body != "" || resp.ContentLength != 0 {
			t.Errorf("empty value, Range %q: %d %q", rng, resp.StatusCode, body)
		}
	}
}

// A value larger than one store read (4 MiB) is sent piece by piece, whole
// and in ranges that cross pieces.
func TestLargeValue(t *testing.T) {
	tg := newTestGateway(t)
	var b strings.Builder
	for b.Len() < 9<<20 {
		fmt.Fprintf(&b, "%08d", b.Len())
	}
	value := b.String()
	tg.put(t, "/d/open/big", value)
	if _, body := tg.do(t, http.MethodGet, "/d/open/big", ""); body != value {
		t.Fatalf("whole: %d bytes back of %d", len(body), len(value))
	}
	resp, body := tg.do(t, http.MethodGet, "/d/open/big", "", "Range: bytes=4194000-8389000")
	if resp.StatusCode != 206 || body != value[4194000:8389001] {
		t.Fatalf("range across pieces: %d, %d bytes", resp.StatusCode, len(body))
	}
}

// ETags: If-None-Match gives 304, If-Match guards reads and writes, and
// If-None-Match: * creates only.
func TestConditionalRequests(t *testing.T) {
	tg := newTestGateway(t)
	resp, _ := tg.do(t, http.MethodPut, "/d/open/k", "one", "If-None-Match: *")
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d", resp.StatusCode)
	}
	tag := resp.Header.Get("ETag")
	if resp, _ = tg.do(t, http.MethodPut, "/d/open/k", "two", "If-None-Match: *"); resp.StatusCode != http.StatusPreconditionFailed {
		t.Fatalf("create over an existing key: %d", resp.StatusCode)
	}
	if resp, _ = tg.do(t, http.MethodGet, "/d/open/k", "", "If-None-Match: "+tag); resp.StatusCode != http.StatusNotModified {
		t.Fatalf("If-None-Match with the current tag: %d", resp.StatusCode)
	}
	bare := strings.Trim(tag, `"`) // as pasted by hand: matches as S3 lets it
	if resp, _ = tg.do(t, http.MethodGet, "/d/open/k", "", "If-None-Match: "+bare); resp.StatusCode != http.StatusNotModified {
		t.Fatalf("If-None-Match with the current tag unquoted: %d", resp.StatusCode)
	}
	if resp, _ = tg.do(t, http.MethodGet, "/d/open/k", "", "If-Match: "+bare); resp.StatusCode != http.StatusOK {
		t.Fatalf("If-Match with the current tag unquoted: %d", resp.StatusCode)
	}
	if resp, _ = tg.do(t, http.MethodGet, "/d/open/k", "", "If-Match: W/"+tag); resp.StatusCode != http.StatusPreconditionFailed {
		t.Fatalf("If-Match with a weak tag: %d (strong comparison never matches weak tags)", resp.StatusCode)
	}
	if resp, _ = tg.do(t, http.MethodGet, "/d/open/k", "", `If-Match: "stale"`); resp.StatusCode != http.StatusPreconditionFailed {
		t.Fatalf("GET If-Match with a stale tag: %d", resp.StatusCode)
	}
	if resp, _ = tg.do(t, http.MethodPut, "/d/open/k", "two", `If-Match: "stale"`); resp.StatusCode != http.StatusPreconditionFailed {
		t.Fatalf("PUT If-Match with a stale tag: %d", resp.StatusCode)
	}
	resp, _ = tg.do(t, http.MethodPut, "/d/open/k", "two", "If-Match: "+tag)
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("ETag") == tag || resp.Header.Get("ETag") == "" {
		t.Fatalf("PUT If-Match with the current tag: %d, new tag %q (old %q)", resp.StatusCode, resp.Header.Get("ETag"), tag)
	}
	if _, body := tg.do(t, http.MethodGet, "/d/open/k", ""); body != "two" {
		t.Fatalf("after the conditional write: %q", body)
	}
	if resp, _ = tg.do(t, http.MethodGet, "/d/open/k", "", "If-None-Match: "+tag); resp.StatusCode != http.StatusOK {
		t.Fatalf("If-None-Match with the old tag: %d", resp.StatusCode)
	}
}

// Only a key that is truly absent is 404; a failing backend is a 5xx with
// a short reason, never 404 (a Zarr reader would take it for fill values).
func TestNotFoundAndBackendFailure(t *testing.T) {
	tg := newTestGateway(t)
	if resp, _ := tg.do(t, http.MethodGet, "/d/open/missing", ""); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("missing key: %d", resp.StatusCode)
	}
	if resp, _ := tg.do(t, http.MethodGet, "/d/nosuch/k", ""); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("missing dataset: %d", resp.StatusCode)
	}
	tg.put(t, "/d/open/broken/c/0", "data")
	tg.rec.fail = "broken"
	for _, m := range []string{http.MethodGet, http.MethodHead} {
		resp, body := tg.do(t, m, "/d/open/broken/c/0", "")
		if resp.StatusCode != http.StatusBadGateway || m == http.MethodGet && !strings.Contains(body, "backend down") {
			t.Errorf("%s of a key whose store fails: %d %q", m, resp.StatusCode, body)
		}
	}
	resp, body := tg.do(t, http.MethodGet, "/d/open/broken/c/1", "")
	if resp.StatusCode != http.StatusBadGateway {
		t.Errorf("GET of a missing key whose store fails: %d %q", resp.StatusCode, body)
	}
}

// If-Range lets a Range apply only to the version the client has: the
// value's strong ETag or its exact Last-Modified date; anything else gets
// the whole value (200), so a resumed download never splices versions.
func TestIfRange(t *testing.T) {
	tg := newTestGateway(t)
	tg.put(t, "/d/open/v", "0123456789")
	resp, _ := tg.do(t, http.MethodGet, "/d/open/v", "")
	tag, mod := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	if tag == "" || mod == "" {
		t.Fatalf("no ETag (%q) or Last-Modified (%q) to test with", tag, mod)
	}
	for ifRange, want := range map[string]int{
		tag: 206, `"stale"`: 200, "W/" + tag: 200, mod: 206,
		"Mon, 02 Jan 2006 15:04:05 GMT": 200, "not a date": 200,
	} {
		resp, body := tg.do(t, http.MethodGet, "/d/open/v", "", "Range: bytes=0-3", "If-Range: "+ifRange)
		wantBody := map[int]string{206: "0123", 200: "0123456789"}[want]
		if resp.StatusCode != want || body != wantBody {
			t.Errorf("If-Range %s: %d %q, want %d %q", ifRange, resp.StatusCode, body, want, wantBody)
		}
	}
}
