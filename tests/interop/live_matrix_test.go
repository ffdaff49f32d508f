package interop

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
)

// The matrix's sample through the gateway: zarr-python 3 and tensorstore
// write a sample of the interoperability matrix (py/matrix_write.py
// --sample: every data type and codec chain of each format at least once)
// into the served directory, and every live client reads it through the
// key and S3 APIs against the matrix's own expected values. A client's
// limitation is its library's, as matrixRefusals lists it for the
// matrix's reader of the same library; liveMatrixRefusals adds what the
// transport changes.

// liveMatrixReader is the matrix's reader of each live client's library.
var liveMatrixReader = map[string]string{
	"zarr3-fsspec-key": "zarr-python", "zarr3-obstore-key": "zarr-python", "zarr3-obstore-s3": "zarr-python",
	"tensorstore-http-key": "tensorstore", "tensorstore-s3": "tensorstore",
	"zarrs-fsspec-key": "zarrs", "zarrs-obstore-key": "zarrs", "zarrs-obstore-s3": "zarrs",
}

// liveMatrixRefusals are refusals of the live clients whose name begins
// with Reader, checked before matrixRefusals. The matrix lists zarrs'
// v2 limitations for zarrgw's writes only (its zarrs reader reads
// nothing else); the live clients read the foreign writers' arrays.
var liveMatrixRefusals = []refusal{
	{"", "zarrs-", "order:F", "zarrs pipeline 0.2.3: v2 order F, some types (\"input array must be a C contiguous array\")", sometimes},
	{"", "zarrs-", "endian:big+format:2", "zarrs pipeline 0.2.3: v2 big-endian, some types (\"Non-native byte order not supported\")", sometimes},
}

// notRefusedLive are the features by writer whose matrix refusals do not
// hold for the writer's own arrays: zarr-python 3.1.6 writes a v3 struct
// under the older name "structured", which it reads.
var notRefusedLive = map[string][]string{"zarr-python": {"dtype:struct+format:3"}}

// findLiveRefusal is the refusal a client's read of an array falls under:
// a live one first, then the matrix's for the client's library.
func findLiveRefusal(client, writer string, features []string) *refusal {
	for i, r := range liveMatrixRefusals {
		if strings.HasPrefix(client, r.Reader) && (r.Writer == "" || r.Writer == writer) && slices.Contains(features, r.Feature) {
			return &liveMatrixRefusals[i]
		}
	}
	features = slices.DeleteFunc(slices.Clone(features), func(f string) bool { return slices.Contains(notRefusedLive[writer], f) })
	return findRefusal(writer, liveMatrixReader[client], features)
}

// liveMatrixEntry is a matrix entry as py/live.py reads it: its path in
// the served directory, and zarr_format as the live readers take it.
type liveMatrixEntry struct {
	*matrixEntry
	ZarrFormat int `json:"zarr_format"`
}

// writeLiveMatrix has zarr-python 3 and tensorstore write the matrix's
// sample under dir/matrix/WRITER, at once, and returns the arrays written
// (those a writer refused are left out: TestMatrix counts them).
func writeLiveMatrix(t *testing.T, py, dir string) []liveMatrixEntry {
	t.Helper()
	writers := []string{"zarr-python", "tensorstore"}
	sets := make([]*matrixSet, len(writers))
	errs := make([]error, len(writers))
	var wg sync.WaitGroup
	for i, w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sets[i], errs[i] = writeForeign(py, w, filepath.Join(dir, "matrix", w), "--sample")
		}()
	}
	wg.Wait()
	var out []liveMatrixEntry
	for i, s := range sets {
		if errs[i] != nil {
			t.Fatalf("the matrix's sample: %v", errs[i])
		}
		refused := 0
		for _, e := range s.arrays {
			if e.Error != "" {
				refused++
				continue
			}
			c := *e
			c.Path = "matrix/" + s.writer + "/" + e.Path
			out = append(out, liveMatrixEntry{&c, c.Format})
		}
		t.Logf("the matrix's sample: %s wrote %d arrays (%d refused by the writer)", s.name, len(s.arrays)-refused, refused)
	}
	return out
}

// corruptMatrixChunk flips every byte of the first stored chunk of the
// sample's first uncompressed numeric array, and returns its path.
func corruptMatrixChunk(t *testing.T, dir string, sample []liveMatrixEntry) string {
	t.Helper()
	for _, e := range sample {
		if (e.Chain != "bytes" && e.Chain != "none") || (e.Formula.Kind != "int" && e.Formula.Kind != "float") || e.Writer != "zarr-python" {
			continue
		}
		var chunk string
		root := filepath.Join(dir, filepath.FromSlash(e.Path))
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			switch {
			case err != nil || chunk != "":
				return err
			case !d.IsDir() && !slices.Contains([]string{"zarr.json", ".zarray", ".zattrs", ".zgroup"}, d.Name()):
				chunk = p
			}
			return nil
		})
		if err != nil || chunk == "" {
			t.Fatalf("no chunk of %s to corrupt: %v", e.Path, err)
		}
		corruptFile(t, chunk)
		return e.Path
	}
	t.Fatal("the matrix's sample has no uncompressed numeric array of zarr-python's to corrupt")
	return ""
}

