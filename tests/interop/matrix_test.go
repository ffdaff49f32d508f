package interop

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
	zbinary "github.com/zarrgw/zarrgw/tests/support/binary"
	"github.com/zarrgw/zarrgw/tests/support/pyenv"
)

// matrixTimeout bounds one writer or reader process over the whole matrix.
const matrixTimeout = 8 * time.Minute

// matrixEntry is one array of the matrix as py/matrix_write.py records it.
type matrixEntry struct {
	Writer      string          `json:"writer"`
	Path        string          `json:"path"`
	Format      int             `json:"format"`
	DTypeName   string          `json:"dtype_name"`
	DType       json.RawMessage `json:"dtype"`
	Formula     formula         `json:"formula"`
	Fill        json.RawMessage `json:"fill"`
	Shape       []int           `json:"shape"`
	Chunks      []int           `json:"chunks"`
	Inner       []int           `json:"inner,omitempty"` // a sharded chain's inner chunks
	WrittenRows int             `json:"written_rows"`
	Chain       string          `json:"chain"`
	Grid        string          `json:"grid"`
	Keys        string          `json:"keys"`
	Features    []string        `json:"features"`
	Error       string          `json:"error,omitempty"`

	// For the readers' manifests.
	ID   string `json:"id,omitempty"`
	Root string `json:"root,omitempty"`
}

// matrixSet is what one writer wrote: where, and its manifest.
type matrixSet struct {
	writer string // "zarr-python", "tensorstore", "zarrgw", "zarrgw-cp", "zarrgw-cli"
	name   string // the writer with its version, as it reports itself
	root   string
	arrays []*matrixEntry
}

// cell counts the outcomes of one writer -> reader pair.
type cell struct {
	writer, reader string
	from           string // a writer's source, e.g. " (from tensorstore)"
	exact          int
	refused        map[string]int // by the feature a refusal names
	failures       []string
}

func newCell(writer, reader string) *cell {
	return &cell{writer: writer, reader: reader, refused: map[string]int{}}
}

// record files one array's outcome: exact (ok), or failed with err, or
// wrong values (wrong). A refusal listed for one of the array's features
// must fail, and never with wrong values from zarrgw; a listed refusal
// that succeeds is a failure too (the list must shrink).
func (c *cell) record(e *matrixEntry, ok bool, wrong bool, detail string) {
	c.recordAgainst(findRefusal(c.writer, c.reader, e.Features), e, ok, wrong, detail)
}

// recordAgainst is record with the refusal (or nil) the array falls under.
func (c *cell) recordAgainst(r *refusal, e *matrixEntry, ok bool, wrong bool, detail string) {
	switch {
	case ok && r == nil:
		c.exact++
	case ok && r.How == sometimes:
		c.exact++
	case ok:
		c.failures = append(c.failures, fmt.Sprintf("%s: exact, but listed as refused for %s (%s): remove the refusal", e.Path, r.Feature, r.Reason))
	case r == nil:
		c.failures = append(c.failures, fmt.Sprintf("%s: %s", e.Path, detail))
	case wrong && r.How == fails:
		c.failures = append(c.failures, fmt.Sprintf("%s: wrong values (refused for %s, which must be an error): %s", e.Path, r.Feature, detail))
	default:
		c.refused[r.Feature]++
	}
}

// refusals counts the cell's refusals, and names them by feature: " (dtype:struct
// 8, ...)", or "" when there are none.
func (c *cell) refusals() (int, string) {
	refused := 0
	var byFeature []string
	for f, n := range c.refused {
		refused += n
		byFeature = append(byFeature, fmt.Sprintf("%s %d", f, n))
	}
	if refused == 0 {
		return 0, ""
	}
	sort.Strings(byFeature)
	return refused, " (" + strings.Join(byFeature, ", ") + ")"
}

