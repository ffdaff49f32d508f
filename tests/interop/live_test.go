package interop

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
	zbinary "github.com/zarrgw/zarrgw/tests/support/binary"
	"github.com/zarrgw/zarrgw/tests/support/pyenv"
)

// liveArray is an array of TestLiveClients: where it is, its type and
// shape, and the formula of its values. zarrgw writes those with codecs;
// zarr-python writes those with a compressor (py/live.py); a client of the
// gateway writes those with a client.
type liveArray struct {
	Path       string            `json:"path"`
	ZarrFormat int               `json:"zarr_format"`
	DType      string            `json:"dtype"`
	Shape      []int             `json:"shape"`
	Chunks     []int             `json:"chunks,omitempty"`
	Shards     []int             `json:"shards,omitempty"`
	Compressor string            `json:"compressor,omitempty"` // zarr-python's: zstd, gzip, blosc, zlib, none
	Dims       []string          `json:"dims,omitempty"`
	Name       string            `json:"name,omitempty"` // an xarray variable's
	Formula    formula           `json:"formula"`
	Skip       map[string]string `json:"skip,omitempty"`     // client -> why it cannot read the array
	Client     string            `json:"client,omitempty"`   // the writer of a write
	Existing   bool              `json:"existing,omitempty"` // the writer writes into an array zarrgw created
	Refused    string            `json:"refused,omitempty"`  // the client's own error for what it cannot write
	codecs     []meta.Extension
}

// The clients of py/live.py that read every array.
var liveReaders = []string{"zarr3-fsspec-key", "zarr3-obstore-key", "zarr3-obstore-s3",
	"tensorstore-http-key", "tensorstore-s3", "zarrs-fsspec-key", "zarrs-obstore-key", "zarrs-obstore-s3"}

// Client limitations, by array feature: the clients skip what they
// cannot read, and the summary counts it.
var (
	noStrings = map[string]string{
		"tensorstore-http-key": "tensorstore's zarr3 driver has no variable-length string data type",
		"tensorstore-s3":       "tensorstore's zarr3 driver has no variable-length string data type",
		"zarrs-fsspec-key":     "zarrs-python leaves variable-length strings to zarr-python's own pipeline",
		"zarrs-obstore-key":    "zarrs-python leaves variable-length strings to zarr-python's own pipeline",
		"zarrs-obstore-s3":     "zarrs-python leaves variable-length strings to zarr-python's own pipeline",
	}
	bigEndian = map[string]string{
		"zarrs-fsspec-key":  "zarrs-python refuses a non-native byte order",
		"zarrs-obstore-key": "zarrs-python refuses a non-native byte order",
		"zarrs-obstore-s3":  "zarrs-python refuses a non-native byte order",
	}
)

func liveCodecs(dt dtype.DataType, cs ...meta.Extension) []meta.Extension {
	return append([]meta.Extension{bytesCodec(dt, "little")}, cs...)
}

// shardCodec is sharding_indexed over inner chunks encoded by codecs (a
// JSON list), its index checked by crc32c.
func shardCodec(inner []int, index, codecs string) meta.Extension {
	return ext("sharding_indexed", fmt.Sprintf(`{"chunk_shape":%s,"codecs":%s,"index_location":%q,
		"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}]}`, jsonInts(inner), codecs, index))
}

