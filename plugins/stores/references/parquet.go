package references

import (
	"bytes"
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/parquet-go/parquet-go"

	"github.com/zarrgw/zarrgw/core/checked"
	"github.com/zarrgw/zarrgw/core/store"
)

// The Parquet form of a reference set (kerchunk's refs_to_dataframe,
// fsspec's LazyReferenceMapper) is a directory:
//
//	.zmetadata               {"metadata": {KEY: JSON, ...}, "record_size": N}
//	ARRAY/refs.I.parq        record file I of ARRAY: columns path, offset,
//	                         size, raw; row J is chunk I*N+J of ARRAY
//
// Chunks are numbered in C order over the array's chunk grid. A row with
// neither path nor raw is a chunk the set does not have; raw holds inline
// bytes; a path with offset 0 and size 0 is the whole file. A record file
// none of whose chunks exist is not written. Record files are read when
// a key in them is, and only a few are kept, so that a set of millions of
// chunks serves in the memory of a few record files.

// DefaultRecordCache is how many record files a Parquet set keeps loaded:
// a read batch walks chunks in C order, so it meets one or two record files
// at a time; a few more serve readers of other places in the array.
const DefaultRecordCache = 4

// maxRecordSize bounds the rows of a record file (fsspec writes 10 000 by
// default, kerchunk's refs_to_dataframe 100 000): the rows of a record are
// held whole, 24 bytes each, and a record file claims its row count.
const maxRecordSize = 1 << 20

// maxRecordFiles bounds the record files of one array: a listing walks
// them all, each a store request even when absent, so an index claiming
// an array of 2^62 chunks must not turn one listing into endless
// requests.
const maxRecordFiles = 1 << 20

// zmetadataKey is the Parquet form's index; it is the set's, not a Zarr
// key (it lacks zarr_consolidated_format), so it is not served.
const zmetadataKey = ".zmetadata"

// Parquet is a reference set in the Parquet form, read a record file at a
// time.
type Parquet struct {
	dir          store.Store
	name         string // the set's location, in errors
	recordSize   int64
	maxBytes     int64             // of the paths and inline values of one record file
	maxFileBytes int64             // of one record file as stored
	meta         map[string][]byte // metadata documents by key
	metaKeys     []string          // sorted
	arrays       map[string]*parquetArray
	arrayNames   []string // sorted

	mu      sync.Mutex
	max     int
	records map[recordID]*list.Element // values *record
	lru     *list.List                 // most recently used first
}

// parquetArray is an array of the set: its chunk grid, for key <-> chunk
// number.
type parquetArray struct {
	path       string
	grid       []int64 // chunks along each dimension; [1] for a scalar
	count      int64   // chunks in all
	sep        string  // dimension_separator
	recordSize int64   // the set's
}

// records is how many record files hold a's chunks.
func (a *parquetArray) records() int64 {
	n := a.count / a.recordSize
	if a.count%a.recordSize != 0 {
		n++
	}
	return n
}

type recordID struct {
	array string
	n     int64
}

// record is one loaded record file: its rows, the target paths and inline
// values they name, and the extents of each path within the file.
type record struct {
	id     recordID
	file   string // key in the set's directory
	ready  chan struct{}
	err    error
	absent bool // no such file: none of its chunks exist
	rows   []recordRow
	paths  []string
	raw    [][]byte

	extOnce sync.Once
	ext     []*Extents // by path index, made when a read batch first asks
}

// recordRow is one row, small: a record of 100 000 rows costs about 2.4
// MB, plus its extents.
type recordRow struct {
	off, size int64
	path      int32 // index in paths; -1 for none
	raw       int32 // index in raw; -1 for none
}

// OpenParquet reads the index (.zmetadata) of the Parquet reference set
// in dir within DefaultLimits (see OpenParquetWithin).
func OpenParquet(ctx context.Context, dir store.Store, name string) (*Parquet, error) {
	return OpenParquetWithin(ctx, dir, name, DefaultLimits)
}

