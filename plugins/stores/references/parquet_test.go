package references_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/builtin"
	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
	"github.com/zarrgw/zarrgw/plugins/stores/references"
)

// fsStore opens (making it) a directory as an fs store, closed when the
// test ends.
func fsStore(t *testing.T, dir string) store.Store {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := fsstore.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// writeParquet converts the JSON set doc to the Parquet form in dir.
func writeParquet(t *testing.T, doc []byte, dir string, recordSize int) *references.Set {
	t.Helper()
	set, err := references.ParseJSON(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := references.WriteParquet(context.Background(), set, fsStore(t, dir), recordSize); err != nil {
		t.Fatal(err)
	}
	return set
}

func openParquet(t *testing.T, dir string) *references.Parquet {
	t.Helper()
	p, err := references.OpenParquet(context.Background(), fsStore(t, dir), dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// chunkKeys is every chunk key of the grids of the arrays of set (present
// or not), from their .zarray.
func chunkKeys(t *testing.T, set *references.Set) []string {
	t.Helper()
	var keys []string
	for _, k := range set.Keys() {
		arr, ok := strings.CutSuffix(k, "/.zarray")
		if !ok {
			continue
		}
		r, _ := set.Ref(k)
		var z struct{ Shape, Chunks []int }
		if err := json.Unmarshal(r.Data, &z); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		grid := []int{1}
		if len(z.Shape) > 0 {
			grid = grid[:0]
			for d := range z.Shape {
				grid = append(grid, (z.Shape[d]+z.Chunks[d]-1)/z.Chunks[d])
			}
		}
		idx := make([]int, len(grid))
		for {
			parts := make([]string, len(idx))
			for d, i := range idx {
				parts[d] = fmt.Sprint(i)
			}
			keys = append(keys, arr+"/"+strings.Join(parts, "."))
			d := len(idx) - 1
			for ; d >= 0; d-- {
				if idx[d]++; idx[d] < grid[d] {
					break
				}
				idx[d] = 0
			}
			if d < 0 {
				break
			}
		}
	}
	return keys
}

// The NetCDF reference sets converted to the Parquet form (3 chunks a
// record file, so that arrays have several, and a chunk t1.nc lacks is a
// row of nulls) read exactly as their JSON form: every key's bytes (the
// metadata as the same JSON), every key the grids name and the set lacks
// not found, the same listing, and every variable as netCDF4-python reads
// it.
func TestParquetReadsLikeJSON(t *testing.T) {
	dir, refs := netcdfWorld(t)
	ctx := context.Background()
	for _, name := range []string{"single-v0", "joined-v0", "joined-v1"} {
		t.Run(name, func(t *testing.T) {
			doc, err := os.ReadFile(filepath.Join(refs, name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			pq := filepath.Join(dir, name+".parq")
			set := writeParquet(t, doc, pq, 3)
			recordFiles, _ := filepath.Glob(filepath.Join(pq, "*", "refs.*.parq"))
			if len(recordFiles) < 10 {
				t.Errorf("%d record files for %d keys: want several per array", len(recordFiles), len(set.Keys()))
			}
			js := references.New(set, localFiles{}, dir) // the world's: its nc/ holds the targets
			pa := references.New(openParquet(t, pq), localFiles{}, dir)
			defer js.Close()
			defer pa.Close()

			missing := 0
			for _, key := range append(set.Keys(), chunkKeys(t, set)...) {
				want, werr := js.Get(ctx, key, store.ByteRange{})
				got, gerr := pa.Get(ctx, key, store.ByteRange{})
				switch {
				case errors.Is(werr, store.ErrNotFound):
					missing++
					if !errors.Is(gerr, store.ErrNotFound) {
						t.Errorf("%s: the JSON form has no such key, the Parquet form reads %q (%v)", key, got.Data, gerr)
					}
				case werr != nil || gerr != nil:
					t.Errorf("%s: JSON %v, Parquet %v", key, werr, gerr)
				case strings.Contains(key, "/.z") || strings.HasPrefix(key, ".z"):
					var w, g any
					if json.Unmarshal(want.Data, &w) != nil || json.Unmarshal(got.Data, &g) != nil || !reflect.DeepEqual(w, g) {
						t.Errorf("%s: %s, want %s", key, got.Data, want.Data)
					}
				case !bytes.Equal(want.Data, got.Data):
					t.Errorf("%s: %d bytes differ from the JSON form's %d", key, len(got.Data), len(want.Data))
				}
			}
			t.Logf("%d keys, %d record files, %d chunks of the grids missing", len(set.Keys()), len(recordFiles), missing)
			if name != "single-v0" && missing == 0 {
				t.Errorf("no chunk of the grids is missing: the set should lack count's unwritten chunk in t1.nc")
			}
			var listed []string
			for k, err := range pa.List(ctx, "") {
				if err != nil {
					t.Fatal(err)
				}
				listed = append(listed, k)
			}
			slices.Sort(listed)
			if !slices.Equal(listed, set.Keys()) {
				t.Errorf("the Parquet form lists %d keys, the JSON form %d", len(listed), len(set.Keys()))
			}
			dirJSON, err1 := js.ListDir(ctx, "")
			dirParquet, err2 := pa.ListDir(ctx, "")
			if err1 != nil || err2 != nil || !reflect.DeepEqual(dirJSON, dirParquet) {
				t.Errorf("list dir: JSON %+v (%v), Parquet %+v (%v)", dirJSON, err1, dirParquet, err2)
			}
		})
	}
	t.Run("variables", func(t *testing.T) {
		doc, err := os.ReadFile(filepath.Join(refs, "joined-v1.json"))
		if err != nil {
			t.Fatal(err)
		}
		pq := filepath.Join(dir, "variables.parq")
		writeParquet(t, doc, pq, 3)
		readsAsNetCDF4(t, references.New(openParquet(t, pq), localFiles{}, dir), filepath.Join(refs, "expected.json"))
	})
}

// testRow is a record file's row as the tests write one by hand.
type testRow struct {
	Path   *string `parquet:"path,optional"`
	Offset int64   `parquet:"offset"`
	Size   int64   `parquet:"size"`
	Raw    *[]byte `parquet:"raw,optional"`
}

func writeRecord(t *testing.T, path string, rows []testRow) {
	t.Helper()
	var buf bytes.Buffer
	if err := parquet.Write(&buf, rows); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// smallSet writes a Parquet set in dir: array v of 5 one-byte chunks, 3 a
// record file, chunk i the byte i of data.bin beside the set.
func smallSet(t *testing.T, dir string) {
	t.Helper()
	doc := `{".zgroup": "{\"zarr_format\":2}",
		"v/.zarray": "{\"zarr_format\":2,\"shape\":[5],\"chunks\":[1],\"dtype\":\"|u1\",\"compressor\":null,\"fill_value\":7,\"order\":\"C\",\"filters\":null}"`
	for i := range 5 {
		doc += fmt.Sprintf(`, "v/%d": ["%s", %d, 1]`, i, filepath.Join(filepath.Dir(dir), "data.bin"), i)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(dir), "data.bin"), []byte{0, 1, 2, 3, 4}, 0o644); err != nil {
		t.Fatal(err)
	}
	writeParquet(t, []byte(doc+"}"), dir, 3)
}

// A set without .zmetadata, a record file that is not Parquet, one whose
// row holds a reference past the array's chunks and one with fewer rows
// than a key needs are errors naming the set, the key and the record file,
// never "not found" (which reads as fill values); a record file that does
// not exist is a record without chunks, as kerchunk writes none for it.
func TestParquetBadInput(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "set.parq")
	fsStore(t, dir)
	if _, err := references.OpenParquet(ctx, fsStore(t, dir), dir); err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), ".zmetadata") {
		t.Errorf("no .zmetadata: %v", err)
	}
	// the registration chooses the Parquet form for a name ending in "/"
	_, err := references.Registration.New(store.WithURLOpener(ctx, localFiles{}), references.Config(dir+"/"))
	if err == nil || !strings.Contains(err.Error(), ".zmetadata") {
		t.Errorf("registration over a directory without .zmetadata: %v", err)
	}

	smallSet(t, dir)
	check := func(what, key string, wants ...string) {
		t.Helper()
		s := references.New(openParquet(t, dir), localFiles{}, filepath.Dir(dir))
		_, err := s.Get(ctx, key, store.ByteRange{})
		if err == nil || errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s: get %s: %v, want an error other than not found", what, key, err)
			return
		}
		for _, w := range append(wants, fmt.Sprintf("key %q", key)) {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: get %s: %v, want it to name %q", what, key, err, w)
			}
		}
	}
	file1 := filepath.Join(dir, "v", "refs.1.parq")
	good, err := os.ReadFile(file1)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file1, good[:len(good)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	check("a corrupt record file", "v/4", file1, "not a Parquet file")

	target := filepath.Join(filepath.Dir(dir), "data.bin")
	writeRecord(t, file1, []testRow{{Path: &target, Offset: 3, Size: 1}, {Path: &target, Offset: 4, Size: 1}, {Path: &target, Offset: 0, Size: 1}})
	check("a row past the chunks", "v/3", file1, "row 2", "past the 5 chunks")

	writeRecord(t, file1, []testRow{{Path: &target, Offset: 3, Size: 1}})
	check("a short record file", "v/4", file1, "has 1 rows")

	writeRecord(t, file1, []testRow{{Path: &target, Offset: -3, Size: 1}, {}, {}})
	check("a negative offset", "v/3", file1, "row 0")

	// a record file that does not exist: its chunks are fill values
	if err := os.Remove(file1); err != nil {
		t.Fatal(err)
	}
	s := references.New(openParquet(t, dir), localFiles{}, filepath.Dir(dir))
	if _, err := s.Get(ctx, "v/4", store.ByteRange{}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a chunk of a record file not written: %v, want not found", err)
	}
	if v, err := s.Get(ctx, "v/2", store.ByteRange{}); err != nil || !bytes.Equal(v.Data, []byte{2}) {
		t.Errorf("v/2: %v (%v)", v.Data, err)
	}
	for _, key := range []string{"v/5", "v/01", "v/-1", "v/1.0", "w/0", "v"} {
		if _, err := s.Get(ctx, key, store.ByteRange{}); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s, no chunk of the set: %v, want not found", key, err)
		}
	}
}

// Record files as other writers lay them out read alike: every column
// nullable (pyarrow's way), path, offset and size alone, raw alone (fsspec
// reads files of either), and 32-bit offsets.
func TestParquetReadsOtherLayouts(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "set.parq")
	smallSet(t, dir)
	target := filepath.Join(filepath.Dir(dir), "data.bin")
	i64 := func(v int64) *int64 { return &v }
	file1 := filepath.Join(dir, "v", "refs.1.parq")
	for name, write := range map[string]func(){
		"nullable": func() {
			type row struct {
				Path   *string `parquet:"path,optional"`
				Offset *int64  `parquet:"offset,optional"`
				Size   *int64  `parquet:"size,optional"`
				Raw    *[]byte `parquet:"raw,optional"`
			}
			nine := []byte{9}
			writeRows(t, file1, []row{{Path: &target, Offset: i64(3), Size: i64(1)}, {Raw: &nine}, {}})
		},
		"no raw": func() {
			type row struct {
				Path   *string `parquet:"path,optional"`
				Offset int32   `parquet:"offset"`
				Size   int64   `parquet:"size"`
			}
			writeRows(t, file1, []row{{Path: &target, Offset: 3, Size: 1}, {Path: &target, Offset: 1, Size: 1}, {}})
		},
		"raw only": func() {
			type row struct {
				Raw []byte `parquet:"raw,optional"`
			}
			writeRows(t, file1, []row{{Raw: []byte{3}}, {Raw: []byte{9}}})
		},
	} {
		write()
		s := references.New(openParquet(t, dir), localFiles{}, filepath.Dir(dir))
		v3, err3 := s.Get(ctx, "v/3", store.ByteRange{})
		v4, err4 := s.Get(ctx, "v/4", store.ByteRange{})
		if err3 != nil || err4 != nil || !bytes.Equal(v3.Data, []byte{3}) || len(v4.Data) != 1 || v4.Data[0] != 9 && v4.Data[0] != 1 {
			t.Errorf("%s: v/3 %v (%v), v/4 %v (%v)", name, v3.Data, err3, v4.Data, err4)
		}
	}
}