// checkLiveMatrix counts a client's reads of the matrix's sample like a
// cell of the matrix, prints its line and fails on every array neither
// exact nor a listed refusal, and on the corrupted one read exactly.
func checkLiveMatrix(t *testing.T, client string, sample []liveMatrixEntry, corrupt string, results []liveResult) {
	t.Helper()
	byPath := map[string]liveResult{}
	for _, r := range results {
		byPath[r.Path] = r
	}
	c := newCell("", client)
	wrong, fellBack := 0, 0
	corrupted := ""
	for _, e := range sample {
		r, ok := byPath[e.Path]
		if !ok {
			c.failures = append(c.failures, fmt.Sprintf("%s: no result (%.300s)", e.Path, byPath[""].Detail))
			continue
		}
		if e.Path == corrupt {
			if r.Status == "exact" {
				c.failures = append(c.failures, fmt.Sprintf("%s read the formula's values from %s, whose chunk was corrupted on disk: the comparison cannot fail", client, corrupt))
			}
			corrupted = r.Status
			continue
		}
		ref := findLiveRefusal(client, e.Writer, e.Features)
		if r.Status == "differs" && (ref == nil || ref.How == fails) {
			wrong++
		}
		if r.Status == "exact" && r.Detail != "" {
			fellBack++ // py/live.py names zarrs-python's refusal
		}
		c.recordAgainst(ref, e.matrixEntry, r.Status == "exact", r.Status == "differs", r.Status+": "+r.Detail)
	}
	refused, byFeature := c.refusals()
	line := fmt.Sprintf("interop live matrix %s: %d exact, %d refused%s, %d wrong, %d failed", client, c.exact, refused, byFeature, wrong, len(c.failures))
	if fellBack > 0 {
		line += fmt.Sprintf("; %d of the exact read by zarr-python's own pipeline (not supported by zarrs-python)", fellBack)
	}
	fmt.Printf("%s; the corrupted chunk: %s\n", line, corrupted)
	for _, f := range c.failures {
		t.Errorf("%s, the matrix's sample through the gateway: %s", client, firstLine(f, 400))
	}
	if c.exact == 0 {
		t.Errorf("%s read none of the matrix's sample exactly", client)
	}
}

// liveMatrixWrite is an array of the matrix's sample a client writes
// through the gateway, at its path under written-matrix/CLIENT.
type liveMatrixWrite struct {
	liveMatrixEntry
	Client string `json:"client"`
}

// liveMatrixWriters are the clients that write through the gateway (see
// liveWrites), the writer of the sample arrays each writes again, and
// their data types (the first sample array of each; "last" its last, for
// another format or codec chain). The obstore HTTP client writes into
// arrays whose metadata is already there (object_store's HttpStore has
// no create-only put).
var liveMatrixWriters = []struct {
	client, writer string
	last           bool
	dtypes         []string
}{
	{"zarr3-fsspec-key", "zarr-python", false, []string{"int16", "float64", "string", "complex128", "datetime64[ns]"}},
	{"zarr3-obstore-s3", "zarr-python", true, []string{"int16", "float64", "string", "complex128", "datetime64[ns]"}},
	{"zarr3-obstore-key", "zarr-python", false, []string{"uint16", "float32", "bool"}},
	{"zarrs-obstore-s3", "zarr-python", false, []string{"int32", "float32", "uint8"}},
	{"tensorstore-s3", "tensorstore", false, []string{"int64", "float16", "bfloat16", "complex64"}},
}

// liveMatrixWrites picks the arrays of the sample each writing client
// writes again, and puts in place the metadata of those the obstore HTTP
// client writes into (copied from the sample's array in dir).
func liveMatrixWrites(t *testing.T, dir string, sample []liveMatrixEntry) []liveMatrixWrite {
	t.Helper()
	var out []liveMatrixWrite
	for _, w := range liveMatrixWriters {
		for _, d := range w.dtypes {
			var pick *liveMatrixEntry
			for i, e := range sample {
				if e.Writer == w.writer && e.DTypeName == d && (pick == nil || w.last) {
					pick = &sample[i]
				}
			}
			if pick == nil {
				t.Fatalf("the matrix's sample has no %s array of %s for %s to write", d, w.writer, w.client)
			}
			c := *pick.matrixEntry
			c.Path = "written-matrix/" + w.client + "/" + strings.TrimPrefix(pick.Path, "matrix/")
			if w.client == "zarr3-obstore-key" {
				copyMetadata(t, filepath.Join(dir, filepath.FromSlash(pick.Path)), filepath.Join(dir, filepath.FromSlash(c.Path)))
			}
			out = append(out, liveMatrixWrite{liveMatrixEntry{&c, c.Format}, w.client})
		}
	}
	return out
}

// copyMetadata copies an array's metadata documents (no chunk) from one
// directory to another.
func copyMetadata(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	copied := 0
	for _, name := range []string{"zarr.json", ".zarray", ".zattrs"} {
		b, err := os.ReadFile(filepath.Join(from, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(to, name), b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
		copied++
	}
	if copied == 0 {
		t.Fatalf("no metadata document in %s", from)
	}
}

// checkLiveMatrixWrites reads every array the clients wrote through the
// gateway with zarrgw (from the served directory, in process) against
// the matrix's values, fill included, and prints a line per client.
func checkLiveMatrixWrites(t *testing.T, dir string, writes []liveMatrixWrite, results []struct{ Client, Path, Error string }) {
	t.Helper()
	s, err := fsstore.New(dir, fsstore.WithDirSync(false))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	refs := make([]liveWriteRef, len(writes))
	for i, w := range writes {
		refs[i] = liveWriteRef{Client: w.Client, Path: w.Path}
	}
	clients, exact, _ := tallyLiveWrites(t, refs, results, func(i int) error {
		_, _, err := readExact(context.Background(), s, writes[i].matrixEntry)
		return err
	})
	for _, c := range clients {
		fmt.Printf("interop live matrix write %s: %d arrays of the matrix zarrgw reads back exactly\n", c, exact[c])
	}
}
