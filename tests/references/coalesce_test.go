package references

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	gwbinary "github.com/zarrgw/zarrgw/tests/support/binary"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// manyChunks writes big.bin, 10 000 chunks of 50 int16 (100 bytes, no
// compressor) in two regions: 5 000 chunks 16 bytes apart, a hole of 1
// MiB, 5 000 more; a reference set naming each chunk of the array x; and
// the values of x, little-endian.
func manyChunks(t *testing.T, dir, urlPrefix string) []byte {
	t.Helper()
	const n, per, gap, hole = 10_000, 50, 16, 1 << 20
	var file, values bytes.Buffer
	refs := map[string]any{
		".zgroup": `{"zarr_format":2}`,
		"x/.zarray": fmt.Sprintf(`{"zarr_format":2,"shape":[%d],"chunks":[%d],"dtype":"<i2","compressor":null,`+
			`"fill_value":0,"order":"C","filters":null}`, n*per, per),
	}
	for c := range n {
		if c == n/2 {
			file.Write(make([]byte, hole))
		}
		chunk := make([]byte, 2*per)
		for i := range per {
			binary.LittleEndian.PutUint16(chunk[2*i:], uint16(c*7+i*13))
		}
		refs[fmt.Sprintf("x/%d", c)] = []any{urlPrefix + "big.bin", file.Len(), len(chunk)}
		file.Write(chunk)
		file.Write(bytes.Repeat([]byte{0xee}, gap))
		values.Write(chunk)
	}
	if err := os.WriteFile(filepath.Join(dir, "big.bin"), file.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	writeJSON(t, filepath.Join(dir, "refs.json"), refs)
	return values.Bytes()
}

// requestCounter counts the GETs of each path an HTTP server answers.
type requestCounter struct {
	mu   sync.Mutex
	gets map[string]int
}

func (c *requestCounter) seen(r *http.Request) {
	if r.Method == http.MethodGet {
		c.mu.Lock()
		c.gets[r.URL.Path]++
		c.mu.Unlock()
	}
}

func (c *requestCounter) take(path string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.gets[path]
	c.gets[path] = 0
	return n
}

// Reading a whole variable of 10 000 chunks in two regions of a file on a
// web server makes one request per region (counted at the server), by
// `zarrgw cat` and by the gateway's array API, and none the second time
// with the cache transformer over the references; with max_block = 0 (no
// coalescing) it makes one per chunk.
func TestCoalescedVariableRead(t *testing.T) {
	files, dir := t.TempDir(), t.TempDir()
	counter := &requestCounter{gets: map[string]int{}}
	srv := servers.ServeDir(t, files, servers.HTTPOptions{Seen: counter.seen})
	want := manyChunks(t, files, srv.URL+"/")
	config := func(name, extra, transformer string) string {
		path := filepath.Join(dir, name+".hcl")
		write(t, path, fmt.Sprintf("store \"references\" \"x\" {\n  references = %q\n%s}\n\ndataset \"ds\" {\n  store = store.references.x\n  read_only = true\n%s}\n",
			srv.URL+"/refs.json", extra, transformer))
		return path
	}
	coalesced, alone := config("coalesced", "", ""), config("alone", "  max_block = 0\n", "")
	cached := config("cached", "", "  transformer \"cache\" {\n    revalidate_after = \"1h\"\n  }\n")

	if got := run(t, dir, zarrgwBin, "cat", "-c", coalesced, "ds", "--path", "x", "--format", "raw"); !bytes.Equal(got, want) {
		t.Fatalf("cat read %d bytes, not the %d written", len(got), len(want))
	}
	if n := counter.take("/big.bin"); n != 2 {
		t.Errorf("cat of 10 000 chunks in two regions: %d requests, want 2", n)
	}

	gw := gwbinary.Serve(t, zarrgwBin, coalesced)
	resp, err := http.Get(gw.URL + "/d/ds/x?format=raw")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !bytes.Equal(body, want) {
		t.Errorf("array API: %d, %d bytes (%.60s)", resp.StatusCode, len(body), strings.TrimSpace(string(body)))
	}
	if n := counter.take("/big.bin"); n != 2 {
		t.Errorf("the array API's read of 10 000 chunks in two regions: %d requests, want 2", n)
	}

	// With the cache transformer over the references, a second read of
	// the variable makes no request.
	cgw := gwbinary.Serve(t, zarrgwBin, cached)
	for i := range 2 {
		resp, err := http.Get(cgw.URL + "/d/ds/x?format=raw")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !bytes.Equal(body, want) {
			t.Fatalf("array API through the cache, read %d: %d bytes", i+1, len(body))
		}
		if n, want := counter.take("/big.bin"), 2-2*i; n != want {
			t.Errorf("read %d through the cache: %d requests, want %d", i+1, n, want)
		}
	}

	if got := run(t, dir, zarrgwBin, "cat", "-c", alone, "ds", "--path", "x", "--format", "raw"); !bytes.Equal(got, want) {
		t.Fatalf("cat (max_block = 0) read %d bytes, not the %d written", len(got), len(want))
	}
	if n := counter.take("/big.bin"); n != 10_000 {
		t.Errorf("with max_block = 0: %d requests, want one per chunk (10 000)", n)
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
