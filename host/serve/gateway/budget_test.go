package gateway_test

import (
	"context"
	"image/png"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// newBudgetGateway is newTestGateway with more lines in the server block.
func newBudgetGateway(t *testing.T, serverLines string) *testGateway {
	t.Helper()
	return newGatewayOf(t, strings.Replace(testConfig, `cache_ttl        = "1h"`, `cache_ttl        = "1h"`+"\n"+serverLines, 1))
}

// putArray declares a float32 array of the given shape and chunks (JSON
// lists) in dataset open, with no chunk written: it reads as fill values.
func (tg *testGateway) putArray(t *testing.T, name, shape, chunks string) {
	t.Helper()
	tg.put(t, "/d/open/"+name+"/zarr.json", `{"zarr_format":3,"node_type":"array","shape":`+shape+`,"data_type":"float32",
		"chunk_grid":{"name":"regular","configuration":{"chunk_shape":`+chunks+`}},"chunk_key_encoding":{"name":"default"},
		"fill_value":"NaN","codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd"}],"attributes":{}}`)
}

// hold starts reading a 64 MB slice without reading its body: once its
// headers arrive, the stream is admitted and stays in the budget until
// the returned function closes it.
func (tg *testGateway) hold(t *testing.T) (done func()) {
	t.Helper()
	resp, err := tg.Client().Get(tg.URL + "/d/open/big?format=raw")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("held slice: %d", resp.StatusCode)
	}
	return func() { resp.Body.Close() }
}

// With the only slot taken and no wait, a picture and a slice are
// refused with 503, Retry-After and a reason naming the budget; once the
// held request ends, they are served again.
func TestBudgetExhausted503(t *testing.T) {
	tg := newBudgetGateway(t, `expensive_requests = 1
  expensive_wait = "0s"`)
	tg.putArray(t, "big", "[4000, 4000]", "[1000, 1000]")
	release := tg.hold(t)
	for _, q := range []string{"?format=png", "?slice=0:10,0:10&format=json"} {
		resp, body := tg.do(t, "GET", "/d/open/big"+q, "")
		if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, "expensive_requests = 1") {
			t.Errorf("%s while the budget is full: %d, Retry-After %q, %s", q, resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
		if resp.Header.Get("ETag") != "" || resp.Header.Get("Zarr-Shape") != "" {
			t.Errorf("%s: a refusal carries the headers of what it refused: %v", q, resp.Header)
		}
	}
	if resp, body := tg.do(t, "HEAD", "/d/open/big?format=raw", ""); resp.StatusCode != 200 {
		t.Errorf("HEAD of a slice reads nothing and needs no room: %d %s", resp.StatusCode, body)
	}
	if resp, body := tg.do(t, "GET", "/d/open/big/zarr.json", ""); resp.StatusCode != 200 {
		t.Errorf("the key API is not budgeted: %d %s", resp.StatusCode, body)
	}
	release()
	// the held request ends when the server notices the closed
	// connection: ask until it has (each refusal is immediate)
	waitFor(t, func() bool {
		resp, _ := tg.do(t, "GET", "/d/open/big?slice=0:10,0:10&format=png", "")
		return resp.StatusCode == 200
	})
}

// A request that finds the budget full waits on it, and is served as
// soon as the held request is done.
func TestBudgetReleasedAfterRequest(t *testing.T) {
	tg := newBudgetGateway(t, `expensive_requests = 1
  expensive_wait = "1m"`)
	tg.putArray(t, "big", "[4000, 4000]", "[1000, 1000]")
	release := tg.hold(t)
	status := make(chan int, 1)
	go func() {
		resp, err := tg.Client().Get(tg.URL + "/d/open/big?format=png&max_pixels=10000")
		if err != nil {
			status <- 0
			return
		}
		resp.Body.Close()
		status <- resp.StatusCode
	}()
	release()
	if s := <-status; s != 200 {
		t.Fatalf("the waiting picture: %d", s)
	}
}

// Many small requests at once, within the budget, are all served: they
// queue for the slots rather than being refused.
func TestBudgetServesConcurrentSmallRequests(t *testing.T) {
	tg := newBudgetGateway(t, `expensive_requests = 2
  expensive_memory = "64MiB"
  expensive_wait = "1m"`)
	tg.putArray(t, "small", "[200, 300]", "[100, 100]")
	var wg sync.WaitGroup
	statuses := make(chan int, 40)
	for i := range 40 {
		q := "?format=png"
		if i%2 == 1 {
			q = "?slice=0:50,0:50&format=json"
		}
		wg.Go(func() {
			resp, err := tg.Client().Get(tg.URL + "/d/open/small" + q)
			if err != nil {
				statuses <- 0
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			statuses <- resp.StatusCode
		})
	}
	wg.Wait()
	close(statuses)
	for s := range statuses {
		if s != 200 {
			t.Errorf("a small request: %d", s)
		}
	}
}

// A picture larger than the whole memory budget is drawn smaller, within
// it; a read whose chunks alone exceed it is refused with 413, naming it.
func TestBudgetOversized(t *testing.T) {
	tg := newBudgetGateway(t, `expensive_memory = "16MiB"`)
	tg.putArray(t, "big", "[4000, 4000]", "[500, 500]")
	resp, body := tg.do(t, "GET", "/d/open/big?format=png&max_pixels=16000000", "")
	if resp.StatusCode != 200 {
		t.Fatalf("oversized picture: %d %s", resp.StatusCode, body)
	}
	img, err := png.Decode(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	// float32 values, the paletted image and the PNG: 8 bytes a pixel
	t.Logf("drawn %v", img.Bounds())
	if px := img.Bounds().Dx() * img.Bounds().Dy(); px < 100_000 || 8*px > 16<<20 {
		t.Errorf("picture of %v: %d pixels, want a picture within 16MiB", img.Bounds(), px)
	}
	tg.putArray(t, "huge", "[4000, 4000]", "[4000, 4000]") // 64 MB chunks
	for _, q := range []string{"?format=png", "?slice=0:10,0:10&format=json"} {
		resp, body := tg.do(t, "GET", "/d/open/huge"+q, "")
		if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(body, "expensive_memory = 16MiB") {
			t.Errorf("%s: %d %s, want 413 naming expensive_memory", q, resp.StatusCode, body)
		}
	}
}

// waitFor polls cond until it holds, failing after a generous deadline.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatal("condition not met within 30s")
		case <-tick.C:
		}
	}
}
