package dtype

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Bounds of a struct type (zarr-extensions data-types/struct): metadata
// naming more fields, or nesting deeper, is refused rather than built.
const (
	// MaxStructFields bounds the fields of a struct type, nested ones
	// counted too.
	MaxStructFields = 1024
	// MaxStructDepth bounds how deep struct types nest.
	MaxStructDepth = 8
	// maxSubarray bounds the elements of one numpy subarray field.
	maxSubarray = 1 << 20
)

// Field is one member of a struct element: its name, its type, and, for
// numpy's subarray fields (v2 only, ["coords", "<i4", [3]]), its shape.
// Offset is where it starts in the element.
type Field struct {
	Name   string
	Type   DataType
	Shape  []int // nil for a scalar field
	Offset int
}

// Count is the number of elements of Type the field holds.
func (f Field) Count() int {
	n := 1
	for _, d := range f.Shape {
		n *= d
	}
	return n
}

// structLayout is what a struct type holds beyond Kind and Size; it is
// immutable once built, so DataType values stay comparable and cheap.
type structLayout struct {
	fields    []Field
	hasEndian bool // a field (at any depth) has a byte order
	count     int  // fields at every depth
	depth     int
}

// Fields returns the fields of a struct type in declaration (and byte)
// order; nil for other kinds. The slice must not be modified.
func (d DataType) Fields() []Field {
	if d.layout == nil {
		return nil
	}
	return d.layout.fields
}

// NewStruct builds a struct type from its fields (Offset is computed):
// at least one, unique non-empty names, fixed-size types, the bounds
// above. Fields are packed with no padding, as the struct spec and
// numpy's unaligned structured types lay them out.
func NewStruct(fields []Field) (DataType, error) {
	if len(fields) == 0 {
		return DataType{}, errors.New("struct: fields: at least one field is needed")
	}
	l := &structLayout{fields: make([]Field, len(fields)), depth: 1}
	seen := map[string]bool{}
	size := 0
	for i, f := range fields {
		if err := checkField(f, seen); err != nil {
			return DataType{}, fmt.Errorf("struct: field %d: %w", i, err)
		}
		f.Shape = append([]int(nil), f.Shape...)
		f.Offset = size
		size += f.Type.Size * f.Count()
		if size > MaxElementSize {
			return DataType{}, fmt.Errorf("struct: fields take more than %d bytes per element", MaxElementSize)
		}
		l.fields[i] = f
		l.hasEndian = l.hasEndian || f.Type.HasEndian()
		l.count++
		if f.Type.layout != nil {
			l.count += f.Type.layout.count
			l.depth = max(l.depth, f.Type.layout.depth+1)
		}
	}
	if l.count > MaxStructFields {
		return DataType{}, fmt.Errorf("struct: %d fields, more than the %d zarrgw reads", l.count, MaxStructFields)
	}
	if l.depth > MaxStructDepth {
		return DataType{}, fmt.Errorf("struct: nested %d deep, more than the %d zarrgw reads", l.depth, MaxStructDepth)
	}
	d := DataType{Kind: Struct, Size: size, layout: l}
	d.Name = structName(l.fields)
	return d, nil
}

func checkField(f Field, seen map[string]bool) error {
	switch {
	case f.Name == "":
		return errors.New("empty name")
	case seen[f.Name]:
		return fmt.Errorf("name %q given twice", f.Name)
	case f.Type.Variable() || f.Type.Kind == Invalid:
		return fmt.Errorf("%q: data type %s has no fixed size", f.Name, f.Type.Name)
	}
	if err := checkSize(f.Type); err != nil {
		return fmt.Errorf("%q: %w", f.Name, err)
	}
	n := 1
	for _, d := range f.Shape {
		if d <= 0 || n > maxSubarray/d {
			return fmt.Errorf("%q: subarray shape %v (each dimension > 0, at most %d elements)", f.Name, f.Shape, maxSubarray)
		}
		n *= d
	}
	seen[f.Name] = true
	return nil
}