// summary prints the cell's line, e.g. "interop matrix zarr-python->zarrgw:
// 512 exact, 40 refused (dtype:struct 8, ...), 0 wrong", and fails the test
// with the failures.
func (c *cell) summary(t *testing.T) {
	t.Helper()
	refused, byFeature := c.refusals()
	line := fmt.Sprintf("interop matrix %s->%s: %d exact, %d refused%s", c.writer, c.reader, c.exact, refused, byFeature)
	if c.reader == "writes" {
		line = fmt.Sprintf("interop matrix %s writes%s: %d written, %d refused%s", c.writer, c.from, c.exact, refused, byFeature)
	}
	line += fmt.Sprintf(", %d failed", len(c.failures))
	fmt.Println(line)
	for _, f := range c.failures {
		t.Logf("FAIL %s->%s %s", c.writer, c.reader, firstLine(f, 300))
	}
	if len(c.failures) > 0 {
		shown := c.failures[:min(len(c.failures), 10)]
		for i, f := range shown {
			shown[i] = firstLine(f, 300)
		}
		t.Errorf("%s->%s: %d failures:\n  %s", c.writer, c.reader, len(c.failures), strings.Join(shown, "\n  "))
	}
	if c.exact == 0 {
		t.Errorf("%s->%s: no array exact", c.writer, c.reader)
	}
}

// runMatrixScript runs a script of py/ and returns what it printed.
func runMatrixScript(python string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), matrixTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, args...)
	cmd.Dir = "py"
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s %s: %w\nstderr:\n%s", python, strings.Join(args, " "), err, tail(stderr.String(), 3000))
	}
	return stdout.Bytes(), nil
}

// firstLine is s's first line, cut to n bytes.
func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > n {
		s = s[:n] + "..."
	}
	return s
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// writeForeign runs py/matrix_write.py for one writer into root (args:
// its options, e.g. --sample).
func writeForeign(python, writer, root string, args ...string) (*matrixSet, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	out, err := runMatrixScript(python, append([]string{"matrix_write.py", writer, root}, args...)...)
	if err != nil {
		return nil, err
	}
	var m struct {
		Writer string         `json:"writer"`
		Arrays []*matrixEntry `json:"arrays"`
	}
	if err := json.Unmarshal(out, &m); err != nil {
		return nil, fmt.Errorf("matrix_write.py %s: output is not JSON: %w", writer, err)
	}
	return &matrixSet{writer: writer, name: m.Writer, root: root, arrays: m.Arrays}, nil
}

