package security

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Metadata bombs: a zarr.json written by anyone who may write a dataset
// (here anonymously) whose shapes make every size computed from them
// overflow. Each was reproduced against the gateway before: a panic in
// the budget (semaphore: n < 0), an integer divide by zero in slab
// planning, a slice bounds panic in a goroutine that killed the process,
// makeslice on a picture, an estimate that wrapped to a few bytes and
// admitted a read that grew past the machine's memory. Now each is a
// 4xx naming the array and the field, answered from the metadata alone:
// the store sees no call beyond the zarr.json, the gateway's peak RSS
// stays under metadataRSS, and it goes on answering.

// metadataRSS bounds the gateway's peak RSS through one bomb.
const metadataRSS = 512 << 20

// sharded is the zarr.json of a float32 array stored in shards of chunk
// with inner chunks of inner (JSON lists).
func sharded(shape, chunk, inner string) string {
	return `{"zarr_format":3,"node_type":"array","shape":` + shape + `,"data_type":"float32",` +
		`"chunk_grid":{"name":"regular","configuration":{"chunk_shape":` + chunk + `}},"chunk_key_encoding":{"name":"default"},"fill_value":0,` +
		`"codecs":[{"name":"sharding_indexed","configuration":{"chunk_shape":` + inner + `,"codecs":[{"name":"bytes","configuration":{"endian":"little"}}],` +
		`"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}]}}]}`
}

// plain is the zarr.json of an unsharded array.
func plain(shape, chunk, dtype string) string {
	return `{"zarr_format":3,"node_type":"array","shape":` + shape + `,"data_type":"` + dtype + `",` +
		`"chunk_grid":{"name":"regular","configuration":{"chunk_shape":` + chunk + `}},"chunk_key_encoding":{"name":"default"},"fill_value":0,` +
		`"codecs":[{"name":"bytes","configuration":{"endian":"little"}}]}`
}

// rectilinear is the zarr.json of a uint8 array with a rectilinear grid
// of the given chunk_shapes (JSON).
func rectilinear(shape, chunkShapes string) string {
	return `{"zarr_format":3,"node_type":"array","shape":` + shape + `,"data_type":"uint8",` +
		`"chunk_grid":{"name":"rectilinear","configuration":{"kind":"inline","chunk_shapes":` + chunkShapes + `}},` +
		`"chunk_key_encoding":{"name":"default"},"fill_value":0,"codecs":[{"name":"bytes"}]}`
}

const (
	e30 = "1073741824"          // 2^30
	e40 = "1099511627776"       // 2^40
	e60 = "1152921504606846976" // 2^60
	e62 = "4611686018427387904" // 2^62
)

var metadataBombs = []struct {
	name, doc, query string
	status           int
	says             string // in the answer, after "array /NAME: invalid array metadata: "
}{
	// the reproduction of the issue: the estimate's 2 x 2^62-byte inner chunks went negative
	{"semaphore", sharded("["+e40+","+e40+"]", "["+e30+","+e30+"]", "["+e30+","+e30+"]"), "slice=0:2,0:2&format=json",
		422, "shape [" + e40 + " " + e40 + "]: its elements of float32 take more than 8 EiB"},
	// 2^60 inner chunks: the index's size wrapped to 0, the read was admitted and grew without bound
	{"index", sharded("["+e30+","+e30+"]", "["+e30+","+e30+"]", "[1,1]"), "slice=0:2&format=json",
		422, "codecs[0] (sharding_indexed) chunk_shape [1 1]: a shard holds 1152921504606846976 inner chunks (" + e30 + " x " + e30 + "), more than the limit of 4194304 (max_shard_chunks)"},
	// two 4 EiB inner chunks in flight: the estimate wrapped to 32 bytes and was admitted
	{"wrapped", sharded("["+e40+",1048576]", "["+e30+","+e30+"]", "["+e30+","+e30+"]"), "slice=1073741823:1073741825&format=json",
		422, "codecs[0] (sharding_indexed) chunk_shape [" + e30 + " " + e30 + "]: a chunk decoded whole would hold 4EiB, more than the limit of 1GiB (max_chunk_bytes)"},
	// integer divide by zero in slab planning
	{"divide", plain("[2,"+e62+"]", "[1,1]", "float32"), "slice=0:2&format=json",
		422, "shape [2 " + e62 + "]: its elements of float32 take more than 8 EiB"},
	// a slice bounds panic in the read-ahead goroutine: the process died
	{"killed", plain("["+e62+","+e62+"]", "[1,1]", "uint8"), "slice=0:2&format=npy",
		422, "shape [" + e62 + " " + e62 + "]: its elements of uint8 take more than 8 EiB"},
	// a run of 2^60 chunk edges: listing them would take 8 EiB
	{"edges", rectilinear("[10]", "[[[1,"+e60+"]]]"), "slice=0:2&format=json",
		422, "chunk_grid.chunk_shapes[0]: " + e60 + " chunk edges, more than the limit of 1048576 (max_chunk_edges)"},
	// edges whose sum wraps: 2^62 x 4 + 10
	{"edgesum", rectilinear("[10]", "[[["+e62+",4],10]]"), "slice=0:2&format=json",
		422, "chunk_grid.chunk_shapes[0]: the edges add up beyond 64 bits"},
	// makeslice: len out of range, drawing a picture
	{"picture", plain("["+e40+","+e40+"]", "["+e30+","+e30+"]", "float32"), "format=png",
		422, "shape [" + e40 + " " + e40 + "]: its elements of float32 take more than 8 EiB"},
}