func jsonInts(v []int) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// zarrgwLive are the arrays zarrgw writes before the gateway starts: v3
// (compressed, sharded with the index at either end, transposed,
// big-endian, bool, strings) and v2, every one with edge chunks.
func zarrgwLive() []liveArray {
	i4, f8, u2, f4, i8, b, u1, str := dtype.Named("int32"), dtype.Named("float64"), dtype.Named("uint16"),
		dtype.Named("float32"), dtype.Named("int64"), dtype.Named("bool"), dtype.Named("uint8"), dtype.Named("string")
	le := `{"endian":"little"}`
	v3 := func(path string, dt dtype.DataType, shape, chunks []int, codecs []meta.Extension) liveArray {
		return liveArray{Path: "zarrgw3/" + path, ZarrFormat: 3, DType: dt.Name, Shape: shape, Chunks: chunks, Formula: formulaFor(dt), codecs: codecs}
	}
	v2 := func(path string, dt dtype.DataType, shape, chunks []int, codecs []meta.Extension) liveArray {
		a := v3(path, dt, shape, chunks, codecs)
		a.Path, a.ZarrFormat = "zarrgw2/"+path, 2
		return a
	}
	s := v3("str", str, []int{9}, []int{4}, []meta.Extension{ext("vlen-utf8", "")})
	s.Skip = noStrings
	big := v2("u2.big.raw", u2, []int{9, 9}, []int{4, 4}, []meta.Extension{bytesCodec(u2, "big")})
	big.Skip = bigEndian
	return []liveArray{
		v3("i4.zstd", i4, []int{23, 17}, []int{5, 6}, liveCodecs(i4, ext("zstd", `{"level":3,"checksum":false}`))),
		v3("f8.shard.end", f8, []int{30, 20}, []int{10, 12}, []meta.Extension{shardCodec([]int{5, 4}, "end", `[{"name":"bytes","configuration":`+le+`},{"name":"gzip","configuration":{"level":1}}]`)}),
		v3("u2.shard.start", u2, []int{17, 9}, []int{6, 8}, []meta.Extension{shardCodec([]int{3, 4}, "start", `[{"name":"bytes","configuration":`+le+`},{"name":"zstd","configuration":{"level":1,"checksum":false}}]`)}),
		v3("f4.transpose.blosc", f4, []int{6, 7, 8}, []int{3, 4, 5}, []meta.Extension{ext("transpose", `{"order":[2,0,1]}`), ext("bytes", le),
			ext("blosc", `{"cname":"lz4","clevel":5,"shuffle":"shuffle","typesize":4,"blocksize":0}`)}),
		v3("i8.big.crc32c", i8, []int{11, 3}, []int{4, 2}, []meta.Extension{bytesCodec(i8, "big"), ext("crc32c", "")}),
		v3("bool", b, []int{19}, []int{4}, []meta.Extension{bytesCodec(b, "little")}),
		v3("u1.gzip", u1, []int{100}, []int{33}, liveCodecs(u1, ext("gzip", `{"level":5}`))),
		s,
		v2("i4.zlib", i4, []int{40}, []int{7}, liveCodecs(i4, ext("numcodecs.zlib", `{"level":1}`))),
		v2("f8.zstd", f8, []int{13, 11}, []int{4, 4}, liveCodecs(f8, ext("numcodecs.zstd", `{"level":3}`))),
		big,
	}
}

// pythonLive are the arrays zarr-python 3 writes into the served
// directory (py/live.py, before any client reads).
func pythonLive() []liveArray {
	a := func(path string, format int, dt string, shape, chunks, shards []int, comp string) liveArray {
		return liveArray{Path: path, ZarrFormat: format, DType: dt, Shape: shape, Chunks: chunks, Shards: shards,
			Compressor: comp, Formula: formulaFor(dtype.Named(dt))}
	}
	s := a("py3/str", 3, "string", []int{10}, []int{4}, nil, "zstd")
	s.Skip = noStrings
	return []liveArray{
		a("py3/i2.shard", 3, "int16", []int{25, 13}, []int{4, 4}, []int{8, 8}, "zstd"),
		a("py3/f4.blosc", 3, "float32", []int{31}, []int{8}, nil, "blosc"),
		a("py3/u4.gzip", 3, "uint32", []int{7, 9}, []int{3, 4}, nil, "gzip"),
		s,
		a("py2/i8.zlib", 2, "int64", []int{17, 5}, []int{6, 2}, nil, "zlib"),
		a("py2/f8.none", 2, "float64", []int{11}, []int{4}, nil, "none"),
	}
}