func writeRows[T any](t *testing.T, path string, rows []T) {
	t.Helper()
	var buf bytes.Buffer
	if err := parquet.Write(&buf, rows); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// WriteParquet keeps a missing chunk missing, an inline value (empty or
// not) inline and a whole-file reference whole, whatever rows surround
// them: chunks of every kind in an irregular order, in record files of 8
// and of 64 rows.
func TestParquetWriteKeepsNullsAndEmptyValues(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	target := filepath.Join(base, "data.bin")
	if err := os.WriteFile(target, []byte("whole"), 0o644); err != nil {
		t.Fatal(err)
	}
	const n = 64
	doc := `{"v/.zarray": "{\"zarr_format\":2,\"shape\":[64],\"chunks\":[1],\"dtype\":\"|u1\",\"compressor\":null,\"fill_value\":0,\"order\":\"C\",\"filters\":null}"`
	want := map[string]string{} // absent: missing
	for i := range n {
		key := fmt.Sprintf("v/%d", i)
		switch (i*7 + i/5) % 5 {
		case 0:
			doc += fmt.Sprintf(`, %q: [%q, 1, 2]`, key, target)
			want[key] = "ho"
		case 1:
			doc += fmt.Sprintf(`, %q: "base64:CQ=="`, key)
			want[key] = "\x09"
		case 2:
			doc += fmt.Sprintf(`, %q: [%q]`, key, target)
			want[key] = "whole"
		case 3:
			doc += fmt.Sprintf(`, %q: ""`, key)
			want[key] = ""
		}
	}
	for _, rs := range []int{8, 64} {
		dir := filepath.Join(base, fmt.Sprintf("set-%d.parq", rs))
		writeParquet(t, []byte(doc+"}"), dir, rs)
		s := references.New(openParquet(t, dir), localFiles{}, base)
		for i := range n {
			key := fmt.Sprintf("v/%d", i)
			v, err := s.Get(ctx, key, store.ByteRange{})
			w, present := want[key]
			switch {
			case !present && !errors.Is(err, store.ErrNotFound):
				t.Errorf("record size %d: %s, missing: %q (%v), want not found", rs, key, v.Data, err)
			case present && (err != nil || string(v.Data) != w):
				t.Errorf("record size %d: %s: %q (%v), want %q", rs, key, v.Data, err, w)
			}
		}
	}
}

// Metadata holding Python's NaN, Infinity and -Infinity (json.dumps of a
// NetCDF attribute of NaN; kerchunk writes .zmetadata so) is written,
// read and served as its bytes, as the JSON form serves them; words
// inside strings are left alone.
func TestParquetKeepsPythonNaN(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	zattrs := `{"missing_value": NaN, "hi": Infinity, "lo": [-Infinity], "s": "NaN, \"Infinity\""}`
	zarray := `{"zarr_format":2,"shape":[2],"chunks":[1],"dtype":"<f4","compressor":null,"fill_value":NaN,"order":"C","filters":null}`
	quoted := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	doc := `{"v/.zattrs": ` + quoted(zattrs) + `, "v/.zarray": ` + quoted(zarray) + `, "v/1": "base64:AACAPw=="}`
	dir := filepath.Join(base, "written.parq")
	writeParquet(t, []byte(doc), dir, 3)

	// and as Python writes it, indented
	hand := filepath.Join(base, "python.parq")
	fsStore(t, hand)
	if err := os.WriteFile(filepath.Join(hand, ".zmetadata"), []byte("{\n  \"metadata\": {\n    \"v/.zattrs\": "+zattrs+",\n    \"v/.zarray\": "+zarray+"\n  },\n  \"record_size\": 3\n}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(hand, "v"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "v", "refs.0.parq"), filepath.Join(hand, "v", "refs.0.parq")); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, hand} {
		s := references.New(openParquet(t, d), localFiles{}, "")
		for key, want := range map[string]string{"v/.zattrs": zattrs, "v/.zarray": zarray} {
			if v, err := s.Get(ctx, key, store.ByteRange{}); err != nil || string(v.Data) != want {
				t.Errorf("%s %s: %s (%v), want %s", filepath.Base(d), key, v.Data, err, want)
			}
		}
		if v, err := s.Get(ctx, "v/1", store.ByteRange{}); d == hand && (err != nil || !bytes.Equal(v.Data, []byte{0, 0, 0x80, 0x3f})) {
			t.Errorf("%s v/1: %v (%v)", filepath.Base(d), v.Data, err)
		}
	}
}

// countLoads wraps dir, counting the reads of each record file.
func countLoads(dir store.Store) (store.Store, func(file string) int64, *atomic.Int64) {
	var mu sync.Mutex
	loads := map[string]int64{}
	var total atomic.Int64
	hooked := store.WithHook(dir, func(ctx context.Context, op, key string, call func(context.Context) error) error {
		if op == "get" && strings.HasSuffix(key, ".parq") {
			mu.Lock()
			loads[key]++
			mu.Unlock()
			total.Add(1)
		}
		return call(ctx)
	})
	return hooked, func(file string) int64 { mu.Lock(); defer mu.Unlock(); return loads[file] }, &total
}

// A lookup loads its record file once: the other keys in it, and readers
// asking for it at once, read it without loading it again; at most
// RecordCache record files are kept (the least recently used is read
// again), so memory is bounded whatever the number of chunks.
func TestParquetLoadsRecordFilesOnceAndKeepFew(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "set.parq")
	doc := `{"v/.zarray": "{\"zarr_format\":2,\"shape\":[30],\"chunks\":[1],\"dtype\":\"|u1\",\"compressor\":null,\"fill_value\":0,\"order\":\"C\",\"filters\":null}"`
	for i := range 30 {
		doc += fmt.Sprintf(`, "v/%d": "base64:%s"`, i, []string{"AA==", "AQ==", "Ag==", "Aw=="}[i%4])
	}
	writeParquet(t, []byte(doc+"}"), dir, 3)
	hooked, loads, total := countLoads(fsStore(t, dir))
	p, err := references.OpenParquet(ctx, hooked, dir)
	if err != nil {
		t.Fatal(err)
	}
	p.RecordCache(2)
	get := func(i int) {
		t.Helper()
		r, _, ok, err := p.Lookup(ctx, fmt.Sprintf("v/%d", i))
		if err != nil || !ok || !bytes.Equal(r.Data, []byte{byte(i % 4)}) {
			t.Fatalf("v/%d: %v %v (%v)", i, r.Data, ok, err)
		}
	}
	expect := func(file string, n, all int64) {
		t.Helper()
		if got := loads(file); got != n || total.Load() != all {
			t.Fatalf("%s loaded %d times (%d record loads in all), want %d (%d)", file, got, total.Load(), n, all)
		}
	}
	get(0)
	expect("v/refs.0.parq", 1, 1)
	get(1)
	get(2)
	get(0)
	expect("v/refs.0.parq", 1, 1)
	get(3) // a second record file: both kept
	get(0)
	get(4)
	expect("v/refs.1.parq", 1, 2)
	get(6) // a third: the least recently used (refs.0) goes
	expect("v/refs.2.parq", 1, 3)
	get(5)
	expect("v/refs.1.parq", 1, 3)
	get(0)
	expect("v/refs.0.parq", 2, 4)

	// Readers of one record file at once load it once: the load is held
	// until the 15 other readers wait for it (they ask their context's
	// Done), or until one of them loads it too.
	var waiting, loads9 atomic.Int64
	again, seen := make(chan struct{}), sync.Once{}
	p2, err := references.OpenParquet(ctx, store.WithHook(fsStore(t, dir), func(ctx context.Context, op, key string, call func(context.Context) error) error {
		if key == "v/refs.9.parq" {
			if loads9.Add(1) > 1 {
				seen.Do(func() { close(again) })
			} else {
				for held := true; held && waiting.Load() < 15; {
					select {
					case <-again:
						held = false
					default:
						runtime.Gosched()
					}
				}
			}
		}
		return call(ctx)
	}), dir)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			key := fmt.Sprintf("v/%d", 27+i%3)
			if r, _, ok, err := p2.Lookup(doneCounter{ctx, &waiting}, key); err != nil || !ok || len(r.Data) != 1 {
				t.Errorf("%s: %v %v (%v)", key, r.Data, ok, err)
			}
		})
	}
	wg.Wait()
	if n := loads9.Load(); n != 1 {
		t.Errorf("16 readers at once loaded refs.9.parq %d times, want once", n)
	}
}

