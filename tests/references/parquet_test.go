package references

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
	"github.com/zarrgw/zarrgw/plugins/stores/references"
	"github.com/zarrgw/zarrgw/tests/support/binary"
)

// toParquet converts the JSON reference set at src to the Parquet form in
// the directory dst, recordSize chunks a record file.
func toParquet(t *testing.T, src, dst string, recordSize int) {
	t.Helper()
	doc, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	set, err := references.ParseJSON(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := fsstore.New(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if err := references.WriteParquet(context.Background(), set, out, recordSize); err != nil {
		t.Fatal(err)
	}
}

// zarrgw cat reads every variable of the joined files through the Parquet
// form of joined-v1.json (3 chunks a record file), named by its directory,
// exactly as netCDF4-python reads it.
func TestParquetCatReadsAsNetCDF4(t *testing.T) {
	dir, want := world(t)
	toParquet(t, filepath.Join(dir, "refs", "joined-v1.json"), filepath.Join(dir, "refs", "joined.parq"), 3)
	write(t, filepath.Join(dir, "parquet.hcl"), `store "references" "nc" {
  references    = "./refs/joined.parq"
  allow_targets = ["./nc/"]
  max_gap       = 4096
}

dataset "nc" {
  store     = store.references.nc
  read_only = true
}
`)
	for name, w := range want {
		got := hex.EncodeToString(run(t, dir, zarrgwBin, "cat", "-c", "parquet.hcl", "nc", "--path", name, "--format", "raw"))
		if got != w.Hex {
			t.Errorf("%s: %.40s…, netCDF4-python reads %.40s…", name, got, w.Hex)
		}
	}
}

// A million-chunk array x (shape [1000000], chunks [1], uint8), chunk i
// the byte i%256 of raw.bin beside the set, in the Parquet form with
// kerchunk's default record size of 100 000: ten record files, written
// here directly with parquet-go (path, offset and size: fsspec reads a
// record file without raw).
const (
	bigChunks     = 1_000_000
	bigRecordSize = 100_000
	bigZarray     = `{"zarr_format":2,"shape":[1000000],"chunks":[1],"dtype":"|u1","compressor":null,"fill_value":0,"order":"C","filters":null}`
)

type bigRow struct {
	Path   *string `parquet:"path,optional,dict"`
	Offset int64   `parquet:"offset"`
	Size   int64   `parquet:"size"`
}

func writeBigParquet(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "big.parq", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	meta, _ := json.Marshal(map[string]any{
		"metadata": map[string]json.RawMessage{
			".zgroup":   json.RawMessage(`{"zarr_format":2}`),
			"x/.zarray": json.RawMessage(bigZarray),
			"x/.zattrs": json.RawMessage(`{}`),
		},
		"record_size": bigRecordSize,
	})
	write(t, filepath.Join(dir, "big.parq", ".zmetadata"), string(meta))
	path := "raw.bin" // relative: beside the set
	rows := make([]bigRow, bigRecordSize)
	for rec := range bigChunks / bigRecordSize {
		for j := range rows {
			rows[j] = bigRow{Path: &path, Offset: int64((rec*bigRecordSize + j) % 256), Size: 1}
		}
		var buf bytes.Buffer
		if err := parquet.Write(&buf, rows, parquet.Compression(&parquet.Zstd)); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, "big.parq", "x", fmt.Sprintf("refs.%d.parq", rec)), buf.String())
	}
	raw := make([]byte, 256)
	for i := range raw {
		raw[i] = byte(i)
	}
	write(t, filepath.Join(dir, "raw.bin"), string(raw))
}

// writeBigJSON writes the same set in the JSON form (version 0), for
// comparison.
func writeBigJSON(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "big.json"))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, `{".zgroup": "{\"zarr_format\":2}", "x/.zattrs": "{}", "x/.zarray": %q`, bigZarray)
	for i := range bigChunks {
		fmt.Fprintf(w, `, "x/%d": ["raw.bin", %d, 1]`, i, i%256)
	}
	w.WriteString("}")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// memory returns fields of /proc/PID/status in bytes (VmRSS, VmHWM).
