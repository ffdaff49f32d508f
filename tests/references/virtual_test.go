package references

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	zbinary "github.com/zarrgw/zarrgw/tests/support/binary"
	"github.com/zarrgw/zarrgw/tests/support/pyenv"
	"github.com/zarrgw/zarrgw/tests/walkthrough"
)

// virtualSet is a reference set kerchunk or VirtualiZarr made over the
// world's NetCDF files: its label (a dataset name too), its location in
// refs/, and whether it is over t0.nc alone (else the three files joined
// along time).
type virtualSet struct {
	label, loc string
	single     bool
}

var virtualSets = []virtualSet{
	{"kerchunk-json", "kerchunk.json", false},                         // the README's
	{"kerchunk-parquet", "kerchunk.parq", false},                      // the README's
	{"kerchunk-parquet-records", "kerchunk-records.parq", false},      // 5 chunks a record file
	{"kerchunk-single-json", "kerchunk-single.json", true},            // small chunks inline, UTF-8 and base64
	{"virtualizarr-json", "virtualizarr.json", false},                 // the README's
	{"virtualizarr-parquet", "virtualizarr.parq", false},              // the README's
	{"virtualizarr-single-json", "virtualizarr-single.json", true},    // every variable virtual
	{"virtualizarr-single-parquet", "virtualizarr-single.parq", true}, // the same, 5 chunks a record file
}

// readmeVirtual is the README's walk-through that makes kerchunk and
// VirtualiZarr sets and serves one.
const readmeVirtual = "virtual"

// readmeServeSet is the set the walk-through's configuration (nc.hcl)
// serves; the test serves each of its sets with that file, this replaced.
const readmeServeSet = `"./refs/kerchunk.json"`