// liveGroup is a group xarray opens: data variables and coordinates (the
// arrays named after their one dimension), with dimension names.
type liveGroup struct {
	Path     string         `json:"path"`
	Attrs    map[string]any `json:"attrs"`
	DataVars []liveArray    `json:"data_vars"`
	Coords   []liveArray    `json:"coords"`
}

func xarrayGroup(path, title string) liveGroup {
	v := func(name string, dt string, dims []string, shape, chunks []int) liveArray {
		return liveArray{Path: path + "/" + name, Name: name, ZarrFormat: 3, DType: dt, Shape: shape, Chunks: chunks, Dims: dims,
			Formula: formulaFor(dtype.Named(dt)),
			codecs:  liveCodecs(dtype.Named(dt), ext("zstd", `{"level":1,"checksum":false}`))}
	}
	return liveGroup{Path: path, Attrs: map[string]any{"title": title},
		DataVars: []liveArray{v("t2m", "float32", []string{"time", "lat", "lon"}, []int{4, 5, 6}, []int{2, 3, 4}),
			v("count", "int16", []string{"lat", "lon"}, []int{5, 6}, []int{5, 4})},
		Coords: []liveArray{v("time", "int64", []string{"time"}, []int{4}, []int{4}),
			v("lat", "float64", []string{"lat"}, []int{5}, []int{3}), v("lon", "float64", []string{"lon"}, []int{6}, []int{6})}}
}

// liveWrites are the arrays the clients write through the gateway. The
// obstore HTTP client writes into arrays zarrgw created: object_store's
// HttpStore has no create-only put, which zarr-python's create_array
// uses for the groups above a new array.
func liveWrites() []liveArray {
	w := func(client, name string, format int, dt string, shape, chunks, shards []int, comp string) liveArray {
		return liveArray{Client: client, Path: "written/" + client + "/" + name, ZarrFormat: format, DType: dt, Shape: shape,
			Chunks: chunks, Shards: shards, Compressor: comp, Formula: formulaFor(dtype.Named(dt))}
	}
	var out []liveArray
	for _, c := range []string{"zarr3-fsspec-key", "zarr3-obstore-key", "zarr3-obstore-s3", "tensorstore-s3"} {
		shards := []int{6, 8}
		if c == "zarr3-obstore-key" {
			shards = nil
		}
		out = append(out, w(c, "i4", 3, "int32", []int{13, 11}, []int{3, 4}, shards, "zstd"),
			w(c, "f8.v2", 2, "float64", []int{9, 7}, []int{4, 4}, nil, "zlib"))
	}
	out = append(out, w("zarrs-obstore-s3", "i4", 3, "int32", []int{13, 11}, []int{3, 4}, []int{6, 8}, "zstd"))
	// What a client cannot write, with the client's own words for it: the
	// test fails when it can, so that the limitation is tested instead.
	create := w("zarr3-obstore-key", "created", 3, "int32", []int{4}, []int{2}, nil, "zstd")
	create.Refused = "not yet implemented by HttpStore" // object_store's PutMode::Create
	tsHTTP := w("tensorstore-http-key", "i4", 3, "int32", []int{4}, []int{2}, nil, "zstd")
	tsHTTP.Refused = "KeyValueStore does not support writing"
	out = append(out, create, tsHTTP)
	for i := range out {
		if out[i].Client == "zarr3-obstore-key" && out[i].Refused == "" {
			out[i].Existing = true
			dt := dtype.Named(out[i].DType)
			if out[i].ZarrFormat == 3 {
				out[i].codecs = liveCodecs(dt, ext("zstd", `{"level":3,"checksum":false}`))
			} else {
				out[i].codecs = liveCodecs(dt, ext("numcodecs.zlib", `{"level":3}`))
			}
		}
	}
	return out
}