// doneCounter counts the calls of its Done: a reader waiting.
type doneCounter struct {
	context.Context
	n *atomic.Int64
}

func (c doneCounter) Done() <-chan struct{} {
	c.n.Add(1)
	return c.Context.Done()
}

// Within a read batch, neighbouring ranges of one target file in one
// record file are read in one request.
func TestParquetCoalescesWithinRecordFile(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	dir := filepath.Join(base, "set.parq")
	smallSet(t, dir)
	var gets atomic.Int64
	opener := hookedFiles{func(ctx context.Context, op, key string, call func(context.Context) error) error {
		if op == "get" && key == "data.bin" {
			gets.Add(1)
		}
		return call(ctx)
	}}
	s := references.New(openParquet(t, dir), opener, base)
	batch := store.WithReadBatch(ctx)
	for i := range 3 {
		v, err := s.Get(batch, fmt.Sprintf("v/%d", i), store.ByteRange{})
		if err != nil || !bytes.Equal(v.Data, []byte{byte(i)}) {
			t.Fatalf("v/%d: %v (%v)", i, v.Data, err)
		}
	}
	if n := gets.Load(); n != 1 {
		t.Errorf("3 neighbouring chunks of one record file read in %d requests, want 1", n)
	}
}

// hookedFiles opens local directories with a hook around their calls.
type hookedFiles struct{ hook store.Hook }

