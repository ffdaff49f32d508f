package references

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/zarrgw/zarrgw/core/store"
)

// recordSchema is a record file's schema as fsspec's LazyReferenceMapper
// writes it, in its column order (fsspec's listing zips the columns in
// order): path (UTF-8, nullable, dictionary-encoded as its categorical
// paths are), offset, size, raw (bytes, nullable).
var recordSchema = parquet.SchemaOf(struct {
	Path   *string `parquet:"path,optional,dict"`
	Offset int64   `parquet:"offset"`
	Size   int64   `parquet:"size"`
	Raw    *[]byte `parquet:"raw,optional"`
}{})

// Column indexes of recordSchema.
const (
	colPath = iota
	colOffset
	colSize
	colRaw
)

// parquetRow is one row to write: a missing chunk has neither path nor
// raw.
type parquetRow struct {
	path         *string
	offset, size int64
	raw          []byte // nil for none; an empty value is not nil
}

// row is r as Parquet values, nulls made explicit: parquet-go's struct
// writer (v0.32.0) writes some nil optional []byte values as empty ones
// (rows path, raw, none, path: the last two read back with an empty raw,
// so a missing chunk would read as an empty inline value).
func (r parquetRow) row(buf parquet.Row) parquet.Row {
	buf = buf[:0]
	if r.path != nil {
		buf = append(buf, parquet.ByteArrayValue([]byte(*r.path)).Level(0, 1, colPath))
	} else {
		buf = append(buf, parquet.NullValue().Level(0, 0, colPath))
	}
	buf = append(buf, parquet.Int64Value(r.offset).Level(0, 0, colOffset), parquet.Int64Value(r.size).Level(0, 0, colSize))
	if r.raw != nil {
		buf = append(buf, parquet.ByteArrayValue(r.raw).Level(0, 1, colRaw))
	} else {
		buf = append(buf, parquet.NullValue().Level(0, 0, colRaw))
	}
	return buf
}

// WriteParquet writes set into dst in kerchunk's Parquet form, as
// kerchunk's refs_to_dataframe does: the metadata documents into
// .zmetadata with record_size, each array's chunk references into record
// files ARRAY/refs.I.parq of recordSize rows (a missing chunk a row of
// nulls; a record without chunks no file; a whole-file reference offset 0
// and size 0, as fsspec reads it). .zmetadata is written last, so a set
// cut short has no index. Keys the form cannot hold (not metadata, not a
// chunk of an array with a .zarray) are an error naming the key.
func WriteParquet(ctx context.Context, set *Set, dst store.Store, recordSize int) error {
	if recordSize <= 0 {
		return fmt.Errorf("parquet reference set: record size %d: must be positive", recordSize)
	}
	meta := map[string][]byte{} // as the set holds them: Python's NaN kept
	p := &Parquet{arrays: map[string]*parquetArray{}}
	keys := set.Keys()
	for _, key := range keys {
		if !isMetadataKey(key) {
			continue
		}
		r, _ := set.Ref(key)
		if !r.Inline() || !validPythonJSON(r.Data) {
			return fmt.Errorf("parquet reference set: key %q: a metadata document must be inline JSON", key)
		}
		meta[key] = bytes.TrimSpace(r.Data)
		if arr, ok := strings.CutSuffix(key, "/.zarray"); ok {
			a, err := parseArray(arr, pythonJSON(r.Data), int64(recordSize))
			if err != nil {
				return fmt.Errorf("parquet reference set: key %q: %w", key, err)
			}
			p.arrays[arr] = a
		}
	}
	type chunkRef struct {
		n int64
		r Ref
	}
	byArray := map[string][]chunkRef{}
	for _, key := range keys {
		if isMetadataKey(key) {
			continue
		}
		a, n, ok := p.chunk(key)
		if !ok {
			return fmt.Errorf("parquet reference set: key %q is neither metadata nor a chunk of an array with a .zarray", key)
		}
		r, _ := set.Ref(key)
		byArray[a.path] = append(byArray[a.path], chunkRef{n, r})
	}
	w := newRecordWriter()
	rs := int64(recordSize)
	for _, name := range slices.Sorted(maps.Keys(byArray)) {
		refs := byArray[name]
		slices.SortFunc(refs, func(x, y chunkRef) int { return cmp.Compare(x.n, y.n) })
		for len(refs) > 0 {
			i := refs[0].n / rs
			rows := make([]parquetRow, recordSize)
			for len(refs) > 0 && refs[0].n/rs == i {
				c := refs[0]
				refs = refs[1:]
				row := &rows[c.n%rs]
				switch {
				case c.r.Inline():
					row.raw = append([]byte{}, c.r.Data...) // non-nil: an empty value is not a null
				case c.r.Length < 0:
					row.path = &c.r.URL
				default:
					row.path, row.offset, row.size = &c.r.URL, c.r.Offset, c.r.Length
				}
			}
			data, err := w.write(rows)
			if err != nil {
				return fmt.Errorf("parquet reference set: %s: %w", recordFile(name, i), err)
			}
			if _, err := dst.Set(ctx, recordFile(name, i), data, store.Condition{}); err != nil {
				return fmt.Errorf("parquet reference set: %s: %w", recordFile(name, i), err)
			}
		}
	}
	// By hand, not json.Marshal: a value may hold Python's NaN.
	index := []byte(`{"metadata": {`)
	for i, key := range slices.Sorted(maps.Keys(meta)) {
		if i > 0 {
			index = append(index, ", "...)
		}
		quoted, _ := json.Marshal(key) // a string cannot fail to marshal
		index = append(index, quoted...)
		index = append(append(index, ": "...), meta[key]...)
	}
	index = fmt.Appendf(index, `}, "record_size": %d}`, recordSize)
	if _, err := dst.Set(ctx, zmetadataKey, index, store.Condition{}); err != nil {
		return fmt.Errorf("parquet reference set: %s: %w", zmetadataKey, err)
	}
	return nil
}

// isMetadataKey reports whether key is a Zarr metadata document (.zarray,
// .zattrs, .zgroup, ...), which the form keeps in .zmetadata.
func isMetadataKey(key string) bool {
	return strings.HasPrefix(key[strings.LastIndexByte(key, '/')+1:], ".z")
}

// recordWriter writes record files, reusing one writer's buffers.
type recordWriter struct {
	buf  bytes.Buffer
	w    *parquet.Writer
	rows []parquet.Row
}

func newRecordWriter() *recordWriter {
	rw := &recordWriter{}
	// Version 1 data pages and zstd, as pandas writes them for kerchunk:
	// what every Parquet engine fsspec uses reads.
	rw.w = parquet.NewWriter(&rw.buf, recordSchema, parquet.Compression(&parquet.Zstd), parquet.DataPageVersion(1))
	return rw
}

func (rw *recordWriter) write(rows []parquetRow) ([]byte, error) {
	rw.buf.Reset()
	rw.w.Reset(&rw.buf)
	rw.rows = slices.Grow(rw.rows[:0], len(rows))[:len(rows)]
	for i, r := range rows {
		rw.rows[i] = r.row(rw.rows[i])
	}
	if _, err := rw.w.WriteRows(rw.rows); err != nil {
		return nil, err
	}
	if err := rw.w.Close(); err != nil {
		return nil, err
	}
	return bytes.Clone(rw.buf.Bytes()), nil
}