// liveResult is one client's read of one array, or xarray's of a group.
type liveResult struct {
	Path   string `json:"path"`
	Name   string `json:"name"`
	Status string `json:"status"` // exact, differs, error
	Detail string `json:"detail"`
}

const liveToken = "live-clients-token"

// TestLiveClients serves, with the real `zarrgw serve`, arrays zarrgw
// wrote and arrays zarr-python 3 wrote (v2 and v3; several types; zstd,
// gzip, blosc, zlib, sharding with the index at the start and at the end,
// transpose, crc32c; edge chunks), a group xarray reads with consolidated
// metadata the gateway builds and without, and one zarr-python consolidated
// itself. Then, in one Python process (py/live.py): zarr-python 3 over
// fsspec's HTTP filesystem and obstore's HTTPStore (key API) and obstore's
// S3Store (S3 API), tensorstore's http and s3 kvstores, and the zarrs codec
// pipeline (strict: no fall back) over fsspec and obstore S3 read every
// array element by element against the formula; the writers write arrays
// through the gateway, which zarrgw's array API reads back against the
// formula; xarray opens the groups over the key API (fsspec) and S3
// (s3fs). Every reader also reads a sample of the interoperability
// matrix zarr-python 3 and tensorstore wrote into the served directory
// (live_matrix_test.go). A chunk corrupted on disk after the gateway
// started must not read as the formula's values for any client.
func TestLiveClients(t *testing.T) {
	py := pyenv.Python(t, "zarr", "zarrs", "tensorstore", "obstore", "xarray", "s3fs", "numcodecs")
	ctx := context.Background()
	dir := t.TempDir()
	s := openDir(t, dir)

	arrays := zarrgwLive()
	corrupt := liveArray{Path: "zarrgw3/corrupt/i4", ZarrFormat: 3, DType: "int32", Shape: []int{10, 10}, Chunks: []int{5, 5},
		Formula: formulaFor(dtype.Named("int32")), codecs: []meta.Extension{ext("bytes", `{"endian":"little"}`)}}
	xrZarrgw, xrCorrupt, xrPython := xarrayGroup("zarrgw3/xr", "written by zarrgw"), xarrayGroup("zarrgw3/xr-corrupt", "written by zarrgw"),
		xarrayGroup("py3/xr", "written by xarray")
	// uncompressed, so that the corrupted chunk decodes to other values
	// (a compressed one fails to decode, which would not show that the
	// comparison of values can fail)
	xrCorrupt.DataVars[0].codecs = liveCodecs(dtype.Named(xrCorrupt.DataVars[0].DType))
	writes := liveWrites()
	for _, g := range []liveGroup{xrZarrgw, xrCorrupt} {
		attrs, _ := json.Marshal(g.Attrs)
		if _, err := hierarchy.CreateGroup(ctx, s, g.Path, meta.V3, attrs); err != nil {
			t.Fatal(err)
		}
		arrays = append(append(arrays, g.DataVars...), g.Coords...)
	}
	for _, a := range append(append(arrays, corrupt), writes...) {
		if a.codecs != nil {
			writeLiveArray(t, ctx, s, a, !a.Existing)
		}
	}
	reads := append(arrays[:len(arrays):len(arrays)], pythonLive()...)
	// the arrays of xr-corrupt are read by xarray only
	reads = dropPrefix(reads, xrCorrupt.Path+"/")

	sample := writeLiveMatrix(t, py, dir)
	matrixWrites := liveMatrixWrites(t, dir, sample)
	zarrgw := zarrgwBinary
	g := serveLive(t, zarrgw, dir, xrZarrgw.Path)
	corruptSample := corruptMatrixChunk(t, dir, sample)

	// corrupted after the gateway started serving: flip every byte of a
	// stored chunk
	for _, key := range []string{corrupt.Path + "/c/0/0", xrCorrupt.Path + "/t2m/c/0/0/0"} {
		corruptFile(t, filepath.Join(dir, filepath.FromSlash(key)))
	}

	key := g.URL + "/d/live/" // as the README gives a dataset's URL, with its trailing slash
	xcases := []map[string]any{}
	for _, c := range []struct {
		name, path, bucket string
		group              liveGroup
		consolidated       bool
	}{
		{"zarrgw, consolidated by the gateway", "", "cons", xrZarrgw, true},
		{"zarrgw, not consolidated", xrZarrgw.Path, "live", xrZarrgw, false},
		{"xarray, consolidated by zarr-python", xrPython.Path, "live", xrPython, true},
		{"xarray, not consolidated", xrPython.Path, "live", xrPython, false},
		{"corrupt", xrCorrupt.Path, "live", xrCorrupt, false},
	} {
		for _, via := range []string{"xarray-fsspec-key", "xarray-s3fs"} {
			url := g.URL + "/d/" + c.bucket
			if via == "xarray-s3fs" {
				url = "s3://" + c.bucket
			}
			if c.path != "" {
				url += "/" + c.path
			}
			xcases = append(xcases, map[string]any{"name": via + ": " + c.name, "url": url, "consolidated": c.consolidated,
				"attrs": c.group.Attrs, "data_vars": c.group.DataVars, "coords": c.group.Coords})
		}
	}
	manifest := map[string]any{
		"key_url": key, "token": liveToken, "local_root": dir,
		"s3":        map[string]string{"endpoint": g.S3URL, "region": liveRegion, "bucket": "live", "key_id": liveKeyID, "secret": liveSecret},
		"py_writes": pythonLive(), "py_xarray": []liveGroup{xrPython},
		"reads": reads, "corrupt": []liveArray{corrupt}, "matrix": sample, "matrix_writes": matrixWrites, "writes": writes, "xarray": xcases,
	}
	var out struct {
		Versions map[string]string       `json:"versions"`
		Reads    map[string][]liveResult `json:"reads"`
		Matrix   map[string][]liveResult `json:"matrix"`
		Writes   []struct {
			Client, Path, Error string
		} `json:"writes"`
		MatrixWrites []struct {
			Client, Path, Error string
		} `json:"matrix_writes"`
		Xarray []liveResult `json:"xarray"`
	}
	start := time.Now()
	runScript(t, py, "py/live.py", manifest, &out)
	t.Logf("py/live.py took %v; versions %v", time.Since(start).Round(time.Millisecond), out.Versions)

	for _, client := range liveReaders {
		checkLiveReads(t, client, reads, corrupt.Path, out.Reads[client])
		checkLiveMatrix(t, client, sample, corruptSample, out.Matrix[client])
	}
	checkLiveWrites(t, g.URL+"/d/live", writes, out.Writes)
	checkLiveMatrixWrites(t, dir, matrixWrites, out.MatrixWrites)
	checkLiveXarray(t, xcases, out.Xarray)
	t.Run("README", func(t *testing.T) { checkLiveREADME(t, py, zarrgw) })
}

