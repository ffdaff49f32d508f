package servers

import (
	"crypto/subtle"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// HTTPOptions change how ServeDir answers.
type HTTPOptions struct {
	// IgnoreRange answers every GET with the whole file and 200, as
	// servers without range support do.
	IgnoreRange bool
	// BearerToken, if set, is required in the Authorization header;
	// requests without it get 401.
	BearerToken string
	// Seen, if set, is called with every request before it is answered
	// (tests count requests with it); it must be safe for concurrent use.
	Seen func(r *http.Request)
}

// ServeDir serves the regular files below dir over HTTP the way a static
// bucket does: GET and HEAD, byte ranges (unless opts.IgnoreRange), an
// ETag from the file's size and modification time, and 404 for anything
// that is not a regular file (directories included: they are prefixes,
// not values). Paths cannot leave dir. The server stops when the test
// ends.
func ServeDir(t testing.TB, dir string, opts HTTPOptions) *httptest.Server {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if opts.Seen != nil {
			opts.Seen(r)
		}
		if opts.BearerToken != "" && !bearerOK(r, opts.BearerToken) {
			w.Header().Set("WWW-Authenticate", "Bearer")
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "read-only", http.StatusMethodNotAllowed)
			return
		}
		serveFile(w, r, root, opts)
	}))
	t.Cleanup(func() {
		srv.Close()
		root.Close()
	})
	return srv
}

func bearerOK(r *http.Request, token string) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
}

func serveFile(w http.ResponseWriter, r *http.Request, root *os.Root, opts HTTPOptions) {
	name := strings.TrimPrefix(r.URL.Path, "/")
	f, err := root.Open(name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("ETag", fmt.Sprintf(`"%x-%x"`, fi.Size(), fi.ModTime().UnixNano()))
	if opts.IgnoreRange {
		w.Header().Set("Content-Length", fmt.Sprint(fi.Size()))
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			_, _ = io.Copy(w, f)
		}
		return
	}
	http.ServeContent(w, r, "", fi.ModTime(), f)
}