func (h hookedFiles) OpenURL(ctx context.Context, url string) (store.Store, error) {
	s, err := localFiles{}.OpenURL(ctx, url)
	if err != nil {
		return nil, err
	}
	// Without the local files' OpenFile, as a bucket's store: the
	// references store coalesces only ranges of remote files.
	return store.WithOptional(store.WithHook(s, h.hook), store.Optional{}), nil
}

// readsAsNetCDF4 reads every variable of expected (mkrefs.py's) through s
// and compares it with what netCDF4-python reads.
func readsAsNetCDF4(t *testing.T, s store.Store, expected string) {
	t.Helper()
	var want map[string]struct {
		Hex   string
		Shape []int
	}
	raw, err := os.ReadFile(expected)
	if err != nil || json.Unmarshal(raw, &want) != nil || len(want) < 5 {
		t.Fatalf("expected values: %v (%d arrays)", err, len(want))
	}
	ctx := context.Background()
	for name, w := range want {
		a, err := hierarchy.OpenArray(ctx, s, name, array.Options{Codecs: builtin.Registry()})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		got, err := a.ReadAll(ctx)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if h := hex.EncodeToString(got.Data); h != w.Hex {
			t.Errorf("%s %v: read %.40s…, netCDF4-python reads %.40s…", name, got.Shape, h, w.Hex)
		}
	}
}