// virtualWorld is world with the sets of virtualSets in refs/: the
// README's walk-through run as printed (its kerchunk and VirtualiZarr
// scripts, and a zarrgw cat), then testdata/virtual.py's others. It returns the directory,
// the environment's python, and the values of the joined files and of
// t0.nc alone as netCDF4-python reads them.
func virtualWorld(t *testing.T) (dir, py string, joined, single expected) {
	t.Helper()
	py = pyenv.Python(t, "kerchunk", "virtualizarr", "obstore", "obspec_utils", "xarray", "zarr", "fsspec", "aiohttp")
	dir, joined = world(t)
	delete(joined, "gen") // mkrefs.py's own, from no NetCDF file
	raw, err := os.ReadFile(filepath.Join(dir, "refs", "expected-single.json"))
	if err != nil || json.Unmarshal(raw, &single) != nil || len(single) < 5 {
		t.Fatalf("expected values of t0.nc: %v", err)
	}
	blocks, err := walkthrough.Parse(filepath.Join(repoRoot(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks = walkthrough.Of(blocks, readmeVirtual)
	if err := walkthrough.Write(dir, blocks); err != nil {
		t.Fatal(err)
	}
	path := filepath.Dir(py) + string(os.PathListSeparator) + filepath.Dir(zarrgwBin) + string(os.PathListSeparator) + os.Getenv("PATH")
	if out, err := walkthrough.Run(dir, blocks, "PATH="+path, "PYTHONWARNINGS=ignore"); err != nil || len(blocks) < 4 {
		t.Fatalf("the README's walk-through %q (%d blocks): %v\n%s", readmeVirtual, len(blocks), err, out)
	}
	run(t, dir, py, virtualScript(), "more", "nc", "refs")
	return dir, py, joined, single
}

func virtualScript() string {
	return filepath.Join(repoRoot(), "tests", "references", "testdata", "virtual.py")
}

// readers decodes virtual.py's output: by set or URL, the hex of each
// variable's values and the sha256 of each chunk key's bytes, or an error.
type readers map[string]struct {
	Values map[string]string
	Keys   map[string]string
	NaNs   map[string]int
	Error  string
}

func readersOf(t *testing.T, out []byte) readers {
	t.Helper()
	var r readers
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("virtual.py output: %v\n%.300s", err, out)
	}
	return r
}

// virtualConfig writes a configuration serving each set as a dataset of
// its label, with consolidated metadata.
func virtualConfig(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	for _, s := range virtualSets {
		fmt.Fprintf(&b, `store "references" %q {
  references    = "./refs/%s"
  allow_targets = ["./nc/"]
}

dataset %q {
  store        = store.references.%s
  read_only    = true
  consolidated = true
}

`, s.label, s.loc, s.label, s.label)
	}
	hcl := filepath.Join(dir, "virtual.hcl")
	write(t, hcl, b.String())
	return hcl
}

// Reference sets made by kerchunk 0.2.10 and VirtualiZarr 2.5.1 (JSON and
// Parquet; one file and three joined along time) read every variable
// exactly as netCDF4-python reads the files, with auto mask and scale off
// (the stored values: fill values as stored, count's scale_factor and
// add_offset left as attributes): through `zarrgw cat` with the README's
// configuration, the array API, and xarray (decode_cf=False) over the key
// API of `zarrgw serve`. fsspec's ReferenceFileSystem with zarr-python 3
// reads the same values from each set, and the key API serves every chunk
// key fsspec has with the same bytes.
func TestVirtualDatasets(t *testing.T) {
	dir, py, joined, single := virtualWorld(t)
	want := func(s virtualSet) expected {
		if s.single {
			return single
		}
		return joined
	}
	exact := map[string][]string{} // by set, what read every variable exactly

	serve, err := os.ReadFile(filepath.Join(dir, "nc.hcl")) // the walk-through's
	if err != nil || !strings.Contains(string(serve), readmeServeSet) {
		t.Fatalf("the README's configuration does not name %s (%v):\n%s", readmeServeSet, err, serve)
	}
	for _, s := range virtualSets {
		hcl := s.label + ".hcl"
		write(t, filepath.Join(dir, hcl), strings.Replace(string(serve), readmeServeSet, `"./refs/`+s.loc+`"`, 1))
		if mismatches(t, s, want(s), func(name string) string {
			return hex.EncodeToString(run(t, dir, zarrgwBin, "cat", "-c", hcl, "nc", "--path", name, "--format", "raw"))
		}) == 0 {
			exact[s.label] = append(exact[s.label], "cat")
		}
	}

	gw := zbinary.Serve(t, zarrgwBin, virtualConfig(t, dir))
	for _, s := range virtualSets {
		if mismatches(t, s, want(s), func(name string) string {
			return hex.EncodeToString(get(t, gw.URL+"/d/"+s.label+"/"+name+"?format=raw"))
		}) == 0 {
			exact[s.label] = append(exact[s.label], "the array API")
		}
	}

	var urls []string
	for _, s := range virtualSets {
		urls = append(urls, gw.URL+"/d/"+s.label+"/")
	}
	xr := readersOf(t, run(t, dir, py, append([]string{virtualScript(), "xarray"}, urls...)...))
	for i, s := range virtualSets {
		r := xr[urls[i]]
		if r.Error != "" {
			t.Errorf("xarray over the key API, %s:\n%s", s.label, r.Error)
			continue
		}
		if mismatches(t, s, want(s), func(name string) string { return r.Values[name] }) == 0 {
			exact[s.label] = append(exact[s.label], "xarray over the key API")
		}
		// Decoded as users read it, temp's fill values are NaN.
		if got, fills := r.NaNs["temp"], countFloat32(t, want(s)["temp"].Hex, -9999); got != fills || fills == 0 {
			t.Errorf("%s: xarray decodes temp with %d NaN, want one for each of its %d fill values", s.label, got, fills)
		}
	}

	var paths []string
	for _, s := range virtualSets {
		paths = append(paths, filepath.Join(dir, "refs", s.loc))
	}
	fs := readersOf(t, run(t, dir, py, append([]string{virtualScript(), "fsspec"}, paths...)...))
	keys := map[string]int{}
	for i, s := range virtualSets {
		r := fs[paths[i]]
		if r.Error != "" {
			t.Errorf("fsspec's ReferenceFileSystem, %s:\n%s", s.label, r.Error)
			continue
		}
		if mismatches(t, s, want(s), func(name string) string { return r.Values[name] }) == 0 && len(r.Values) == len(want(s)) {
			exact[s.label] = append(exact[s.label], "fsspec")
		}
		if len(r.Keys) < 10 {
			t.Errorf("%s: fsspec lists %d chunk keys", s.label, len(r.Keys))
		}
		for key, sum := range r.Keys {
			got := sha256.Sum256(get(t, gw.URL+"/d/"+s.label+"/"+key))
			if hex.EncodeToString(got[:]) != sum {
				t.Errorf("%s: the key API serves %s other than fsspec reads it", s.label, key)
				continue
			}
			keys[s.label]++
		}
	}

	t.Run("a changed byte shows", func(t *testing.T) { changedTargets(t, dir, joined) })

	for _, s := range virtualSets {
		fmt.Printf("references %s: %d variables exact through %s; %d chunk keys as fsspec reads them\n",
			s.label, len(want(s)), strings.Join(exact[s.label], ", "), keys[s.label])
		if len(exact[s.label]) != 4 {
			t.Errorf("%s: exact only through %v", s.label, exact[s.label])
		}
	}
}

// mismatches compares each variable of want with what read returns for
// it, reports each that differs, and returns how many did.
func mismatches(t *testing.T, s virtualSet, want expected, read func(name string) string) int {
	t.Helper()
	bad := 0
	for _, name := range slices.Sorted(maps.Keys(want)) {
		if got := read(name); got != want[name].Hex {
			t.Errorf("%s %s: %s", s.label, name, hexDiff(got, want[name].Hex))
			bad++
		}
	}
	return bad
}

// hexDiff says where the bytes of got first differ from want (netCDF4-python's),
// both in hex.
func hexDiff(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	i -= i % 2
	return fmt.Sprintf("%d bytes, want %d; from byte %d: %.16s…, want %.16s…",
		len(got)/2, len(want)/2, i/2, got[i:], want[i:])
}

// countFloat32 counts the little-endian float32 values v in hex.
func countFloat32(t *testing.T, h string, v float32) int {
	t.Helper()
	b, err := hex.DecodeString(h)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i := 0; i+4 <= len(b); i += 4 {
		if math.Float32frombits(binary.LittleEndian.Uint32(b[i:])) == v {
			n++
		}
	}
	return n
}

// targetOf returns the target, offset and length kerchunk's joined set
// gives key.
func targetOf(t *testing.T, dir, key string) (string, int64, int64) {
	t.Helper()
	var set struct{ Refs map[string]json.RawMessage }
	raw, err := os.ReadFile(filepath.Join(dir, "refs", "kerchunk.json"))
	if err != nil || json.Unmarshal(raw, &set) != nil {
		t.Fatalf("kerchunk.json: %v", err)
	}
	var ref []any
	if err := json.Unmarshal(set.Refs[key], &ref); err != nil || len(ref) != 3 {
		t.Fatalf("kerchunk.json %s: %s (%v)", key, set.Refs[key], err)
	}
	return ref[0].(string), int64(ref[1].(float64)), int64(ref[2].(float64))
}

// flipByte inverts the byte at off of the file at path.
func flipByte(t *testing.T, path string, off int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, off); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0xff
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

// A byte of a NetCDF file changed after the sets were made shows, never as
// other values passed for the file's: in a zlib-compressed chunk of temp
// the read fails naming the chunk (deflate's checksum), through
// every set; in the contiguous, uncompressed elev exactly the element
// holding the byte reads changed, as the file now holds it.
func changedTargets(t *testing.T, dir string, joined expected) {
	nc, off, n := targetOf(t, dir, "temp/2.0.0")
	flipByte(t, nc, off+n/2)
	for _, s := range virtualSets {
		if s.single {
			continue // over t0.nc; temp/2.0.0 is t1.nc's
		}
		out, msg, err := cat(dir, nil, s.label+".hcl", "nc", "temp")
		if err == nil || len(out) > 0 || !strings.Contains(msg, "chunk temp/2.0.0") {
			t.Errorf("%s: cat temp with a byte of its chunk 2.0.0 changed: exit %v, %d bytes out, stderr:\n%s", s.label, err, len(out), msg)
		}
	}

	nc, off, _ = targetOf(t, dir, "elev/0.0")
	const element = 100 // its high byte, little-endian float32
	flipByte(t, nc, off+4*element+3)
	want, err := hex.DecodeString(joined["elev"].Hex)
	if err != nil {
		t.Fatal(err)
	}
	want[4*element+3] ^= 0xff
	for _, s := range virtualSets {
		out, msg, err := cat(dir, nil, s.label+".hcl", "nc", "elev")
		if err != nil || !slices.Equal(out, want) {
			t.Errorf("%s: cat elev with the byte of element %d changed: exit %v, %s; stderr:\n%s",
				s.label, element, err, hexDiff(hex.EncodeToString(out), hex.EncodeToString(want)), msg)
		}
	}
}