func memory(t *testing.T, pid int, field string) int64 {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("%s: %q", field, line)
			}
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

func get(t *testing.T, url string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %.200s (%v)", url, resp.StatusCode, body, err)
	}
	return body
}

const mib = 1 << 20

// serveBig serves the reference set LOCATION of dir and returns the
// gateway, its pid and its resident memory after one metadata request.
func serveBig(t *testing.T, dir, name, location string) (*binary.Gateway, int, int64) {
	t.Helper()
	hcl := filepath.Join(dir, name+".hcl")
	write(t, hcl, `store "references" "big" {
  references = "`+location+`"
}

dataset "big" {
  store     = store.references.big
  read_only = true
}
`)
	gw := binary.Serve(t, zarrgwBin, hcl)
	pid := gw.PID()
	if z := get(t, gw.URL+"/d/big/x/.zarray"); !bytes.Contains(z, []byte(`"shape":[1000000]`)) {
		t.Fatalf("x/.zarray: %s", z)
	}
	return gw, pid, memory(t, pid, "VmRSS")
}

// readRandomChunks reads n chunks of x at random over the key API and
// checks their byte.
func readRandomChunks(t *testing.T, gw *binary.Gateway, n int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	for range n {
		i := rng.IntN(bigChunks)
		if got := get(t, fmt.Sprintf("%s/d/big/x/%d", gw.URL, i)); len(got) != 1 || got[0] != byte(i%256) {
			t.Fatalf("x/%d: %v, want [%d]", i, got, i%256)
		}
	}
}

// The gateway serves a reference set of a million chunks in the Parquet
// form in bounded memory: reading chunks at random over the key API (every
// record file loaded, most more than once) grows its resident memory by
// less than 64 MiB over what it holds after startup and a metadata
// request, and its peak stays under 192 MiB. With ZARRGW_COMPARE_JSON=1 it logs what the same set costs in
// the JSON form (parsed whole at startup), not asserted.
func TestParquetMillionChunksServeInBoundedMemory(t *testing.T) {
	dir := t.TempDir()
	writeBigParquet(t, dir)
	gw, pid, before := serveBig(t, dir, "parquet", "./big.parq")
	readRandomChunks(t, gw, 60)
	after, peak := memory(t, pid, "VmRSS"), memory(t, pid, "VmHWM")
	t.Logf("Parquet form, 1 000 000 chunks: VmRSS %.1f MiB after startup and a metadata request, %.1f MiB after 60 random chunk reads (growth %.1f MiB), peak VmHWM %.1f MiB",
		float64(before)/mib, float64(after)/mib, float64(after-before)/mib, float64(peak)/mib)
	if after-before >= 64*mib {
		t.Errorf("reading 60 chunks grew the gateway's resident memory by %.1f MiB (%.1f -> %.1f MiB), want under 64 MiB",
			float64(after-before)/mib, float64(before)/mib, float64(after)/mib)
	}
	// A set parsed whole at startup (as the JSON form is: 746 MiB for this
	// one) grows nothing after startup; its peak shows it.
	if peak >= 192*mib {
		t.Errorf("the gateway's peak resident memory was %.1f MiB, want under 192 MiB: is the set read whole?", float64(peak)/mib)
	}
	gw.Stop(t)

	if os.Getenv("ZARRGW_COMPARE_JSON") != "1" {
		return
	}
	writeBigJSON(t, dir)
	info, _ := os.Stat(filepath.Join(dir, "big.json"))
	gw, pid, before = serveBig(t, dir, "json", "./big.json")
	readRandomChunks(t, gw, 60)
	after, peak = memory(t, pid, "VmRSS"), memory(t, pid, "VmHWM")
	t.Logf("JSON form (%.1f MiB file), 1 000 000 chunks: VmRSS %.1f MiB after startup and a metadata request, %.1f MiB after 60 random chunk reads, peak VmHWM %.1f MiB",
		float64(info.Size())/mib, float64(before)/mib, float64(after)/mib, float64(peak)/mib)
}