// structName is a struct type's Name: "struct" and a JSON list of
// [name, type name] (and the subarray shape, when there is one), e.g.
// struct[["x","float32"],["when","M8[ns]"]]. ParseName reads it back,
// which is how a struct type travels to out-of-process plugins.
func structName(fields []Field) string {
	list := make([][]any, len(fields))
	for i, f := range fields {
		list[i] = []any{f.Name, f.Type.Name}
		if f.Shape != nil {
			list[i] = append(list[i], f.Shape)
		}
	}
	return "struct" + jsonText(list)
}

// ParseName reads a type's Name back into the type: a v3 name, a numpy
// type string without byte order (the Name of v2-only types: "U7",
// "M8[ns]") or a struct type's name.
func ParseName(name string) (DataType, error) {
	return parseName(name, 0)
}

func parseName(name string, depth int) (DataType, error) {
	list, ok := strings.CutPrefix(name, "struct")
	if !ok || !strings.HasPrefix(list, "[") {
		if d, err := ParseV3(name); err == nil {
			return d, nil
		}
		d, _, err := ParseV2(name)
		return d, err
	}
	if depth >= MaxStructDepth {
		return DataType{}, fmt.Errorf("struct: nested more than %d deep", MaxStructDepth)
	}
	var entries [][]json.RawMessage
	if err := json.Unmarshal([]byte(list), &entries); err != nil {
		return DataType{}, fmt.Errorf("struct type name: %w", err)
	}
	if len(entries) > MaxStructFields {
		return DataType{}, fmt.Errorf("struct: %d fields, more than the %d zarrgw reads", len(entries), MaxStructFields)
	}
	fields := make([]Field, len(entries))
	for i, e := range entries {
		var typeName string
		if len(e) < 2 || len(e) > 3 || json.Unmarshal(e[0], &fields[i].Name) != nil || json.Unmarshal(e[1], &typeName) != nil {
			return DataType{}, fmt.Errorf("struct type name: field %d: expected [name, type] or [name, type, shape]", i)
		}
		if len(e) == 3 {
			if err := json.Unmarshal(e[2], &fields[i].Shape); err != nil {
				return DataType{}, fmt.Errorf("struct type name: field %d: shape: %w", i, err)
			}
		}
		t, err := parseName(typeName, depth+1)
		if err != nil {
			return DataType{}, fmt.Errorf("struct type name: field %d: %w", i, err)
		}
		fields[i].Type = t
	}
	return NewStruct(fields)
}

// SwapRun is a run of Count groups of Unit bytes starting Offset bytes
// into an element, each of which a change of byte order reverses.
type SwapRun struct{ Offset, Unit, Count int }

// SwapRuns lists what a change of byte order reverses in one element:
// one run for a number type, a run per multi-byte field (depth first)
// for a struct, none for byte-like types.
func (d DataType) SwapRuns() []SwapRun {
	if d.layout == nil {
		if u := d.SwapUnit(); u > 1 {
			return []SwapRun{{0, u, d.Size / u}}
		}
		return nil
	}
	var runs []SwapRun
	for _, f := range d.layout.fields {
		for _, r := range f.Type.SwapRuns() {
			for k := 0; k < f.Count(); k++ {
				runs = append(runs, SwapRun{f.Offset + k*f.Type.Size + r.Offset, r.Unit, r.Count})
			}
		}
	}
	return runs
}

// SwapElements reverses, in place, the byte order of the elements of
// type d that b holds (each field of a struct in its own width).
func (d DataType) SwapElements(b []byte) {
	runs := d.SwapRuns()
	for e := 0; e+d.Size <= len(b) && d.Size > 0; e += d.Size {
		for _, r := range runs {
			for k := 0; k < r.Count; k++ {
				at := e + r.Offset + k*r.Unit
				slices.Reverse(b[at : at+r.Unit])
			}
		}
	}
}

// jsonText is v as JSON, with <, > and & as they are (numpy type
// strings such as "<f4" must read as written).
func jsonText(v any) string {
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // strings, ints and lists of them
	return strings.TrimSuffix(sb.String(), "\n")
}

