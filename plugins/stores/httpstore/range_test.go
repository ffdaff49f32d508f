package httpstore

import (
	"bytes"
	"fmt"
	nethttp "net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

// A server that ignores Range and sends a large value whole costs a
// bounded range no more than the bytes up to its end: the store stops
// reading there, and the server cannot send the rest. Before, the whole
// value was read and then sliced.
func TestIgnoredRangeReadsOnlyToItsEnd(t *testing.T) {
	const size = 64 << 20
	value := make([]byte, size)
	for i := range value {
		value[i] = byte(i % 251)
	}
	for _, announced := range []bool{true, false} {
		t.Run(fmt.Sprintf("Content-Length announced %v", announced), func(t *testing.T) {
			written := make(chan int, 1)
			srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
				if announced {
					w.Header().Set("Content-Length", strconv.Itoa(size))
				}
				n := 0
				for n < size {
					m, err := w.Write(value[n:min(n+64<<10, size)])
					n += m
					if err != nil {
						break
					}
				}
				written <- n
			}))
			defer srv.Close()
			s, err := New(t.Context(), Config{URL: srv.URL + "/"})
			if err != nil {
				t.Fatal(err)
			}
			v, err := s.Get(t.Context(), "big", store.Range(1000, 10))
			if err != nil || !bytes.Equal(v.Data, value[1000:1010]) {
				t.Fatalf("bytes 1000 to 1009: %v (%v), want %v", v.Data, err, value[1000:1010])
			}
			// the server stops once its writes fail; socket buffers take a
			// few MiB of what it writes
			if n := <-written; n > size/4 {
				t.Errorf("the server sent %d bytes of a %d-byte value for a range ending at 1010", n, size)
			}
		})
	}
}