// OpenParquetWithin reads the index (.zmetadata) of the Parquet reference
// set in dir; name is its location, for errors. Record files are read
// from dir when first needed, so dir must stay open as long as the set is
// read; the paths and inline values of one may take limits.Bytes.
func OpenParquetWithin(ctx context.Context, dir store.Store, name string, limits Limits) (*Parquet, error) {
	index, err := readWithin(ctx, dir, zmetadataKey, limits.SetBytes)
	if err != nil {
		return nil, fmt.Errorf("reference set %s (Parquet form): %s: %w", name, zmetadataKey, err)
	}
	meta, clean, recordSize, err := decodeIndex(index)
	if err != nil {
		return nil, fmt.Errorf("reference set %s: %s: %w", name, zmetadataKey, err)
	}
	p := &Parquet{
		dir: dir, name: strings.TrimSuffix(name, "/"), recordSize: recordSize, maxBytes: limits.Bytes, maxFileBytes: limits.SetBytes,
		meta: meta, arrays: map[string]*parquetArray{},
		max: DefaultRecordCache, records: map[recordID]*list.Element{}, lru: list.New(),
	}
	for key := range meta {
		if err := checkKey(key); err != nil {
			return nil, fmt.Errorf("reference set %s: %s: key %q: %w", name, zmetadataKey, key, err)
		}
		if arr, ok := strings.CutSuffix(key, "/.zarray"); ok {
			a, err := parseArray(arr, clean[key], recordSize)
			if err != nil {
				return nil, fmt.Errorf("reference set %s: %s: key %q: %w", name, zmetadataKey, key, err)
			}
			p.arrays[arr] = a
		}
	}
	p.metaKeys = slices.Sorted(maps.Keys(p.meta))
	p.arrayNames = slices.Sorted(maps.Keys(p.arrays))
	return p, nil
}

// RecordCache sets how many record files p keeps loaded (at least 1) and
// returns p.
func (p *Parquet) RecordCache(n int) *Parquet {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.max = max(n, 1)
	p.evict()
	return p
}

// parseArray reads the chunk grid of the array at path from its .zarray,
// refusing a grid of more chunks than record files of recordSize rows
// hold (maxRecordFiles).
func parseArray(path string, zarray []byte, recordSize int64) (*parquetArray, error) {
	var z struct {
		Shape     []int64 `json:"shape"`
		Chunks    []int64 `json:"chunks"`
		Separator *string `json:"dimension_separator"`
	}
	if err := json.Unmarshal(zarray, &z); err != nil {
		return nil, err
	}
	if len(z.Shape) != len(z.Chunks) {
		return nil, fmt.Errorf("shape %v and chunks %v differ in rank", z.Shape, z.Chunks)
	}
	a := &parquetArray{path: path, sep: ".", count: 1, recordSize: recordSize}
	if z.Separator != nil {
		if *z.Separator != "." && *z.Separator != "/" {
			return nil, fmt.Errorf("dimension_separator %q: want \".\" or \"/\"", *z.Separator)
		}
		a.sep = *z.Separator
	}
	for d, s := range z.Shape {
		c := z.Chunks[d]
		if s < 0 || c <= 0 {
			return nil, fmt.Errorf("shape %v, chunks %v: a negative size or a chunk of no size", z.Shape, z.Chunks)
		}
		n := checked.CeilDiv(s, c)
		var ok bool
		if a.count, ok = checked.Mul(a.count, n); !ok {
			return nil, fmt.Errorf("shape %v, chunks %v: too many chunks", z.Shape, z.Chunks)
		}
		a.grid = append(a.grid, n)
	}
	if a.records() > maxRecordFiles {
		return nil, fmt.Errorf("shape %v, chunks %v: %d chunks, more than %d record files of %d rows", z.Shape, z.Chunks, a.count, maxRecordFiles, recordSize)
	}
	if len(a.grid) == 0 { // a scalar: one chunk, key "0", as fsspec's
		a.grid = []int64{1}
	}
	return a, nil
}

// key is the key of chunk n of a.
func (a *parquetArray) key(n int64) string {
	idx := make([]string, len(a.grid))
	for d := len(a.grid) - 1; d >= 0; d-- {
		idx[d] = strconv.FormatInt(n%a.grid[d], 10)
		n /= a.grid[d]
	}
	return a.path + "/" + strings.Join(idx, a.sep)
}

