package interop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
)

// foreignArray is an array a foreign client writes (the manifest entry
// its script reads) and what zarrgw must find in it.
type foreignArray struct {
	Path   string `json:"path"`
	DType  string `json:"dtype"`
	Shape  []int  `json:"shape"`
	Chunks []int  `json:"chunks"`
	// Codecs is the v3 chain (zarrita).
	Codecs json.RawMessage `json:"codecs,omitempty"`
	// Compressor, Filters and ObjectCodec are numcodecs configurations
	// (zarr-python); an absent compressor means none.
	Compressor         json.RawMessage `json:"compressor,omitempty"`
	Filters            json.RawMessage `json:"filters,omitempty"`
	ObjectCodec        json.RawMessage `json:"object_codec,omitempty"`
	Order              string          `json:"order,omitempty"`
	Separator          string          `json:"separator,omitempty"`
	DimensionSeparator string          `json:"dimension_separator,omitempty"`
	FillValue          any             `json:"fill_value"`
	WrittenRows        int             `json:"written_rows"`
	Formula            formula         `json:"formula"`
	Attrs              json.RawMessage `json:"attrs,omitempty"`

	dt   dtype.DataType // the type zarrgw must report
	fill any            // the fill value as ndarray.At returns it
	// needs names a codec zarrgw may not offer yet: failing only because it
	// is unavailable counts the case apart.
	needs string
}

// manifestFill is a fill value as the scripts take it: NaN and the
// infinities as strings, everything else as JSON.
func manifestFill(v any) any {
	if f, ok := v.(float64); ok {
		switch {
		case math.IsNaN(f):
			return "NaN"
		case math.IsInf(f, 1):
			return "Infinity"
		case math.IsInf(f, -1):
			return "-Infinity"
		}
	}
	return v
}

// newForeign fills the fields every foreign array shares.
func newForeign(path, typeName string, dt dtype.DataType, shape, chunks []int, fill any, rows int) foreignArray {
	return foreignArray{Path: path, DType: typeName, Shape: shape, Chunks: chunks, FillValue: manifestFill(fill),
		WrittenRows: rows, Formula: formulaFor(dt), dt: dt, fill: fill}
}

// groupCase is a group with attributes.
type groupCase struct {
	Path  string          `json:"path"`
	Attrs json.RawMessage `json:"attrs"`
}

// checkGroup opens a group with zarrgw and compares its attributes.
func checkGroup(ctx context.Context, s store.Store, g groupCase, f meta.Format) error {
	n, err := hierarchy.Open(ctx, s, g.Path)
	if err != nil {
		return fmt.Errorf("open group %s: %w", g.Path, err)
	}
	if n.Group == nil {
		return fmt.Errorf("%s: not a group", g.Path)
	}
	if n.Group.Format != f {
		return fmt.Errorf("%s: format %v, want %v", g.Path, n.Group.Format, f)
	}
	if !jsonEqual(n.Group.Attributes, g.Attrs) {
		return fmt.Errorf("%s: attributes %s, want %s", g.Path, n.Group.Attributes, g.Attrs)
	}
	return nil
}

// check opens the array with zarrgw and compares metadata and every
// element with the formula (rows from WrittenRows on hold the fill value).
func (fa *foreignArray) check(ctx context.Context, s store.Store, f meta.Format) error {
	err := fa.checkErr(ctx, s, f)
	if err != nil && fa.needs != "" && errors.Is(err, codec.ErrUnavailable) && strings.Contains(err.Error(), fa.needs) {
		return blocked{fmt.Sprintf("zarrgw lacks the %s codec: %v", fa.needs, err)}
	}
	return err
}

func (fa *foreignArray) checkErr(ctx context.Context, s store.Store, f meta.Format) error {
	a, err := hierarchy.OpenArray(ctx, s, fa.Path, options())
	if err != nil {
		return fmt.Errorf("open: %w", err)
	}
	m := a.Meta()
	switch {
	case m.Format != f:
		return fmt.Errorf("format %v, want %v", m.Format, f)
	case !sameInts(m.Shape, fa.Shape):
		return fmt.Errorf("shape %v, want %v", m.Shape, fa.Shape)
	case !sameInts(m.ChunkShape, fa.Chunks):
		return fmt.Errorf("chunk shape %v, want %v", m.ChunkShape, fa.Chunks)
	case !m.DataType.Equal(fa.dt):
		return fmt.Errorf("data type %s (%v, size %d), want %s", m.DataType.Name, m.DataType.Kind, m.DataType.Size, fa.dt.Name)
	}
	if got := fillElement(m.DataType, m.FillValue); !sameValue(fa.fill, got) {
		return fmt.Errorf("fill value %#v, want %#v", got, fa.fill)
	}
	wantAttrs := fa.Attrs
	if wantAttrs == nil {
		wantAttrs = json.RawMessage("{}")
	}
	if !jsonEqual(orEmptyObject(m.Attributes), wantAttrs) {
		return fmt.Errorf("attributes %s, want %s", m.Attributes, wantAttrs)
	}
	data, err := a.ReadAll(ctx)
	if err != nil {
		return fmt.Errorf("read: %w", err)
	}
	if !sameInts(data.Shape, fa.Shape) {
		return fmt.Errorf("read returned shape %v, want %v", data.Shape, fa.Shape)
	}
	return diffWritten(data, fa.Shape, fa.WrittenRows, fa.fill, fa.Formula, sameValue)
}

// diffWritten compares every element of data (of the given shape) with
// the formula in its first rows and fill in the rest, reporting the first
// few differences.
func diffWritten(data *ndarray.Array, shape []int, rows int, fill any, f formula, same func(want, got any) bool) error {
	n := numElements(shape)
	written := rows * (n / max(shape[0], 1))
	var diffs []string
	bad := 0
	for i := range n {
		want := fill
		if i < written {
			want = f.value(i)
		}
		if got := data.At(i); !same(want, got) {
			bad++
			if len(diffs) < 4 {
				diffs = append(diffs, fmt.Sprintf("[%d] want %#v, got %#v", i, want, got))
			}
		}
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d elements differ: %s", bad, n, strings.Join(diffs, "; "))
	}
	return nil
}

func orEmptyObject(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("{}")
	}
	return b
}

// verifyCRC32C checks the trailing little-endian CRC32C of every chunk file
// below dir/prefix with the standard library's Castagnoli table.
func verifyCRC32C(dir, prefix string) error {
	table := crc32.MakeTable(crc32.Castagnoli)
	root := filepath.Join(dir, filepath.FromSlash(prefix), "c")
	count := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if len(b) < 4 {
			return fmt.Errorf("%s: %d bytes, too short for a checksum", p, len(b))
		}
		body, sum := b[:len(b)-4], b[len(b)-4:]
		want := crc32.Checksum(body, table)
		got := uint32(sum[0]) | uint32(sum[1])<<8 | uint32(sum[2])<<16 | uint32(sum[3])<<24
		if got != want {
			return fmt.Errorf("%s: stored CRC32C %08x, computed %08x", p, got, want)
		}
		count++
		return nil
	})
	if err == nil && count == 0 {
		err = fmt.Errorf("no chunk files below %s", root)
	}
	return err
}