func TestMetadataBombs(t *testing.T) {
	for _, b := range metadataBombs {
		t.Run(b.name, func(t *testing.T) {
			s := startServer(t, writableConfig(t))
			guard := watchMemory(t, s, metadataRSS)
			putKey(t, s.url+"/d/scratch/"+b.name+"/zarr.json", b.doc)
			before := storeCalls(t, s.url)
			status, body, err := getBounded(s.url + "/d/scratch/" + b.name + "?" + b.query)
			peak, killed := stopGuard(t, s, guard)
			if killed {
				t.Fatalf("the gateway's RSS reached %d MiB, over %d MiB: killed (answer: %d %q, %v)", peak>>20, metadataRSS>>20, status, body, err)
			}
			after := storeCalls(t, s.url)
			t.Logf("%d %s; store calls %v; peak RSS %d MiB", status, strings.TrimSpace(body), diffCalls(before, after), peak>>20)
			if err != nil {
				t.Fatalf("GET ?%s: %v", b.query, err)
			}
			if want := "array /" + b.name + ": invalid array metadata: " + b.says; status != b.status || !strings.Contains(body, want) {
				t.Errorf("GET ?%s: %d %q, want %d saying %q", b.query, status, body, b.status, want)
			}
			// from the metadata alone: one read of the zarr.json at most
			if d := diffCalls(before, after); d["get"] > 1 || len(d) > 1 || (len(d) == 1 && d["get"] == 0) {
				t.Errorf("the refusal cost store calls beyond the metadata: %v", d)
			}
			if peak > metadataRSS {
				t.Errorf("peak RSS %d MiB, over %d MiB", peak>>20, metadataRSS>>20)
			}
			if status, body, err := getBounded(s.url + "/d/scratch/" + b.name + "/zarr.json"); err != nil || status != 200 {
				t.Errorf("the gateway no longer answers: %d %q %v", status, body, err)
			}
		})
	}
}

// A long thin picture of valid metadata (2^62 x 1, chunks of 2^20 x 1):
// the downsampling factor was searched upwards one at a time from the
// square root of the pixels, 2^38 steps for this one; it is found by
// bisection, and the picture is drawn from the few chunks it needs.
func TestLongThinPicture(t *testing.T) {
	s := startServer(t, writableConfig(t))
	guard := watchMemory(t, s, metadataRSS)
	putKey(t, s.url+"/d/scratch/thin/zarr.json", plain("["+e62+",1]", "[1048576,1]", "uint8"))
	before := storeCalls(t, s.url)
	status, body, err := getBounded(s.url + "/d/scratch/thin?format=png&max_pixels=1000")
	peak, killed := stopGuard(t, s, guard)
	after := storeCalls(t, s.url)
	if killed {
		t.Fatalf("the gateway's RSS reached %d MiB: killed", peak>>20)
	}
	if err != nil || status != 200 || !strings.HasPrefix(body, "\x89PNG") {
		t.Fatalf("a picture of 2^62 x 1: %d %.200q %v, want a PNG", status, body, err)
	}
	// a picture of at most 1000 pixels reads at most a chunk a pixel
	if d := diffCalls(before, after); d["get"]+d["get_into"]+d["stat"] > 2*1000+1 {
		t.Errorf("the picture cost %v store calls", d)
	}
	t.Logf("peak RSS %d MiB", peak>>20)
}

