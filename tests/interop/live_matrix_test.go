package interop

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
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
	refused := 0
	var byFeature []string
	for f, n := range c.refused {
		refused += n
		byFeature = append(byFeature, fmt.Sprintf("%s %d", f, n))
	}
	sort.Strings(byFeature)
	line := fmt.Sprintf("interop live matrix %s: %d exact, %d refused", client, c.exact, refused)
	if refused > 0 {
		line += " (" + strings.Join(byFeature, ", ") + ")"
	}
	line += fmt.Sprintf(", %d wrong, %d failed", wrong, len(c.failures))
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
