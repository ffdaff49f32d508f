package gateway

import (
	"bytes"
	order "encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	bin "github.com/zarrgw/zarrgw/tests/support/binary"
)

// The array of the corrupt-chunk tests: rows x cols float32 elements,
// element i holding i+1, in chunks of chunkRows rows; the chunk at row
// badRow (of rows/chunkRows) holds garbage. At the server's smallest
// stream budget (expensive_memory = 16MiB) a read of the whole array
// takes several slabs, and that chunk is in a late one.
const (
	corruptRows, corruptCols, corruptChunkRows = 20000, 100, 100
	badRow                                     = 150
)

// zarrgwRun runs the zarrgw under test with stdin and fails the test
// unless it succeeds.
func zarrgwRun(t *testing.T, stdin []byte, args ...string) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	if out, code := combined(t, cmd); code != 0 {
		t.Fatalf("zarrgw %s: exit %d\n%s", strings.Join(args, " "), code, out)
	}
}

// combined runs cmd and returns its output and error output, and its exit
// code.
func combined(t *testing.T, cmd *exec.Cmd) (string, int) {
	t.Helper()
	stdout, stderr, code := bin.Run(t, cmd)
	return stdout + stderr, code
}

// corruptArrays writes, with zarrgw itself, the test array at v3/a below
// dir and its copy in Zarr v2 at v2/a (which python3-zarr 2.13 reads),
// then overwrites one chunk of each with garbage.
func corruptArrays(t *testing.T, dir string) {
	t.Helper()
	raw := make([]byte, corruptRows*corruptCols*4)
	for i := range corruptRows * corruptCols {
		order.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(float32(i+1)))
	}
	v3, v2 := filepath.Join(dir, "v3"), filepath.Join(dir, "v2")
	zarrgwRun(t, nil, "create", v3, "--path", "a", "--dtype", "float32",
		"--shape", fmt.Sprintf("%d,%d", corruptRows, corruptCols), "--chunks", fmt.Sprintf("%d,%d", corruptChunkRows, corruptCols))
	zarrgwRun(t, raw, "write", v3, "--path", "a", "--format", "raw")
	zarrgwRun(t, nil, "cp", "--quiet", "--to-format", "2", v3, v2)
	for _, chunk := range []string{filepath.Join(v3, "a", "c", strconv.Itoa(badRow), "0"), filepath.Join(v2, "a", strconv.Itoa(badRow), "0")} {
		if _, err := os.Stat(chunk); err != nil {
			t.Fatalf("the chunk to damage: %v", err)
		}
		if err := os.WriteFile(chunk, []byte("not a chunk at all"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A chunk that cannot be decoded in the middle of an array-API stream:
// the response is cut (HTTP/1.1 without its last chunk, or short of its
// Content-Length), so curl, Go's net/http and Python's urllib all see a
// failed transfer in every format, never a short success; python3-zarr
// reading the array through the key API raises rather than returning fill
// values. The access log records each such response with the status sent
// (200), the error naming the chunk and "aborted": true, and the metrics
// count them. A slice whose first slab holds the chunk is answered 502,
// with a body of its own length that names the chunk.
func TestCorruptChunkMidStream(t *testing.T) {
	if _, err := os.Stat(python); err != nil {
		t.Fatalf("%s is missing: run `bash scripts/setup.sh` (installs python3-zarr, python3-fsspec, python3-aiohttp)", python)
	}
	const curl = "/usr/bin/curl"
	if _, err := os.Stat(curl); err != nil {
		t.Fatalf("%s is missing: run `bash scripts/setup.sh`", curl)
	}
	dir := t.TempDir()
	corruptArrays(t, dir)
	s := startServer(t, fmt.Sprintf(`
store "fs" "data" {
  root = %q
}
dataset "d" {
  store     = store.fs.data
  read_only = true
}
server {
  listen           = "127.0.0.1:0"
  expensive_memory = "16MiB"
}
`, dir))
	badKey := fmt.Sprintf("a/c/%d/0", badRow)
	formats := []string{"raw", "npy", "json"}
	slice := func(format string) string { return s.url + "/d/d/v3/a?format=" + format }

	aborted := 0
	for _, f := range formats {
		// curl: 18 (transfer closed with outstanding data) or 56 (failure
		// receiving), never 0
		cmd := exec.Command(curl, "-sS", "-o", os.DevNull, slice(f))
		out, code := combined(t, cmd)
		if code != 18 && code != 56 {
			t.Errorf("curl, format=%s: exit %d, want 18 or 56 (a failed transfer): %s", f, code, out)
		}
		aborted++
		// Go: the status was 200, the body's read fails
		resp, err := http.Get(slice(f))
		if err != nil {
			t.Fatalf("GET format=%s: %v", f, err)
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || err == nil {
			t.Errorf("Go client, format=%s: status %d, %d bytes, read error %v: want 200 and a failed read", f, resp.StatusCode, n, err)
		}
		aborted++
	}

	var py struct {
		Slices      map[string]map[string]any `json:"slices"`
		Zarr        map[string]any            `json:"zarr"`
		ZarrHealthy map[string]any            `json:"zarr_healthy"`
	}
	slices := map[string]string{}
	for _, f := range formats {
		slices[f] = slice(f)
	}
	runJSON(t, python, []string{"py/read_corrupt.py"},
		map[string]any{"slices": slices, "zarr_url": s.url + "/d/d/v2/a", "healthy": []int{0, corruptChunkRows}}, &py)
	for _, f := range formats {
		if py.Slices[f]["error"] == nil {
			t.Errorf("urllib, format=%s: read %v without an error", f, py.Slices[f])
		}
		aborted++
	}
	if py.Zarr["error"] == nil {
		t.Errorf("python3-zarr through the key API read the array with a corrupt chunk without an error: %v", py.Zarr)
	}
	// the error is the chunk's: the rows without it read exactly
	if want := float64(corruptChunkRows*corruptCols) * float64(corruptChunkRows*corruptCols+1) / 2; py.ZarrHealthy["sum"] != want {
		t.Errorf("python3-zarr, rows 0:%d through the key API: %v, want the sum %v", corruptChunkRows, py.ZarrHealthy, want)
	}

	// the slab with the chunk first: an error status, with its own body
	for _, f := range formats {
		url := fmt.Sprintf("%s/d/d/v3/a?format=%s&slice=%d:%d", s.url, f, badRow*corruptChunkRows, (badRow+1)*corruptChunkRows)
		resp, err := http.Get(url)
		if err != nil {
			t.Errorf("format=%s, the corrupt chunk's rows only: %v: want 502 naming %s", f, err, badKey)
			continue
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadGateway || err != nil || !strings.Contains(string(body), badKey) {
			t.Errorf("format=%s, the corrupt chunk's rows only: status %d, read error %v, body %.300q: want 502 naming %s",
				f, resp.StatusCode, err, body, badKey)
		}
	}

	records := waitAborted(t, s, aborted)
	for _, r := range records {
		if r.Status != http.StatusOK || !strings.Contains(r.Error, badKey) || r.Operation != "array:Slice" {
			t.Errorf("access log record of an aborted slice: %+v: want status 200 (as sent) and an error naming %s", r, badKey)
		}
	}
	metric := regexp.MustCompile(`(?m)^zarrgw_http_responses_aborted_total\{dataset="d",operation="array:Slice"\} (\d+)$`)
	_, page := s.get(t, "/metrics")
	if m := metric.FindStringSubmatch(page); m == nil || m[1] != strconv.Itoa(aborted) {
		t.Errorf("zarrgw_http_responses_aborted_total: %v, want %d", m, aborted)
	}
}

// streamRecord is what the test reads of an access log record.
type streamRecord struct {
	Msg       string `json:"msg"`
	Operation string `json:"operation"`
	Status    int    `json:"status"`
	Error     string `json:"error"`
	Aborted   bool   `json:"aborted"`
}

// waitAborted waits for the gateway's log to hold want records of
// aborted responses (it writes them in batches), and returns them; fewer
// after a minute is a failure.
func waitAborted(t *testing.T, s *server, want int) []streamRecord {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		var found []streamRecord
		for _, line := range strings.Split(s.log.String(), "\n") {
			var r streamRecord
			if json.Unmarshal([]byte(line), &r) == nil && r.Msg == "request" && r.Aborted {
				found = append(found, r)
			}
		}
		if len(found) >= want {
			if len(found) > want {
				t.Errorf("%d aborted responses logged, want %d", len(found), want)
			}
			return found
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d access log records with \"aborted\": true, want %d; the log:\n%s", len(found), want, s.log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