// BenchmarkParquetLoadRecord loads a record file of 100 000 rows (each
// iteration another: the set keeps one): its time and allocations.
func BenchmarkParquetLoadRecord(b *testing.B) {
	const n, rs = 200_000, 100_000
	var doc strings.Builder
	doc.WriteString(`{"x/.zarray": "{\"zarr_format\":2,\"shape\":[200000],\"chunks\":[1],\"dtype\":\"|u1\",\"compressor\":null,\"fill_value\":0,\"order\":\"C\",\"filters\":null}"`)
	for i := range n {
		fmt.Fprintf(&doc, `, "x/%d": ["/data/raw.bin", %d, 1]`, i, i%256)
	}
	doc.WriteString("}")
	set, err := references.ParseJSON([]byte(doc.String()))
	if err != nil {
		b.Fatal(err)
	}
	dir := store.NewMemory()
	ctx := context.Background()
	if err := references.WriteParquet(ctx, set, dir, rs); err != nil {
		b.Fatal(err)
	}
	p, err := references.OpenParquet(ctx, dir, "mem")
	if err != nil {
		b.Fatal(err)
	}
	p.RecordCache(1)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		key := fmt.Sprintf("x/%d", (i%2)*rs+i%rs)
		if r, _, ok, err := p.Lookup(ctx, key); err != nil || !ok || r.Length != 1 {
			b.Fatalf("%s: %+v %v %v", key, r, ok, err)
		}
	}
}

