package gateway_test

import (
	"bytes"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"testing"
)

const filesConfig = `
store "fs" "local" {
  root = "ROOT"
}
dataset "plain" {
  store  = store.fs.local
  prefix = "plain"
  access {
    read  = ["*"]
    write = ["*"]
  }
}
dataset "sharded" {
  store  = store.fs.local
  prefix = "sharded"
  transformer "sharding" {
    chunks_per_shard = [2, 2]
  }
  access {
    read  = ["*"]
    write = ["*"]
  }
}
dataset "cached" {
  store  = store.fs.local
  prefix = "plain"
  transformer "cache" {
    memory = "1MiB"
  }
  access {
    read = ["*"]
  }
}
server {
  listen = "127.0.0.1:0"
}
`

// fileResponses reads zarrgw_file_responses_total from /metrics.
func fileResponses(t *testing.T, tg *testGateway) int {
	t.Helper()
	_, page := tg.do(t, http.MethodGet, "/metrics", "")
	m := regexp.MustCompile(`(?m)^zarrgw_file_responses_total (\d+)$`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no zarrgw_file_responses_total on /metrics")
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// A value of the fs store goes out from its file (sendfile): whole, as a
// range and after a failed condition, with the right bytes and headers;
// small values and HEADs from the file too, without the kernel's copy.
func TestValuesSentFromFiles(t *testing.T) {
	tg := newGatewayOf(t, filesConfig)
	big := randomBytes(t, 300<<10)
	tg.put(t, "/d/plain/big", string(big))
	tg.put(t, "/d/plain/small", "small value")
	before := fileResponses(t, tg)

	resp, body := tg.do(t, http.MethodGet, "/d/plain/big", "")
	if resp.StatusCode != http.StatusOK || body != string(big) || resp.Header.Get("Content-Length") != strconv.Itoa(len(big)) {
		t.Fatalf("GET big: %d, %d bytes (Content-Length %s), equal %v", resp.StatusCode, len(body), resp.Header.Get("Content-Length"), body == string(big))
	}
	tag := resp.Header.Get("ETag")
	resp, body = tg.do(t, http.MethodGet, "/d/plain/big", "", "Range: bytes=100000-199999")
	if resp.StatusCode != http.StatusPartialContent || body != string(big[100000:200000]) ||
		resp.Header.Get("Content-Range") != fmt.Sprintf("bytes 100000-199999/%d", len(big)) {
		t.Fatalf("GET big range: %d %s, %d bytes", resp.StatusCode, resp.Header.Get("Content-Range"), len(body))
	}
	if resp, _ := tg.do(t, http.MethodGet, "/d/plain/big", "", "If-None-Match: "+tag); resp.StatusCode != http.StatusNotModified {
		t.Fatalf("GET If-None-Match its own tag: %d", resp.StatusCode)
	}
	if resp, _ := tg.do(t, http.MethodGet, "/d/plain/big", "", `If-Match: "other"`); resp.StatusCode != http.StatusPreconditionFailed {
		t.Fatalf("GET If-Match another tag: %d", resp.StatusCode)
	}
	if resp, body := tg.do(t, http.MethodHead, "/d/plain/big", ""); resp.StatusCode != http.StatusOK || body != "" ||
		resp.Header.Get("Content-Length") != strconv.Itoa(len(big)) || resp.Header.Get("ETag") != tag {
		t.Fatalf("HEAD big: %d, Content-Length %s, ETag %s", resp.StatusCode, resp.Header.Get("Content-Length"), resp.Header.Get("ETag"))
	}
	if resp, body := tg.do(t, http.MethodGet, "/d/plain/small", ""); resp.StatusCode != http.StatusOK || body != "small value" {
		t.Fatalf("GET small: %d %q", resp.StatusCode, body)
	}
	if resp, _ := tg.do(t, http.MethodGet, "/d/plain/missing", ""); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("GET missing: %d", resp.StatusCode)
	}
	// the whole value and the range went by sendfile; the rest sent no body
	// or one small enough to copy
	if got := fileResponses(t, tg) - before; got != 2 {
		t.Fatalf("%d responses sent from files, want 2", got)
	}
}

// Through a transformer that changes the bytes (sharding: a chunk is a
// part of a shard file) or keeps its own copy of them (a cache), nothing
// is sent from the store's files: the chunk comes back as written.
func TestNoFilesThroughTransformers(t *testing.T) {
	tg := newGatewayOf(t, filesConfig)
	tg.put(t, "/d/sharded/a/zarr.json", `{"zarr_format":3,"node_type":"array","shape":[512,512],"data_type":"uint16",
"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[256,256]}},"chunk_key_encoding":{"name":"default"},
"fill_value":0,"codecs":[{"name":"bytes","configuration":{"endian":"little"}}],"attributes":{}}`)
	chunk := randomBytes(t, 256*256*2)
	tg.put(t, "/d/sharded/a/c/1/0", string(chunk))
	tg.put(t, "/d/plain/big", string(chunk))
	before := fileResponses(t, tg)
	if resp, body := tg.do(t, http.MethodGet, "/d/sharded/a/c/1/0", ""); resp.StatusCode != http.StatusOK || !bytes.Equal([]byte(body), chunk) {
		t.Fatalf("GET a sharded chunk: %d, %d bytes, equal %v", resp.StatusCode, len(body), body == string(chunk))
	}
	if resp, body := tg.do(t, http.MethodGet, "/d/cached/big", ""); resp.StatusCode != http.StatusOK || body != string(chunk) {
		t.Fatalf("GET through the cache: %d, %d bytes", resp.StatusCode, len(body))
	}
	if got := fileResponses(t, tg) - before; got != 0 {
		t.Fatalf("%d responses sent from files through transformers, want 0", got)
	}
	// the same store without a transformer does send from its file: the
	// count above could have moved
	if resp, _ := tg.do(t, http.MethodGet, "/d/plain/big", ""); resp.StatusCode != http.StatusOK || fileResponses(t, tg)-before != 1 {
		t.Fatalf("GET plain: %d, file responses %d, want 1", resp.StatusCode, fileResponses(t, tg)-before)
	}
}
