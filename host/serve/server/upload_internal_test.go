package server

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/host/runtime/config"
)

// bodyGateway is a gateway with only what taking in a body needs: a
// max_request_size and a budget of bodies (expensive_wait 0: a body
// that finds no room is refused at once).
func bodyGateway(budget, maxRequest int64) *Server {
	cfg := &config.Config{Server: config.DefaultServer()}
	cfg.Server.MaxRequestSize = maxRequest
	cfg.Server.BodyMemory = budget
	cfg.Server.ExpensiveWait = 0
	return &Server{Cfg: cfg, BodyBudget: newBodyBudget(cfg.Server.Safeguards)}
}

// bodyRequest is a PUT of data; length is its declared length (-1 for
// none, as a chunked body).
// receiveAsRow receives a body as a row of cost costUpload does: room
// taken by the middleware from the declared length, then the body.
func receiveAsRow(g *Server, w http.ResponseWriter, r *http.Request, declared int64) (*Upload, error) {
	r.ContentLength = declared
	c := &Call{W: w, R: r, Info: &RequestInfo{}}
	if err := g.Take(c, CostUpload); err != nil {
		return nil, err
	}
	return g.Receive(c, r.Body, declared)
}

func bodyRequest(data []byte, length int64) (*httptest.ResponseRecorder, *http.Request) {
	r := httptest.NewRequest(http.MethodPut, "/d/x/k", bytes.NewReader(data))
	r.ContentLength = length
	return httptest.NewRecorder(), r
}

// Bodies held in memory come out of the budget: a second one that does
// not fit is refused with 503 and Retry-After while the first is held,
// taken once it is released; a body larger than the whole budget is 413
// naming body_memory, declared or not. A body of undeclared length
// holds twice its size while its blocks are joined.
func TestBodiesInMemoryAreBudgeted(t *testing.T) {
	const mib = 1 << 20
	g := bodyGateway(32*mib, 64*mib)
	for _, c := range []struct {
		size     int
		declared bool
	}{{20 * mib, true}, {12 * mib, false}} {
		length := int64(-1)
		if c.declared {
			length = int64(c.size)
		}
		body := bytes.Repeat([]byte{7}, c.size)
		take := func() (*Upload, *httptest.ResponseRecorder, error) {
			w, r := bodyRequest(body, length)
			u, err := receiveAsRow(g, w, r, length)
			if err != nil {
				return nil, w, err
			}
			data, err := u.Data()
			if err == nil && !bytes.Equal(data, body) {
				t.Fatalf("length %d: read %d bytes, want the %d sent", length, len(data), len(body))
			}
			if err != nil {
				u.Release()
				u = nil
			}
			return u, w, err
		}
		first, _, err := take()
		if err != nil {
			t.Fatalf("length %d: %v", length, err)
		}
		_, w, err := take()
		if StatusOf(err) != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" || !strings.Contains(err.Error(), "body_memory") {
			t.Fatalf("length %d: a second body while the first is held: %v (Retry-After %q), want 503 naming body_memory",
				length, err, w.Header().Get("Retry-After"))
		}
		first.Release()
		third, _, err := take()
		if err != nil {
			t.Fatalf("length %d: after the first is released: %v", length, err)
		}
		third.Release()
	}
	large := bytes.Repeat([]byte{7}, 40*mib)
	for _, length := range []int64{int64(len(large)), -1} {
		w, r := bodyRequest(large, length)
		u, err := receiveAsRow(g, w, r, length)
		if err == nil {
			_, err = u.Data()
			u.Release()
		}
		if StatusOf(err) != http.StatusRequestEntityTooLarge || !strings.Contains(err.Error(), "body_memory") {
			t.Errorf("length %d: a body larger than the budget: %v, want 413 naming body_memory", length, err)
		}
	}
	if !g.BodyBudget.memory.TryAcquire(32 * mib) {
		t.Error("the budget is not whole again after every release")
	}
}

// A body over max_request_size is 413 whether it says so (refused before
// it is read) or not (refused when it passes the limit); a body that
// fails as it is read is the client's failure, whatever reads it.
func TestBodyLimits(t *testing.T) {
	g := bodyGateway(0, 3<<20)
	body := bytes.Repeat([]byte{1}, 4<<20)
	for _, length := range []int64{int64(len(body)), -1} {
		w, r := bodyRequest(body, length)
		u, err := receiveAsRow(g, w, r, length)
		if err == nil {
			_, err = u.Data()
		}
		if StatusOf(err) != http.StatusRequestEntityTooLarge {
			t.Errorf("length %d over max_request_size: %v, want 413", length, err)
		}
	}
	// streamed: the store sees the reader's error; the answer is the body's
	w, r := bodyRequest(body, -1)
	u, err := receiveAsRow(g, w, r, -1)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.Copy(io.Discard, u.stream())
	if StatusOf(u.failure(errors.New("fs: set: write temporary file"))) != http.StatusRequestEntityTooLarge || err == nil {
		t.Errorf("a streamed body over max_request_size: %v, answered %v, want 413", err, u.failure(err))
	}
	// a body (decoded from a framing) shorter or longer than it declared
	for _, declared := range []int64{3 << 20, 2 << 20} {
		w, r := bodyRequest(body[:2<<20+1<<19], -1)
		u, err := receiveAsRow(g, w, r, declared)
		if err == nil {
			_, err = u.Data()
		}
		if StatusOf(err) != http.StatusBadRequest || !strings.Contains(err.Error(), "declared") {
			t.Errorf("2.5 MiB declared as %d bytes: %v, want 400", declared, err)
		}
	}
	cut := errors.New("connection reset")
	w, r = bodyRequest(nil, -1)
	r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body[:2<<20]), &failingReader{cut}))
	u, err = receiveAsRow(g, w, r, -1)
	if err != nil {
		t.Fatal(err)
	}
	_, err = u.Data()
	if StatusOf(err) != http.StatusBadRequest || !errors.Is(err, cut) {
		t.Errorf("a body cut off: %v, want 400 wrapping the cut", err)
	}
}

type failingReader struct{ err error }

func (f *failingReader) Read([]byte) (int, error) { return 0, f.err }

// A body received by a row whose cost took no room for it (a route
// table's mistake) is refused with 500 before a byte is read, never read
// outside the budget.
func TestBodyWithoutRoomRefused(t *testing.T) {
	g := bodyGateway(32<<20, 64<<20)
	w, r := bodyRequest([]byte("abcd"), 4)
	u, err := g.Receive(&Call{W: w, R: r, Info: &RequestInfo{}}, r.Body, 4)
	if u != nil || StatusOf(err) != http.StatusInternalServerError {
		t.Fatalf("a body without room: %v, %v; want a 500 and no upload", u, err)
	}
	if n, _ := r.Body.Read(make([]byte, 8)); n != 4 {
		t.Errorf("the body was read (%d bytes left of 4)", n)
	}
}