// structEqual compares two struct layouts field by field.
func structEqual(a, b *structLayout) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || len(a.fields) != len(b.fields) {
		return false
	}
	for i, f := range a.fields {
		g := b.fields[i]
		if f.Name != g.Name || !f.Type.Equal(g.Type) || fmt.Sprint(f.Shape) != fmt.Sprint(g.Shape) {
			return false
		}
	}
	return true
}

// v2Struct is a struct type as a Zarr v2 dtype, numpy's descr as JSON:
// [["x", "<f4"], ["coords", "<i4", [3]]], multi-byte fields in byte
// order e, nested structs as nested lists.
func (d DataType) v2Struct(e Endian) string {
	var sb strings.Builder
	sb.WriteByte('[')
	for i, f := range d.Fields() {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString("[" + jsonText(f.Name) + ", ")
		if f.Type.Kind == Struct {
			sb.WriteString(f.Type.v2Struct(e))
		} else {
			sb.WriteString(jsonText(f.Type.V2String(e)))
		}
		if f.Shape != nil {
			sb.WriteString(", " + jsonText(f.Shape))
		}
		sb.WriteByte(']')
	}
	sb.WriteByte(']')
	return sb.String()
}

// ParseV2Struct reads a Zarr v2 structured dtype, numpy's descr as JSON
// ([["x", "<f4"], ["coords", "<i4", [3]], ["p", [["a", "|u1"]]]]), as
// zarr-python 2 writes it. Its byte order is that of its multi-byte
// fields, which must agree: the in-memory form is little endian and the
// codec chain has one byte order (NoEndian when no field has one).
func ParseV2Struct(raw json.RawMessage) (DataType, Endian, error) {
	return parseV2Struct(raw, 0)
}

func parseV2Struct(raw json.RawMessage, depth int) (DataType, Endian, error) {
	if depth >= MaxStructDepth {
		return DataType{}, NoEndian, fmt.Errorf("structured dtype nested more than %d deep", MaxStructDepth)
	}
	var entries [][]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return DataType{}, NoEndian, fmt.Errorf("structured dtype: expected a list of [name, type] or [name, type, shape]: %w", err)
	}
	if len(entries) > MaxStructFields {
		return DataType{}, NoEndian, fmt.Errorf("structured dtype: %d fields, more than the %d zarrgw reads", len(entries), MaxStructFields)
	}
	fields := make([]Field, len(entries))
	end := NoEndian
	for i, e := range entries {
		f, fe, err := parseV2Field(e, depth)
		if err != nil {
			return DataType{}, NoEndian, fmt.Errorf("structured dtype: field %d: %w", i, err)
		}
		if fe != NoEndian && end != NoEndian && fe != end {
			return DataType{}, NoEndian, fmt.Errorf("structured dtype: field %q is %s endian, an earlier one %s: zarrgw reads structured types in one byte order", f.Name, fe, end)
		}
		if fe != NoEndian {
			end = fe
		}
		fields[i] = f
	}
	d, err := NewStruct(fields)
	return d, end, err
}

func parseV2Field(e []json.RawMessage, depth int) (Field, Endian, error) {
	var f Field
	if len(e) < 2 || len(e) > 3 {
		return f, NoEndian, fmt.Errorf("expected [name, type] or [name, type, shape], got %d items", len(e))
	}
	if err := json.Unmarshal(e[0], &f.Name); err != nil {
		return f, NoEndian, fmt.Errorf("name: %w", err)
	}
	if len(e) == 3 {
		if err := json.Unmarshal(e[2], &f.Shape); err != nil {
			return f, NoEndian, fmt.Errorf("%q: shape: %w", f.Name, err)
		}
	}
	var typestr string
	var end Endian
	var err error
	if json.Unmarshal(e[1], &typestr) == nil {
		f.Type, end, err = ParseV2(typestr)
		if err == nil && f.Type.Kind == String {
			err = fmt.Errorf("object type %q has no fixed size", typestr)
		}
	} else {
		f.Type, end, err = parseV2Struct(e[1], depth+1)
	}
	if err != nil {
		return f, NoEndian, fmt.Errorf("%q: %w", f.Name, err)
	}
	return f, end, nil
}