// readmeClients are the lines the README's py snippet prints of the
// sample's temperature[0, :2]: one a client.
var readmeClients = []string{"fsspec", "obstore", "obstore-s3", "zarrs", "tensorstore", "tensorstore-s3", "xarray", "xarray-s3"}

// checkLiveREADME runs the README's zarr-python 3 snippet (the ```py
// block) against `make run`'s configuration on free ports: every client
// reads the sample's first two values (12.5 and 12.75, as mksample
// writes them) and the write into scratch reads back (16 sevens).
func checkLiveREADME(t *testing.T, py, zarrgw string) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```py\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README has no py block")
	}
	dir := t.TempDir()
	for _, args := range [][]string{{filepath.Join(dir, "data", "sample.zarr")}, {"-format", "2", filepath.Join(dir, "data", "sample_v2.zarr")}} {
		if out, err := exec.Command("go", append([]string{"run", "../../examples/mksample"}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("mksample: %v\n%s", err, out)
		}
	}
	cfg, err := os.ReadFile("../../examples/gateway/zarrgw.hcl")
	if err != nil {
		t.Fatal(err)
	}
	config := strings.NewReplacer("${path.config}", dir, "127.0.0.1:8080", "127.0.0.1:0", "127.0.0.1:9000", "127.0.0.1:0").Replace(string(cfg))
	file := filepath.Join(dir, "zarrgw.hcl")
	if err := os.WriteFile(file, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	g := zbinary.ServeS3(t, zarrgw, file)
	script := strings.NewReplacer("http://127.0.0.1:8080", g.URL, "http://127.0.0.1:9000", g.S3URL).Replace(string(m[1]))
	ctx, cancel := context.WithTimeout(context.Background(), scriptTimeout)
	defer cancel()
	out, errOut, code := zbinary.Run(t, exec.CommandContext(ctx, py, "-c", script))
	if code != 0 {
		t.Fatalf("the README's py snippet: exit %d\n%s%s", code, out, errOut)
	}
	lines := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		name, rest, _ := strings.Cut(l, " ")
		lines[name] = rest
	}
	for _, c := range readmeClients {
		if got := lines[c]; got != "[12.5, 12.75]" {
			t.Errorf("the README's py snippet, %s: printed %q, want [12.5, 12.75]", c, got)
		}
	}
	if got := lines["written"]; got != "112" {
		t.Errorf("the README's py snippet: the sevens written to scratch sum to %q, want 112", got)
	}
	fmt.Printf("interop live README: %d clients read the sample, the write reads back\n", len(readmeClients))
}

// checkLiveReads fails on every array client did not read exactly (but
// those it skips, counted apart) and on the corrupt one read exactly.
func checkLiveReads(t *testing.T, client string, reads []liveArray, corrupt string, results []liveResult) {
	t.Helper()
	byPath := map[string]liveResult{}
	for _, r := range results {
		byPath[r.Path] = r
	}
	exact := 0
	skipped := map[string]int{}
	for _, a := range reads {
		if why, ok := a.Skip[client]; ok {
			skipped[why]++
			continue
		}
		switch r, ok := byPath[a.Path]; {
		case !ok:
			t.Errorf("%s: no result for %s (%.500s)", client, a.Path, byPath[""].Detail)
		case r.Status != "exact":
			t.Errorf("%s read %s through the gateway: %s: %s", client, a.Path, r.Status, r.Detail)
		default:
			exact++
		}
	}
	line := fmt.Sprintf("interop live %s: %d exact", client, exact)
	whys := make([]string, 0, len(skipped))
	for why := range skipped {
		whys = append(whys, why)
	}
	sort.Strings(whys)
	for _, why := range whys {
		line += fmt.Sprintf(", %d not read (%s)", skipped[why], why)
	}
	switch r, ok := byPath[corrupt]; {
	case !ok:
		t.Errorf("%s: no result for the corrupt array %s", client, corrupt)
	case r.Status == "exact":
		t.Errorf("%s read the formula's values from %s, whose chunk was corrupted on disk: the comparison cannot fail", client, corrupt)
	default:
		line += fmt.Sprintf("; the corrupted chunk: %s", r.Status)
	}
	fmt.Println(line)
	if exact == 0 {
		t.Errorf("%s read nothing exactly", client)
	}
}

// checkLiveWrites reads every array the clients wrote through the
// gateway's array API and compares it with the formula.
func checkLiveWrites(t *testing.T, base string, writes []liveArray, results []struct{ Client, Path, Error string }) {
	t.Helper()
	refs := make([]liveWriteRef, len(writes))
	for i, w := range writes {
		refs[i] = liveWriteRef{w.Client, w.Path, w.Refused}
	}
	clients, exact, refused := tallyLiveWrites(t, refs, results, func(i int) error { return readBackLive(base, writes[i]) })
	sort.Strings(clients)
	for _, c := range clients {
		fmt.Printf("interop live write %s: %d arrays zarrgw reads back exactly, %d refused by the client as documented\n", c, exact[c], refused[c])
	}
}

// liveWriteRef is a write a client makes: the client's refusal, when
// it cannot.
type liveWriteRef struct{ Client, Path, Refused string }

// tallyLiveWrites checks each write's result (a refusal must be the
// client's documented one) and has readBack(i) read back the ith write
// that succeeded; it fails on every other outcome and counts by client.
func tallyLiveWrites(t *testing.T, writes []liveWriteRef, results []struct{ Client, Path, Error string },
	readBack func(i int) error) (clients []string, exact, refused map[string]int) {
	t.Helper()
	errs := map[string]string{}
	for _, r := range results {
		errs[r.Path] = r.Error
	}
	exact, refused = map[string]int{}, map[string]int{}
	for i, w := range writes {
		if _, seen := exact[w.Client]; !seen {
			clients = append(clients, w.Client)
			exact[w.Client] = 0
		}
		e, ok := errs[w.Path]
		switch {
		case !ok:
			t.Errorf("%s: no result for the write of %s", w.Client, w.Path)
			continue
		case w.Refused != "" && !strings.Contains(e, w.Refused):
			t.Errorf("%s writing %s: want the client's refusal %q, got %q", w.Client, w.Path, w.Refused, e)
			continue
		case w.Refused != "":
			refused[w.Client]++
			continue
		case e != "":
			t.Errorf("%s could not write %s through the gateway: %s", w.Client, w.Path, e)
			continue
		}
		if err := readBack(i); err != nil {
			t.Errorf("zarrgw reads %s written by %s: %v", w.Path, w.Client, err)
			continue
		}
		exact[w.Client]++
	}
	return clients, exact, refused
}

// readBackLive reads the whole array through the array API as JSON.
func readBackLive(base string, w liveArray) error {
	client := http.Client{Timeout: time.Minute} // against a hang, not a measure
	resp, err := client.Get(base + "/" + w.Path + "?format=json")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the array API answered %d: %.300s", resp.StatusCode, body)
	}
	var doc struct {
		ZarrFormat int               `json:"zarr_format"`
		Shape      []int             `json:"shape"`
		Data       []json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return fmt.Errorf("the array API's JSON: %w", err)
	}
	if doc.ZarrFormat != w.ZarrFormat || !sameInts(doc.Shape, w.Shape) {
		return fmt.Errorf("zarr_format %d shape %v, want %d %v", doc.ZarrFormat, doc.Shape, w.ZarrFormat, w.Shape)
	}
	// the array API prints numbers as JSON numbers, compareElements
	// takes them as strings
	for i, raw := range doc.Data {
		if len(raw) > 0 && raw[0] != '"' && raw[0] != 't' && raw[0] != 'f' {
			doc.Data[i] = json.RawMessage(strconv.Quote(string(raw)))
		}
	}
	return compareElements(dtype.Named(w.DType), numElements(w.Shape), w.Formula.value, doc.Data)
}

// checkLiveXarray fails on every group xarray did not open exactly, and
// on a corrupt one it did.
func checkLiveXarray(t *testing.T, cases []map[string]any, results []liveResult) {
	t.Helper()
	if len(results) != len(cases) {
		t.Fatalf("%d xarray results for %d cases", len(results), len(cases))
	}
	exact := map[string]int{}
	for i, r := range results {
		name := cases[i]["name"].(string)
		via, what, _ := strings.Cut(name, ": ")
		switch {
		case what == "corrupt" && r.Status == "exact":
			t.Errorf("%s: a corrupted chunk read as the formula's values", name)
		case what == "corrupt":
			fmt.Printf("interop live %s: the corrupted chunk: %s\n", via, r.Status)
		case r.Status != "exact":
			t.Errorf("%s (%s): %s: %s", name, cases[i]["url"], r.Status, r.Detail)
		default:
			exact[via]++
		}
	}
	for _, via := range []string{"xarray-fsspec-key", "xarray-s3fs"} {
		fmt.Printf("interop live %s: %d datasets exact (values, dimensions, coordinates, attributes)\n", via, exact[via])
	}
}

// writeLiveArray creates a's array in s and, when fill, writes the
// formula's values.
func writeLiveArray(t *testing.T, ctx context.Context, s store.Store, a liveArray, fill bool) {
	t.Helper()
	dt := dtype.Named(a.DType)
	m := &meta.ArrayMeta{Shape: a.Shape, ChunkShape: a.Chunks, DataType: dt, FillValue: []byte{}, Codecs: a.codecs,
		ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"}, Format: meta.V3}
	if !dt.Variable() {
		m.FillValue = make([]byte, dt.Size) // zero
	}
	if a.ZarrFormat == 2 {
		m.Format, m.ChunkKey = meta.V2, meta.ChunkKeyEncoding{Name: "v2", Separator: "."}
	}
	for _, d := range a.Dims {
		m.DimensionNames = append(m.DimensionNames, &d)
	}
	arr, err := hierarchy.CreateArray(ctx, s, a.Path, m, options())
	if err != nil {
		t.Fatalf("create %s: %v", a.Path, err)
	}
	if !fill {
		return
	}
	data := ndarray.New(dt, a.Shape)
	for i := range data.Len() {
		setElement(data, i, a.Formula.value(i))
	}
	if err := arr.Write(ctx, grid.All(a.Shape), data); err != nil {
		t.Fatalf("write %s: %v", a.Path, err)
	}
}

func dropPrefix(arrays []liveArray, prefix string) []liveArray {
	var out []liveArray
	for _, a := range arrays {
		if !strings.HasPrefix(a.Path, prefix) {
			out = append(out, a)
		}
	}
	return out
}

// corruptFile flips every byte of a file.
func corruptFile(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("corrupting a chunk: %v", err)
	}
	for i := range b {
		b[i] ^= 0xff
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The S3 credentials of the principal that may write the live dataset.
const (
	liveRegion = "eu-live-1"
	liveKeyID  = "ZARRGWLIVEKEY"
	liveSecret = "live-secret-0123456789abcdef"
)

// serveLive serves dir as the dataset "live" (anyone reads, the token's
// and S3 key's principal writes) and the group at cons as "cons", with
// consolidated metadata built on the fly, on the key API and the S3 API.
func serveLive(t *testing.T, zarrgw, dir, cons string) *zbinary.Gateway {
	t.Helper()
	sum := sha256.Sum256([]byte(liveToken))
	config := fmt.Sprintf(`variable "s3_secret" {
  env = "ZARRGW_LIVE_S3_SECRET"
}
store "fs" "local" {
  root = %q
}
principal "writer" {
  token_sha256         = %q
  s3_access_key_id     = %q
  s3_secret_access_key = var.s3_secret
}
dataset "live" {
  store = store.fs.local
  access {
    read  = ["*"]
    write = ["writer"]
  }
}
dataset "cons" {
  store        = store.fs.local
  prefix       = %q
  read_only    = true
  consolidated = true
}
server {
  listen = "127.0.0.1:0"
  s3 {
    listen = "127.0.0.1:0"
    region = %q
  }
}
`, dir, hex.EncodeToString(sum[:]), liveKeyID, cons, liveRegion)
	file := filepath.Join(t.TempDir(), "zarrgw.hcl")
	if err := os.WriteFile(file, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return zbinary.ServeS3(t, zarrgw, file, "ZARRGW_LIVE_S3_SECRET="+liveSecret)
}