// A selection of 2^62 elements of valid metadata (chunks of 1 KiB) streams
// in bounded memory: the slab plan listed the 2^52 chunks along it first
// (and the estimate's 2 x 2^62 wrapped negative: semaphore: n < 0).
func TestHugeSelectionStreams(t *testing.T) {
	s := startServer(t, writableConfig(t))
	guard := watchMemory(t, s, metadataRSS)
	putKey(t, s.url+"/d/scratch/long/zarr.json", plain("["+e62+"]", "[1024]", "uint8"))
	client := &http.Client{Timeout: 5 * time.Minute} // against a hang only
	resp, err := client.Get(s.url + "/d/scratch/long?format=raw")
	if err != nil {
		stopGuard(t, s, guard)
		t.Fatalf("GET the whole array: %v", err)
	}
	const want = 96 << 20
	n, err := io.CopyN(io.Discard, resp.Body, want)
	resp.Body.Close()
	peak, killed := stopGuard(t, s, guard)
	if killed {
		t.Fatalf("the gateway's RSS reached %d MiB streaming: killed", peak>>20)
	}
	if resp.StatusCode != 200 || err != nil || n != want {
		t.Fatalf("streaming 2^62 bytes: %d, read %d bytes of the first %d: %v", resp.StatusCode, n, want, err)
	}
	if cl := resp.Header.Get("Content-Length"); cl != e62 {
		t.Errorf("Content-Length %q, want %s", cl, e62)
	}
	t.Logf("read %d MiB of 2^62 bytes; peak RSS %d MiB", n>>20, peak>>20)
	if status, _, err := getBounded(s.url + "/d/scratch/long/zarr.json"); err != nil || status != 200 {
		t.Errorf("the gateway no longer answers after the client left: %d %v", status, err)
	}
}

// stopGuard is guard.stop for a gateway that may have died by itself (a
// panic outside net/http's recovery ends the process): that fails the
// test with the gateway's log, where guard.stop would find no peak RSS.
func stopGuard(t *testing.T, s *server, g *guard) (int64, bool) {
	t.Helper()
	select {
	case <-g.done: // the guard ended: it killed the gateway
		return g.stop()
	default:
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil || !strings.Contains(string(b), "VmHWM:") {
		t.Fatalf("the gateway died; its log:\n%s", s.log)
	}
	return g.stop()
}

// writableConfig serves a dataset "scratch" anyone may write, in a
// directory of the test's.
func writableConfig(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	config := filepath.Join(dir, "zarrgw.hcl")
	src := fmt.Sprintf(`store "fs" "local" {
  root        = %q
  create_root = true
}
dataset "scratch" {
  store = store.fs.local
  access {
    read  = ["*"]
    write = ["*"]
  }
}
server {
  listen = "127.0.0.1:0"
  %s
}
`, filepath.Join(dir, "data"), budgetLines)
	if err := os.WriteFile(config, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return config
}

// putKey stores a value through the key API, anonymously.
func putKey(t *testing.T, url, value string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPut, url, strings.NewReader(value))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("PUT %s: %d %s", url, resp.StatusCode, body)
	}
}

// getBounded GETs url and reads at most 1 MiB of the answer, with a
// timeout generous enough that only a hang fails.
func getBounded(url string) (int, string, error) {
	client := &http.Client{Timeout: 2 * time.Minute}
	resp, err := client.Get(url)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(body), err
}

// storeCalls reads the gateway's count of store calls by operation, over
// every store, from /metrics (open to clients on this machine).
func storeCalls(t *testing.T, base string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "zarrgw_store_call_duration_seconds_count{")
		if !ok {
			continue
		}
		labels, value, _ := strings.Cut(rest, "} ")
		for l := range strings.SplitSeq(labels, ",") {
			if op, ok := strings.CutPrefix(l, `op="`); ok {
				n, err := strconv.ParseFloat(value, 64)
				if err != nil {
					t.Fatalf("/metrics: %q", sc.Text())
				}
				out[strings.TrimSuffix(op, `"`)] += n
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("/metrics has no store call counts (%d)", resp.StatusCode)
	}
	return out
}

// diffCalls is what changed between two counts, by operation.
func diffCalls(before, after map[string]float64) map[string]float64 {
	d := map[string]float64{}
	for op, n := range after {
		if n != before[op] {
			d[op] = n - before[op]
		}
	}
	return d
}
