package gateway_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// writeSizes is a response recorder that keeps the size of every write.
type writeSizes struct {
	*httptest.ResponseRecorder
	sizes []int
}

func (w *writeSizes) Write(b []byte) (int, error) {
	w.sizes = append(w.sizes, len(b))
	return w.ResponseRecorder.Write(b)
}

// A principal's bytes_per_second paces its responses: a value is sent in
// steps no larger than one second of the rate (each waited for before it
// is sent), while another principal's response goes out whole.
func TestBytesPerSecondPacesResponses(t *testing.T) {
	root := t.TempDir()
	value := make([]byte, 3000)
	if err := os.WriteFile(filepath.Join(root, "v"), value, 0o644); err != nil {
		t.Fatal(err)
	}
	hash := func(token string) string {
		sum := sha256.Sum256([]byte(token))
		return hex.EncodeToString(sum[:])
	}
	g := configGateway(t, `store "fs" "d" {
  root = "`+root+`"
}
principal "slow" {
  token_sha256 = "`+hash("slow-token-for-the-pacing-test")+`"
  rate_limit {
    requests_per_second = 100
    bytes_per_second    = "1KiB"
  }
}
principal "fast" {
  token_sha256 = "`+hash("fast-token-for-the-pacing-test")+`"
}
dataset "d" {
  store = store.fs.d
  access {
    read = ["slow", "fast"]
  }
}
`, "/tmp/pace.hcl")
	get := func(token string) *writeSizes {
		w := &writeSizes{ResponseRecorder: httptest.NewRecorder()}
		r := httptest.NewRequest(http.MethodGet, "/d/d/v", nil)
		r.Header.Set("Authorization", "Bearer "+token)
		g.ServeHTTP(w, r)
		if w.Code != 200 || w.Body.Len() != len(value) {
			t.Fatalf("GET: %d, %d bytes", w.Code, w.Body.Len())
		}
		return w
	}
	slow := get("slow-token-for-the-pacing-test")
	if len(slow.sizes) < 3 {
		t.Errorf("the paced response went out in %d writes %v, want steps of at most 1 KiB", len(slow.sizes), slow.sizes)
	}
	for _, n := range slow.sizes {
		if n > 1024 {
			t.Errorf("a paced step of %d bytes, more than a second of the rate (%v)", n, slow.sizes)
		}
	}
	if fast := get("fast-token-for-the-pacing-test"); len(fast.sizes) != 1 {
		t.Errorf("an unpaced response went out in %d writes %v, want one", len(fast.sizes), fast.sizes)
	}
}
