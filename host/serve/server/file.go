package server

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/serve/server/ranges"
)

// fileSmall is the largest value read into a pooled buffer and written;
// larger values go to the kernel from their file (sendfile), with no
// buffer at all. Below it a copy costs less than a file's setup (os.File
// asks the kernel twice about the descriptor) and net/http's sendfile
// preamble (a read of the first 512 bytes, a flush).
const fileSmall = 64 << 10

var smallBuffers = sync.Pool{New: func() any { b := make([]byte, fileSmall); return &b }}

// serveFile answers a GET or HEAD from the value's open file, where the
// dataset's store has files (the fs store, through wrappers that keep its
// bytes): one open gives the version, the size and the bytes of that
// version (read into a pooled buffer when small), so no Stat comes first and no later write can splice another
// version in. It reports false, having written nothing, where the store
// has no file for the key, the key is served from consolidated metadata,
// or the response is paced (paced bytes go through Write).
func (g *Server) serveFile(w http.ResponseWriter, r *http.Request, ds *Dataset, key string, rs ranges.Spec, ranged bool) (bool, error) {
	if !ds.Files || paced(w) {
		return false, nil
	}
	ctx := r.Context()
	if _, ok, err := ds.consolidatedFor(ctx, key); ok || err != nil {
		return false, err
	}
	bp := smallBuffers.Get().(*[]byte)
	defer smallBuffers.Put(bp)
	f, info, err := store.OpenFile(ctx, ds.Store, key, *bp)
	if errors.Is(err, store.ErrUnsupported) {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	if f != nil {
		defer f.Close()
	}
	start, end, status, done, err := valueResponse(w, r, ds, key, info, rs, ranged)
	if done || err != nil || r.Method == http.MethodHead {
		return true, err
	}
	n := end - start
	if f == nil {
		w.WriteHeader(status)
		w.Write((*bp)[start:end])
		return true, nil
	}
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		return true, fmt.Errorf("get %q: %w", key, err)
	}
	w.WriteHeader(status)
	if copied, err := io.CopyN(w, f, n); err != nil && copied < n {
		// the client went away, or the file failed after the status:
		// cut the connection so a short body is never taken for a value
		g.Abort(w, fmt.Errorf("send %s: %w", key, err))
	}
	g.Metrics.FileResponses.Inc()
	return true, nil
}

// paced reports whether w sends at a caller's byte rate.
func paced(w http.ResponseWriter) bool {
	rw, ok := w.(*response)
	return ok && len(rw.throttle) > 0
}

// ReadFrom hands src to the connection's own ReadFrom (sendfile from a
// file) and counts what it sent; a paced response copies through Write.
func (r *response) ReadFrom(src io.Reader) (int64, error) {
	r.wrote = true
	rf, ok := r.ResponseWriter.(io.ReaderFrom)
	if len(r.throttle) > 0 || !ok {
		return io.Copy(writerOnly{r}, src)
	}
	n, err := rf.ReadFrom(src)
	r.written += n
	return n, err
}

// writerOnly hides a writer's ReadFrom from io.Copy.
type writerOnly struct{ io.Writer }
