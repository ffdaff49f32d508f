//go:build !race

package sigv4

import (
	"net/http"
	"testing"
)

// A small signed GET is verified without allocating but the Request it
// returns: no strings built for the canonical request, the HMAC state and
// the working buffer reused. (The race detector makes pools drop what
// they keep, so this file is not built under it.)
func TestVerifyAllocations(t *testing.T) {
	v, header, presigned := sdkRequests(t)
	for name, r := range map[string]*http.Request{"header": header, "presigned": presigned} {
		q := r.URL.Query() // the caller's, parsed once for every step
		if _, err := v.VerifyQuery(r, q); err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(200, func() { v.VerifyQuery(r, q) }); n > 1 {
			t.Errorf("%s: %.1f allocations per verification, want at most 1 (the Request)", name, n)
		}
	}
}