// Listing a directory outside every array (the root, a group) reads no
// record file: the arrays' .zarray name their directories; a listing
// within an array lists its chunks from its record files.
func TestParquetListDirOutsideArraysReadsNoRecord(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "set.parq")
	zarray := `"{\"zarr_format\":2,\"shape\":[6],\"chunks\":[1],\"dtype\":\"|u1\",\"compressor\":null,\"fill_value\":0,\"order\":\"C\",\"filters\":null}"`
	doc := `{".zgroup": "{\"zarr_format\":2}", "g/.zgroup": "{\"zarr_format\":2}", "g/v/.zarray": ` + zarray + `, "w/.zarray": ` + zarray
	for i := range 6 {
		doc += fmt.Sprintf(`, "g/v/%d": "base64:AA==", "w/%d": "base64:AQ=="`, i, i)
	}
	writeParquet(t, []byte(doc+"}"), dir, 2)
	hooked, _, total := countLoads(fsStore(t, dir))
	p, err := references.OpenParquet(ctx, hooked, dir)
	if err != nil {
		t.Fatal(err)
	}
	s := references.New(p, localFiles{}, "")
	for prefix, want := range map[string]string{
		"":   "keys [.zgroup] prefixes [g/ w/]",
		"g/": "keys [g/.zgroup] prefixes [g/v/]",
	} {
		d, err := s.ListDir(ctx, prefix)
		if got := fmt.Sprintf("keys %v prefixes %v", d.Keys, d.Prefixes); err != nil || got != want {
			t.Errorf("ListDir(%q): %s (%v), want %s", prefix, got, err, want)
		}
	}
	if n := total.Load(); n != 0 {
		t.Errorf("listing outside the arrays read %d record files, want none", n)
	}
	d, err := s.ListDir(ctx, "w/")
	if err != nil || len(d.Keys) != 7 || total.Load() != 3 {
		t.Errorf("ListDir(w/): %v (%v) after %d record loads, want .zarray and 6 chunks from 3", d.Keys, err, total.Load())
	}
}

