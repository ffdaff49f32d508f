package gateway_test

import (
	"net/http"
	"strings"
	"testing"
)

// A store error that withholds its detail (a reference set's target, as
// the references store words it) reaches clients as its public text, in
// the key API's answers and the pages'; the detail is the log's. (The
// array API ends a response whose chunk fails without a body, headers
// being sent before the first chunk is read.)
func TestClientsReadWithheldErrorsWithoutDetail(t *testing.T) {
	tg := newTestGateway(t)
	tg.put(t, "/d/open/y/zarr.json", `{"zarr_format":3,"node_type":"array","shape":[4],"data_type":"uint8",
		"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[2]}},
		"chunk_key_encoding":{"name":"default","configuration":{"separator":"/"}},
		"fill_value":0,"codecs":[{"name":"bytes"}]}`)
	tg.put(t, "/d/open/x/c/0", "\x01\x02")
	for withhold, path := range map[string]string{"/c/": "/d/open/x/c/0", "y/zarr.json": "/d/open/y/zarr.json", "y/": "/ui/d/open/y"} {
		tg.rec.mu.Lock()
		tg.rec.withhold = withhold
		tg.rec.mu.Unlock()
		resp, body := tg.do(t, http.MethodGet, path, "")
		if resp.StatusCode != http.StatusBadGateway || strings.Contains(body, "169.254") || !strings.Contains(body, "its target could not be read") {
			t.Errorf("GET %s: %d %.300s; want 502 naming the key and not the target", path, resp.StatusCode, body)
		}
	}
}