// chunk parses key as a chunk key of one of p's arrays: the array and the
// chunk's number. ok is false for keys that name no chunk of an array.
func (p *Parquet) chunk(key string) (a *parquetArray, n int64, ok bool) {
	for i := strings.LastIndexByte(key, '/'); i > 0; i = strings.LastIndexByte(key[:i], '/') {
		a = p.arrays[key[:i]]
		if a == nil {
			continue
		}
		parts := strings.Split(key[i+1:], a.sep)
		if len(parts) != len(a.grid) {
			return nil, 0, false
		}
		for d, s := range parts {
			c, err := strconv.ParseInt(s, 10, 64)
			if err != nil || c < 0 || c >= a.grid[d] || strconv.FormatInt(c, 10) != s {
				return nil, 0, false
			}
			n = n*a.grid[d] + c
		}
		return a, n, true
	}
	return nil, 0, false
}

func recordFile(array string, i int64) string {
	return fmt.Sprintf("%s/refs.%d.parq", array, i)
}

// Lookup is the Source's: a metadata document, or a chunk's reference
// from its record file (loaded if it is not).
func (p *Parquet) Lookup(ctx context.Context, key string) (Ref, *Extents, bool, error) {
	if d, ok := p.meta[key]; ok {
		return Ref{Data: d}, nil, true, nil
	}
	a, n, ok := p.chunk(key)
	if !ok {
		return Ref{}, nil, false, nil
	}
	rec, err := p.record(ctx, a, n/p.recordSize)
	if err != nil {
		return Ref{}, nil, false, err
	}
	if rec.absent {
		return Ref{}, nil, false, nil
	}
	j := n % p.recordSize
	if j >= int64(len(rec.rows)) {
		return Ref{}, nil, false, fmt.Errorf("record file %s has %d rows, the key is row %d", p.file(rec.file), len(rec.rows), j)
	}
	r, ok := rec.ref(j)
	if !ok {
		return Ref{}, nil, false, nil
	}
	var ext *Extents
	if row := rec.rows[j]; row.raw < 0 && r.Length >= 0 && store.ReadBatchFrom(ctx) != nil {
		ext = rec.extents()[row.path]
	}
	return r, ext, true, nil
}

// file names a record file in errors: with the set's location.
func (p *Parquet) file(key string) string { return p.name + "/" + key }

// ref is row j's reference; ok is false for a missing chunk.
func (rec *record) ref(j int64) (Ref, bool) {
	row := rec.rows[j]
	switch {
	case row.raw >= 0:
		return Ref{Data: rec.raw[row.raw]}, true
	case row.path < 0:
		return Ref{}, false
	case row.off == 0 && row.size == 0: // fsspec's reading of [url]
		return Ref{URL: rec.paths[row.path], Length: -1}, true
	}
	return Ref{URL: rec.paths[row.path], Offset: row.off, Length: row.size}, true
}