// record_files in a configuration bounds the record files kept: with 1,
// going back to a record file reads it again; with the default (4) not.
func TestParquetRecordFilesConfigured(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "set.parq")
	doc := `{"v/.zarray": "{\"zarr_format\":2,\"shape\":[4],\"chunks\":[1],\"dtype\":\"|u1\",\"compressor\":null,\"fill_value\":0,\"order\":\"C\",\"filters\":null}"`
	for i := range 4 {
		doc += fmt.Sprintf(`, "v/%d": "base64:AA=="`, i)
	}
	writeParquet(t, []byte(doc+"}"), dir, 2)
	for config, wantLoads := range map[string]int64{
		`{"references": %q, "record_files": 1}`: 3,
		`{"references": %q}`:                    2,
	} {
		var loads atomic.Int64
		opener := hookedFiles{func(ctx context.Context, op, key string, call func(context.Context) error) error {
			if op == "get" && strings.HasSuffix(key, ".parq") {
				loads.Add(1)
			}
			return call(ctx)
		}}
		ctx := store.WithURLOpener(context.Background(), opener)
		s, err := references.Registration.New(ctx, json.RawMessage(fmt.Sprintf(config, dir+"/")))
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"v/0", "v/2", "v/1"} { // record 0, 1, then 0 again
			if _, err := s.Get(ctx, k, store.ByteRange{}); err != nil {
				t.Fatal(err)
			}
		}
		s.Close()
		if n := loads.Load(); n != wantLoads {
			t.Errorf("%s: %d record loads, want %d", config, n, wantLoads)
		}
	}
}