// TestMatrix is the interoperability matrix: zarr-python 3 and
// tensorstore write arrays over the product of data types, codec chains,
// grids, chunk key encodings and formats (py/matrix_write.py), and zarrgw
// reads every one; zarrgw writes the same arrays again (in process, with
// `zarrgw create` + `write` for a sample, and with `zarrgw cp` from each
// source), and zarr-python 3, the zarrs pipeline, tensorstore and Debian's
// zarr-python 2 (v2 arrays) read what it wrote. Every side computes the
// elements from the shared formula. Each writer -> reader cell prints its
// counts; every array is exact or a refusal matrixRefusals lists.
func TestMatrix(t *testing.T) {
	py := pyenv.Python(t, "zarr", "zarrs", "tensorstore", "numpy", "ml_dtypes")
	requirePython(t)
	zarrgw := zarrgwBinary
	started := time.Now()
	dir := t.TempDir()
	ctx := context.Background()

	// The foreign writers, at once.
	foreign := make([]*matrixSet, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, w := range []string{"zarr-python", "tensorstore"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			foreign[i], errs[i] = writeForeign(py, w, filepath.Join(dir, w))
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	for _, fs := range foreign {
		checkCoverage(t, fs)
	}
	written := time.Now()

	// zarrgw reads each set in process, keeps what it read exactly, and
	// writes it again as an array of the same metadata.
	mirror := &matrixSet{writer: "zarrgw", name: "zarrgw", root: filepath.Join(dir, "zarrgw")}
	cli := &matrixSet{writer: "zarrgw-cli", name: "zarrgw create + write", root: filepath.Join(dir, "zarrgw-cli")}
	var samples []cliSample
	sampled := map[string]bool{}
	for _, fs := range foreign {
		writerCell := newCell(fs.writer, "writes")
		readCell := newCell(fs.writer, "zarrgw")
		writeCell := newCell("zarrgw", "writes")
		src, err := fsstore.New(fs.root, fsstore.WithDirSync(false))
		if err != nil {
			t.Fatal(err)
		}
		dst, err := fsstore.New(mirror.root, fsstore.WithDirSync(false))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range fs.arrays {
			writerCell.record(e, e.Error == "", false, "the writer failed: "+e.Error)
			if e.Error != "" {
				continue
			}
			a, data, err := readExact(ctx, src, e)
			var wrong *wrongValues
			readCell.record(e, err == nil, errors.As(err, &wrong), errString(err))
			if err != nil {
				continue
			}
			m := *a.Meta()
			m.Attributes = nil
			path := fs.writer + "/" + e.Path
			err = writeRows(ctx, dst, path, &m, data, e.WrittenRows)
			writeCell.record(e, err == nil, false, errString(err))
			if key := fs.writer + "/" + e.Chain; err == nil && !sampled[key] && cliCanCreate(e) {
				sampled[key] = true
				samples = append(samples, cliSample{fs, e, data})
			}
			if err == nil {
				c := *e
				c.Path = path
				mirror.arrays = append(mirror.arrays, &c)
			}
		}
		src.Close()
		dst.Close()
		writerCell.summaryWriter(t, fs.name, "")
		readCell.summary(t)
		writeCell.summaryWriter(t, "zarrgw in process", fs.writer)
	}
	createWithCLI(t, zarrgw, samples, cli)
	mirrored := time.Now()

	// zarrgw cp from each foreign source, rewritten as v3: the real binary
	// reads every foreign array, and the readers check what it wrote.
	copies := &matrixSet{writer: "zarrgw-cp", name: "zarrgw cp", root: filepath.Join(dir, "zarrgw-cp")}
	for _, fs := range foreign {
		copyForeign(t, zarrgw, fs, copies)
	}
	copied := time.Now()

	readBack(t, py, []*matrixSet{mirror, cli, copies})
	t.Logf("matrix: %d arrays written by zarr-python, %d by tensorstore, %d by zarrgw (%d of them again by zarrgw create + write), %d copied by zarrgw cp; foreign writers %v, zarrgw reads and writes %v, cp %v, readers %v, in all %v",
		len(foreign[0].arrays), len(foreign[1].arrays), len(mirror.arrays), len(cli.arrays), len(copies.arrays),
		written.Sub(started).Round(time.Second), mirrored.Sub(written).Round(time.Second), copied.Sub(mirrored).Round(time.Second),
		time.Since(copied).Round(time.Second), time.Since(started).Round(time.Second))
}

// cliSample is a foreign array zarrgw read exactly, to write again with
// the zarrgw command.
type cliSample struct {
	fs   *matrixSet
	e    *matrixEntry
	data *ndarray.Array
}

// cliCanCreate reports whether `zarrgw create` can make e's array: a v3
// array of a type its --dtype names, with the default chunk key encoding.
func cliCanCreate(e *matrixEntry) bool {
	switch e.Formula.Kind {
	case "bool", "int", "uint", "float", "complex":
	default:
		return false
	}
	return e.Format == 3 && e.Keys == "default/" && !strings.Contains(e.DTypeName, "float8") && e.DTypeName != "bfloat16" && e.DTypeName != "int4"
}

// createWithCLI writes each sample again with `zarrgw create` (the data
// type, codecs and fill value of the foreign zarr.json) and `zarrgw write
// --format raw` (its written rows, little-endian), one array per codec
// chain and writer. What it wrote joins cli; a failure is a failure of the
// cell "zarrgw-cli writes".
func createWithCLI(t *testing.T, zarrgw string, samples []cliSample, cli *matrixSet) {
	t.Helper()
	c := newCell("zarrgw-cli", "writes")
	for _, s := range samples {
		path := s.fs.writer + "/" + s.e.Path
		err := createOne(t, zarrgw, s, cli.root, path)
		c.record(s.e, err == nil, false, errString(err))
		if err == nil {
			ce := *s.e
			ce.Path = path
			cli.arrays = append(cli.arrays, &ce)
		}
	}
	c.summaryWriter(t, cli.name, "")
}

func createOne(t *testing.T, zarrgw string, s cliSample, root, path string) error {
	doc, err := os.ReadFile(filepath.Join(s.fs.root, filepath.FromSlash(s.e.Path), "zarr.json"))
	if err != nil {
		return err
	}
	var m struct {
		DataType  string          `json:"data_type"`
		Codecs    json.RawMessage `json:"codecs"`
		FillValue json.RawMessage `json:"fill_value"`
	}
	if err := json.Unmarshal(doc, &m); err != nil {
		return fmt.Errorf("%s: %w", s.e.Path, err)
	}
	raw := filepath.Join(t.TempDir(), "rows.raw")
	rows := sliceRows(s.data, s.e.WrittenRows)
	if err := os.WriteFile(raw, rows.Data, 0o644); err != nil {
		return err
	}
	ints := func(v []int) string {
		parts := make([]string, len(v))
		for i, n := range v {
			parts[i] = strconv.Itoa(n)
		}
		return strings.Join(parts, ",")
	}
	sel := fmt.Sprintf("0:%d", s.e.WrittenRows)
	for _, args := range [][]string{
		{"create", root, "--path", path, "--shape", ints(s.e.Shape), "--chunks", ints(s.e.Chunks), "--dtype", m.DataType,
			"--codecs", string(m.Codecs), "--fill-value", string(m.FillValue)},
		{"write", root, "--path", path, "--format", "raw", "--slice", sel, "--from", raw},
	} {
		if out, errOut, code := zbinary.Run(t, exec.Command(zarrgw, args...)); code != 0 {
			return fmt.Errorf("zarrgw %s: exit %d: %s", args[0], code, firstLine(strings.TrimSpace(out+errOut), 400))
		}
	}
	return nil
}

// copyForeign copies a foreign set with `zarrgw cp --to-format 3`, one
// run per format's top group, or, when that run is refused, one per data
// type below it (a type zarrgw refuses fails only its own arrays). The
// arrays copied join copies; a failed copy counts in the cell
// "zarrgw-cp->writes".
func copyForeign(t *testing.T, zarrgw string, fs *matrixSet, copies *matrixSet) {
	t.Helper()
	if err := makeGroups(fs); err != nil {
		t.Fatalf("groups above the arrays of %s: %v", fs.writer, err)
	}
	c := newCell("zarrgw-cp", "writes")
	// Each copy has a destination of its own: copies at once never share
	// the groups above their node.
	dest := func(path string) string {
		return filepath.Join(copies.root, fs.writer, strings.ReplaceAll(path, "/", "_"))
	}
	cp := func(path string) error {
		out, err := exec.Command(zarrgw, "cp", fs.root, dest(path), "--path", path, "--to-format", "3", "-q").CombinedOutput()
		if err != nil {
			return fmt.Errorf("zarrgw cp --path %s: %w: %s", path, err, strings.TrimSpace(tail(string(out), 600)))
		}
		return nil
	}
	copied := map[string]error{} // by "format/dtype" group
	root := map[string]string{}  // where each group's copy is
	for _, top := range []string{"v3", "v2"} {
		var groups []string
		for _, e := range fs.arrays {
			if g := groupOf(e); strings.HasPrefix(g, top+"/") && !slices.Contains(groups, g) {
				groups = append(groups, g)
			}
		}
		if err := cp(top); err == nil {
			for _, g := range groups {
				copied[g], root[g] = nil, dest(top)
			}
			continue
		}
		// One copy per data type, a few at once (each is mostly start-up).
		errs := make([]error, len(groups))
		var wg sync.WaitGroup
		sem := make(chan struct{}, 4)
		for i, g := range groups {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				errs[i] = cp(g)
			}()
		}
		wg.Wait()
		for i, g := range groups {
			copied[g], root[g] = errs[i], dest(g)
		}
	}
	for _, e := range fs.arrays {
		if e.Error != "" {
			continue
		}
		err, ok := copied[groupOf(e)]
		if !ok {
			err = errors.New("not copied")
		}
		c.record(e, err == nil, false, errString(err))
		if err == nil {
			ce := *e
			ce.Root = root[groupOf(e)]
			copies.arrays = append(copies.arrays, &ce)
		}
	}
	c.summaryWriter(t, "zarrgw cp", fs.writer)
}

// groupOf is the group of an array's data type: "v3/int8".
func groupOf(e *matrixEntry) string {
	parts := strings.SplitN(e.Path, "/", 3)
	return parts[0] + "/" + parts[1]
}

// makeGroups writes the groups above the arrays where the writer wrote
// none (tensorstore writes arrays only), each of its arrays' format, so
// that cp finds a hierarchy.
func makeGroups(fs *matrixSet) error {
	s, err := fsstore.New(fs.root, fsstore.WithDirSync(false))
	if err != nil {
		return err
	}
	defer s.Close()
	ctx := context.Background()
	done := map[string]bool{}
	for _, e := range fs.arrays {
		if e.Error != "" {
			continue
		}
		parent := e.Path[:strings.LastIndex(e.Path, "/")]
		if done[parent] {
			continue
		}
		done[parent] = true
		if _, err := hierarchy.Open(ctx, s, parent); err == nil {
			continue
		}
		f := meta.V3
		if e.Format == 2 {
			f = meta.V2
		}
		if _, err := hierarchy.CreateGroup(ctx, s, parent, f, nil); err != nil {
			return fmt.Errorf("group %s: %w", parent, err)
		}
	}
	return nil
}

// minArrays is the fewest arrays a foreign writer's matrix may hold: the
// pruning keeps every pair of axis values, which takes hundreds.
var minArrays = map[string]int{"zarr-python": 500, "tensorstore": 200}

// checkCoverage fails when a writer's matrix shrank below its floor, and
// logs how many values of each axis it holds.
func checkCoverage(t *testing.T, fs *matrixSet) {
	t.Helper()
	axes := map[string]map[string]bool{"format": {}, "dtype": {}, "chain": {}, "grid": {}, "keys": {}}
	for _, e := range fs.arrays {
		axes["format"][strconv.Itoa(e.Format)] = true
		axes["dtype"][e.DTypeName] = true
		axes["chain"][fmt.Sprintf("v%d:%s", e.Format, e.Chain)] = true
		axes["grid"][e.Grid] = true
		axes["keys"][e.Keys] = true
	}
	t.Logf("%s: %d arrays over %d formats, %d data types, %d codec chains, %d grids, %d chunk key encodings", fs.name, len(fs.arrays),
		len(axes["format"]), len(axes["dtype"]), len(axes["chain"]), len(axes["grid"]), len(axes["keys"]))
	if n := minArrays[fs.writer]; len(fs.arrays) < n {
		t.Errorf("%s wrote %d arrays, fewer than the %d the matrix must hold", fs.writer, len(fs.arrays), n)
	}
}

// summaryWriter prints a writer's line: what it wrote and refused.
func (c *cell) summaryWriter(t *testing.T, name, from string) {
	t.Helper()
	t.Logf("writer: %s", name)
	if from != "" {
		c.from = " (from " + from + ")"
	}
	c.summary(t)
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// readBack has every foreign reader read what zarrgw wrote, one process
// per reader over all sets, and prints a cell per set and reader.
func readBack(t *testing.T, py string, sets []*matrixSet) {
	t.Helper()
	readers := []struct{ name, python string }{
		{"zarr-python", py}, {"zarrs", py}, {"tensorstore", py}, {"zarr-python-2", python},
	}
	byID := map[string]*matrixEntry{}
	var all, v2 []*matrixEntry
	for _, s := range sets {
		for i, e := range s.arrays {
			e.ID = fmt.Sprintf("%s#%d", s.writer, i)
			if e.Root == "" {
				e.Root = s.root
			}
			byID[e.ID] = e
			all = append(all, e)
			if e.Format == 2 && s.writer == "zarrgw" {
				v2 = append(v2, e)
			}
		}
	}
	type result struct {
		ID     string `json:"id"`
		Result string `json:"result"`
		Detail string `json:"detail"`
	}
	outs := make([][]result, len(readers))
	errs := make([]error, len(readers))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for k, r := range readers {
		arrays := all
		if r.name == "zarr-python-2" {
			arrays = v2
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			mf := filepath.Join(t.TempDir(), "manifest.json")
			b, err := json.Marshal(map[string]any{"arrays": arrays})
			if err == nil {
				err = os.WriteFile(mf, b, 0o644)
			}
			if err != nil {
				errs[k] = err
				return
			}
			out, err := runMatrixScript(r.python, "matrix_read.py", r.name, mf)
			if err != nil {
				errs[k] = err
				return
			}
			var res struct {
				Results []result `json:"results"`
			}
			if err := json.Unmarshal(out, &res); err != nil {
				errs[k] = fmt.Errorf("matrix_read.py %s: output is not JSON: %w", r.name, err)
				return
			}
			outs[k] = res.Results
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	for k, r := range readers {
		cells := map[string]*cell{}
		seen := map[string]bool{}
		for _, s := range sets {
			cells[s.writer] = newCell(s.writer, r.name)
		}
		for _, res := range outs[k] {
			e := byID[res.ID]
			if e == nil {
				t.Errorf("%s reported an array not in its manifest: %q", r.name, res.ID)
				continue
			}
			seen[res.ID] = true
			writer, _, _ := strings.Cut(res.ID, "#")
			cells[writer].record(e, res.Result == "exact", res.Result == "wrong", res.Result+": "+res.Detail)
		}
		for _, s := range sets {
			c := cells[s.writer]
			for _, e := range s.arrays {
				if !seen[e.ID] && (r.name != "zarr-python-2" || (e.Format == 2 && s.writer == "zarrgw")) {
					c.failures = append(c.failures, fmt.Sprintf("%s: %s reported nothing", e.Path, r.name))
				}
			}
			if r.name == "zarr-python-2" && s.writer != "zarrgw" {
				continue // cp writes v3, which zarr-python 2 does not read
			}
			c.summary(t)
		}
	}
}

// wrongValues is a read that returned elements other than the formula's.
type wrongValues struct{ detail string }

func (w *wrongValues) Error() string { return w.detail }

// readExact opens e's array with zarrgw and compares every element with
// the formula (rows from WrittenRows on hold the fill value).
func readExact(ctx context.Context, s *fsstore.Store, e *matrixEntry) (*array.Array, *ndarray.Array, error) {
	a, err := hierarchy.OpenArray(ctx, s, e.Path, options())
	if err != nil {
		return nil, nil, fmt.Errorf("open: %w", err)
	}
	if m := a.Meta(); !sameInts(m.Shape, e.Shape) {
		return nil, nil, &wrongValues{fmt.Sprintf("shape %v, want %v", m.Shape, e.Shape)}
	}
	data, err := a.ReadAll(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("read: %w", err)
	}
	fill, err := e.fillValue()
	if err != nil {
		return nil, nil, err
	}
	if err := diffWritten(data, e.Shape, e.WrittenRows, fill, e.Formula, sameElement); err != nil {
		return nil, nil, &wrongValues{err.Error()}
	}
	return a, data, nil
}

// writeRows creates the array m describes at path in s and writes the
// first rows of data (the rest stays fill, its chunks unwritten).
func writeRows(ctx context.Context, s *fsstore.Store, path string, m *meta.ArrayMeta, data *ndarray.Array, rows int) error {
	a, err := hierarchy.CreateArray(ctx, s, path, m, options())
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	start := make([]int, len(m.Shape))
	count := append([]int{rows}, m.Shape[1:]...)
	if err := a.Write(ctx, grid.Box(start, count), sliceRows(data, rows)); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

// fillValue parses the manifest's fill value as ndarray.At returns it.
func (e *matrixEntry) fillValue() (any, error) {
	return parseMatrixScalar(e.Formula, e.Fill)
}

func parseMatrixScalar(f formula, raw json.RawMessage) (any, error) {
	var s string
	switch f.Kind {
	case "bool":
		var b bool
		err := json.Unmarshal(raw, &b)
		return b, err
	case "struct":
		var parts []json.RawMessage
		if err := json.Unmarshal(raw, &parts); err != nil || len(parts) != len(f.Fields) {
			return nil, fmt.Errorf("struct fill %s: %v", raw, err)
		}
		out := map[string]any{}
		for k, fd := range f.Fields {
			v, err := parseMatrixScalar(fd, parts[k])
			if err != nil {
				return nil, err
			}
			out[fd.Name] = v
		}
		return out, nil
	case "complex":
		var parts [2]string
		if err := json.Unmarshal(raw, &parts); err != nil {
			return nil, fmt.Errorf("complex fill %s: %w", raw, err)
		}
		re, err1 := strconv.ParseFloat(parts[0], 64)
		im, err2 := strconv.ParseFloat(parts[1], 64)
		return complex(re, im), errors.Join(err1, err2)
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("fill %s: %w", raw, err)
	}
	switch f.Kind {
	case "int":
		return strconv.ParseInt(s, 10, 64)
	case "uint":
		return strconv.ParseUint(s, 10, 64)
	case "float":
		return strconv.ParseFloat(s, 64)
	case "datetime", "timedelta":
		if s == "NaT" {
			return int64(math.MinInt64), nil
		}
		return strconv.ParseInt(s, 10, 64)
	case "raw":
		return hex.DecodeString(s)
	case "bytes", "vbytes":
		b, err := hex.DecodeString(s)
		return string(b), err
	}
	return s, nil
}

// sameElement compares a formula's element with what ndarray.At returned:
// floats by meaning bit for bit (NaN equals NaN, -0 differs from 0),
// integers and floats of any Go width, byte slices by content, structs
// field by field.
func sameElement(want, got any) bool {
	switch w := want.(type) {
	case float64:
		g, ok := asFloat(got)
		return ok && sameValue(w, g)
	case complex128:
		g, ok := got.(complex128)
		if c64, is := got.(complex64); is {
			g, ok = complex128(c64), true
		}
		return ok && sameValue(real(w), real(g)) && sameValue(imag(w), imag(g))
	case int64:
		v := reflect.ValueOf(got)
		return v.CanInt() && v.Int() == w
	case uint64:
		v := reflect.ValueOf(got)
		return v.CanUint() && v.Uint() == w
	case []byte:
		g, ok := got.([]byte)
		return ok && bytes.Equal(w, g)
	case map[string]any:
		g, ok := got.(map[string]any)
		if r, is := got.(ndarray.Record); is {
			g, ok = recordMap(r), true
		}
		if !ok || len(g) != len(w) {
			return false
		}
		for k, v := range w {
			if !sameElement(v, g[k]) {
				return false
			}
		}
		return true
	}
	return want == got
}

// recordMap is a struct element's fields by name (ndarray.At keeps them in
// order, the formula by name).
func recordMap(r ndarray.Record) map[string]any {
	m := make(map[string]any, len(r))
	for _, f := range r {
		m[f.Name] = f.Value
	}
	return m
}

func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	}
	return 0, false
}

// sliceRows is the first rows rows of a, sharing nothing with it.
func sliceRows(a *ndarray.Array, rows int) *ndarray.Array {
	shape := append([]int{rows}, a.Shape[1:]...)
	out := ndarray.New(a.DType, shape)
	n := numElements(shape)
	if a.DType.Variable() {
		copy(out.Strings, a.Strings[:n])
	} else {
		copy(out.Data, a.Data[:n*a.DType.Size])
	}
	return out
}