// record returns record file i of a, loaded once however many read it at
// once, and kept among the most recently used.
func (p *Parquet) record(ctx context.Context, a *parquetArray, i int64) (*record, error) {
	id := recordID{a.path, i}
	p.mu.Lock()
	if e, ok := p.records[id]; ok {
		p.lru.MoveToFront(e)
		rec := e.Value.(*record)
		p.mu.Unlock()
		select {
		case <-rec.ready:
			return rec, rec.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	rec := &record{id: id, file: recordFile(a.path, i), ready: make(chan struct{})}
	p.records[id] = p.lru.PushFront(rec)
	p.evict()
	p.mu.Unlock()

	// The load serves every reader waiting for it: one that gives up must
	// not fail the others.
	rec.err = p.load(context.WithoutCancel(ctx), a, rec)
	if rec.err != nil {
		rec.rows, rec.paths, rec.raw = nil, nil, nil
		p.mu.Lock()
		if e, ok := p.records[id]; ok && e.Value == rec { // read it again next time
			p.lru.Remove(e)
			delete(p.records, id)
		}
		p.mu.Unlock()
	}
	close(rec.ready)
	return rec, rec.err
}

// evict drops the least recently used records past p.max (their readers
// keep what they hold). p.mu is held.
func (p *Parquet) evict() {
	for p.lru.Len() > p.max {
		e := p.lru.Back()
		p.lru.Remove(e)
		delete(p.records, e.Value.(*record).id)
	}
}

// load reads record file rec of a whole: a record file is small (a few
// MB for 100 000 rows) and its rows are looked up at random.
func (p *Parquet) load(ctx context.Context, a *parquetArray, rec *record) error {
	data, err := readWithin(ctx, p.dir, rec.file, p.maxFileBytes)
	if errors.Is(err, store.ErrNotFound) {
		rec.absent = true // kerchunk writes no file for a record without chunks
		return nil
	}
	if err != nil {
		return fmt.Errorf("record file %s: %w", p.file(rec.file), err)
	}
	if err := rec.parse(data, p.recordSize, rec.id.n*p.recordSize, a, p.maxBytes); err != nil {
		return fmt.Errorf("record file %s: %w", p.file(rec.file), err)
	}
	return nil
}

// columns of a record file: their indexes, -1 for one it lacks.
type recordColumns struct{ path, offset, size, raw int }

func lookupColumns(schema *parquet.Schema) (recordColumns, error) {
	c := recordColumns{-1, -1, -1, -1}
	for name, at := range map[string]*int{"path": &c.path, "offset": &c.offset, "size": &c.size, "raw": &c.raw} {
		leaf, ok := schema.Lookup(name)
		if !ok {
			continue
		}
		if leaf.MaxRepetitionLevel > 0 {
			return c, fmt.Errorf("column %s is repeated", name)
		}
		kind := leaf.Node.Type().Kind()
		switch name {
		case "path", "raw":
			if kind != parquet.ByteArray {
				return c, fmt.Errorf("column %s is %s, want a byte array", name, kind)
			}
		default:
			if kind != parquet.Int64 && kind != parquet.Int32 {
				return c, fmt.Errorf("column %s is %s, want an integer", name, kind)
			}
		}
		*at = leaf.ColumnIndex
	}
	// fsspec reads a file of raw values alone, or of path, offset and
	// size (with raw or not).
	if c.path < 0 && c.raw < 0 || c.path >= 0 && (c.offset < 0 || c.size < 0) {
		return c, fmt.Errorf("columns %v: want path, offset and size, or raw, or all four", schema.Columns())
	}
	return c, nil
}

// parse reads a record file's rows; first is the chunk number of row 0.
// The distinct paths and the inline values it holds may take maxBytes: a
// compressed file of a few kB can decode to gigabytes.
func (rec *record) parse(data []byte, recordSize, first int64, a *parquetArray, maxBytes int64) error {
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return fmt.Errorf("not a Parquet file: %w", err)
	}
	cols, err := lookupColumns(f.Schema())
	if err != nil {
		return err
	}
	if f.NumRows() > recordSize || f.NumRows() < 0 {
		return fmt.Errorf("%d rows, more than the set's record_size %d", f.NumRows(), recordSize)
	}
	if n := decodedSize(f); n > maxBytes {
		return fmt.Errorf("its columns decode to %d bytes, more than the %d a record file may (max_generated_bytes)", n, maxBytes)
	}
	left := maxBytes
	rec.rows = make([]recordRow, 0, f.NumRows())
	pathIndex := map[string]int32{}
	buf := make([]parquet.Row, 512)
	for _, rg := range f.RowGroups() {
		rows := rg.Rows()
		for {
			n, err := rows.ReadRows(buf)
			for _, values := range buf[:n] {
				row := recordRow{path: -1, raw: -1}
				for _, v := range values {
					switch c := v.Column(); {
					case v.IsNull():
					case c == cols.path:
						b := v.ByteArray()
						i, ok := pathIndex[string(b)] // no copy: most rows repeat a path
						if !ok {
							if left -= int64(len(b)); left < 0 {
								rows.Close()
								return fmt.Errorf("row %d: %w", len(rec.rows), errRecordBytes(maxBytes))
							}
							i = int32(len(rec.paths))
							pathIndex[string(b)] = i
							rec.paths = append(rec.paths, string(b))
						}
						row.path = i
					case c == cols.raw:
						if left -= int64(len(v.ByteArray())); left < 0 {
							rows.Close()
							return fmt.Errorf("row %d: %w", len(rec.rows), errRecordBytes(maxBytes))
						}
						row.raw = int32(len(rec.raw))
						rec.raw = append(rec.raw, bytes.Clone(v.ByteArray()))
					case c == cols.offset:
						row.off = integer(v)
					case c == cols.size:
						row.size = integer(v)
					}
				}
				if err := row.check(rec, first+int64(len(rec.rows)), a); err != nil {
					rows.Close()
					return fmt.Errorf("row %d: %w", len(rec.rows), err)
				}
				rec.rows = append(rec.rows, row)
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				rows.Close()
				return fmt.Errorf("reading rows: %w", err)
			}
		}
		if err := rows.Close(); err != nil {
			return err
		}
	}
	if int64(len(rec.rows)) != f.NumRows() {
		return fmt.Errorf("read %d of its %d rows", len(rec.rows), f.NumRows())
	}
	return nil
}

// errRecordBytes is the error of a record file whose paths and inline
// values take more than maxBytes.
func errRecordBytes(maxBytes int64) error {
	return fmt.Errorf("%w: its paths and inline values take more than the %d bytes a record file may (max_generated_bytes)", errBudget, maxBytes)
}

// decodedSize is what f's column chunks say they decode to, in all.
// A size that is negative, or a sum beyond an int64, is math.MaxInt64:
// more than any budget.
func decodedSize(f *parquet.File) int64 {
	var c checked.Calc
	var n int64
	for _, rg := range f.Metadata().RowGroups {
		for _, col := range rg.Columns {
			s := col.MetaData.TotalUncompressedSize
			if s < 0 {
				return math.MaxInt64
			}
			n = c.Add(n, s)
		}
	}
	return n
}

// extents are the ranges of each target path within the record, for
// coalescing: made once, when a read batch first reads the record (a key
// read alone never needs them, and they cost as much as the rows).
func (rec *record) extents() []*Extents {
	rec.extOnce.Do(func() {
		byURL := extentsByURL(func(yield func(Ref) bool) {
			for j := range rec.rows {
				if r, ok := rec.ref(int64(j)); ok && !yield(r) {
					return
				}
			}
		})
		rec.ext = make([]*Extents, len(rec.paths))
		for i, url := range rec.paths {
			rec.ext[i] = byURL[url]
		}
	})
	return rec.ext
}

func integer(v parquet.Value) int64 {
	if v.Kind() == parquet.Int32 {
		return int64(v.Int32())
	}
	return v.Int64()
}

// check refuses a row no reader could serve: a reference past the array's
// chunks, an empty path, a negative range.
func (row recordRow) check(rec *record, chunk int64, a *parquetArray) error {
	if row.path < 0 && row.raw < 0 {
		return nil
	}
	if chunk >= a.count {
		return fmt.Errorf("a reference for chunk %d, past the %d chunks of array %q", chunk, a.count, a.path)
	}
	if row.raw >= 0 {
		return nil
	}
	if rec.paths[row.path] == "" {
		return fmt.Errorf("key %q: an empty path", a.key(chunk))
	}
	if err := checkRange(Ref{URL: rec.paths[row.path], Offset: row.off, Length: row.size}); err != nil {
		return fmt.Errorf("key %q: %w", a.key(chunk), err)
	}
	return nil
}

// List is the Source's: the metadata keys starting with prefix, sorted,
// then the chunk keys that exist, array by array in chunk order (not
// sorted: that would hold every key), reading record files one at a time.
// ListDir answers the listing of a prefix outside every array from the
// metadata alone (handled true): chunk keys lie in their array's
// directory, which the array's .zarray already names, so the root of a
// set of millions of chunks lists without a record file read. Within an
// array it declines (the store lists the chunks).
func (p *Parquet) ListDir(ctx context.Context, prefix string) (store.Dir, bool, error) {
	for _, name := range p.arrayNames {
		if strings.HasPrefix(prefix, name+"/") {
			return store.Dir{}, false, nil
		}
	}
	d, err := store.DirOf(prefix, sortedList(ctx, p.metaKeys, prefix))
	return d, true, err
}

func (p *Parquet) List(ctx context.Context, prefix string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		for key, err := range sortedList(ctx, p.metaKeys, prefix) {
			if !yield(key, err) || err != nil {
				return
			}
		}
		for _, name := range p.arrayNames {
			a := p.arrays[name]
			if !strings.HasPrefix(a.path+"/", prefix) && !strings.HasPrefix(prefix, a.path+"/") {
				continue
			}
			for i := range a.records() {
				if err := ctx.Err(); err != nil {
					yield("", err)
					return
				}
				rec, err := p.record(ctx, a, i)
				if err != nil {
					yield("", fmt.Errorf("reference set %s: listing %s: %w", p.name, a.path, err))
					return
				}
				for j := range rec.rows {
					if _, ok := rec.ref(int64(j)); !ok {
						continue
					}
					key := a.key(i*p.recordSize + int64(j))
					if strings.HasPrefix(key, prefix) && !yield(key, nil) {
						return
					}
				}
			}
		}
	}
}
