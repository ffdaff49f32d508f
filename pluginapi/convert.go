package pluginapi

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/zarrgw/zarrgw/core/checked"
	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/ndarray"
	pb "github.com/zarrgw/zarrgw/pluginapi/zarrgwv1"
)

func dtypeToPB(d dtype.DataType) *pb.DataType {
	return &pb.DataType{Name: d.Name, Kind: uint32(d.Kind), Size: int64(d.Size), Unit: d.Unit}
}

// dtypeFromPB rebuilds a data type field by field; it refuses what no
// dtype constructor produces, so a peer cannot smuggle in a type whose
// size and kind disagree.
func dtypeFromPB(p *pb.DataType) (dtype.DataType, error) {
	if p == nil {
		return dtype.DataType{}, fmt.Errorf("missing data type")
	}
	if dtype.Kind(p.Kind) == dtype.Struct {
		return structFromPB(p)
	}
	d := dtype.DataType{Kind: dtype.Kind(p.Kind), Size: int(p.Size), Name: p.Name, Unit: p.Unit}
	switch {
	case !d.Kind.Valid():
		return dtype.DataType{}, fmt.Errorf("data type %q: invalid kind %d", p.Name, p.Kind)
	case d.Variable() != (p.Size == 0), p.Size < 0, p.Size > 1<<20:
		return dtype.DataType{}, fmt.Errorf("data type %q: invalid size %d", p.Name, p.Size)
	case d.NarrowNumber():
		// the name says the encoding (float8_e4m3 or float8_e5m2): it must
		// be a registered one of this kind and size
		if named, err := dtype.ParseV3(p.Name); err != nil || !named.Equal(d) {
			return dtype.DataType{}, fmt.Errorf("data type %q: not a registered %s type of size %d", p.Name, d.Kind, p.Size)
		}
	}
	return d, nil
}

// structFromPB rebuilds a struct type from its Name, which spells out
// its fields (dtype.ParseName), and checks the size the peer sent.
func structFromPB(p *pb.DataType) (dtype.DataType, error) {
	d, err := dtype.ParseName(p.Name)
	if err != nil || d.Kind != dtype.Struct {
		return dtype.DataType{}, fmt.Errorf("data type %.200q: not a struct type name: %v", p.Name, err)
	}
	if int64(d.Size) != p.Size {
		return dtype.DataType{}, fmt.Errorf("data type %.200q: size %d, its fields take %d", p.Name, p.Size, d.Size)
	}
	return d, nil
}

func shapeToPB(shape []int) []int64 {
	out := make([]int64, len(shape))
	for i, n := range shape {
		out[i] = int64(n)
	}
	return out
}

// shapeFromPB refuses negative extents and element counts that overflow.
func shapeFromPB(p []int64) ([]int, error) {
	out := make([]int, len(p))
	for i, n := range p {
		if n < 0 {
			return nil, fmt.Errorf("invalid shape %v", p)
		}
		out[i] = int(n)
	}
	if _, ok := checked.Product(out); !ok {
		return nil, fmt.Errorf("shape %v has too many elements", p)
	}
	return out, nil
}

func specToPB(s codec.Spec) *pb.ChunkSpec {
	return &pb.ChunkSpec{
		DataType:       dtypeToPB(s.DataType),
		Shape:          shapeToPB(s.Shape),
		FillValue:      s.FillValue,
		DecodedSize:    s.DecodedSize,
		MaxDecodedSize: s.MaxDecodedSize,
	}
}

func specFromPB(p *pb.ChunkSpec) (codec.Spec, error) {
	if p == nil {
		return codec.Spec{}, fmt.Errorf("missing chunk spec")
	}
	dt, err := dtypeFromPB(p.DataType)
	if err != nil {
		return codec.Spec{}, err
	}
	shape, err := shapeFromPB(p.Shape)
	if err != nil {
		return codec.Spec{}, err
	}
	return codec.Spec{
		DataType:       dt,
		Shape:          shape,
		FillValue:      p.FillValue,
		DecodedSize:    p.DecodedSize,
		MaxDecodedSize: p.MaxDecodedSize,
	}, nil
}

// arrayToPB returns the header and data bytes of a. Fixed-size elements are
// sent from a.Data as they are, without a copy.
func arrayToPB(a *ndarray.Array) (*pb.Payload, []byte, error) {
	if a == nil {
		return nil, nil, fmt.Errorf("%w: codec returned no array", codec.ErrCorrupt)
	}
	if err := a.Check(); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", codec.ErrCorrupt, err)
	}
	data := a.Data
	if a.DType.Variable() {
		data = packStrings(a.Strings)
	}
	h := &pb.ArrayHeader{DataType: dtypeToPB(a.DType), Shape: shapeToPB(a.Shape)}
	return &pb.Payload{Array: h, Size: int64(len(data))}, data, nil
}

// arrayFromPB rebuilds an array over data (which it keeps, not copies).
func arrayFromPB(h *pb.ArrayHeader, data []byte) (*ndarray.Array, error) {
	if h == nil {
		return nil, fmt.Errorf("payload is bytes, an array was expected")
	}
	dt, err := dtypeFromPB(h.DataType)
	if err != nil {
		return nil, err
	}
	shape, err := shapeFromPB(h.Shape)
	if err != nil {
		return nil, err
	}
	a := &ndarray.Array{DType: dt, Shape: shape}
	n := ndarray.NumElements(shape)
	if dt.Variable() {
		a.Strings, err = unpackStrings(data, n)
		return a, err
	}
	if int64(len(data)) != int64(n)*int64(dt.Size) {
		return nil, fmt.Errorf("array %s%v: %d data bytes, want %d", dt, shape, len(data), int64(n)*int64(dt.Size))
	}
	a.Data = data
	return a, nil
}

// packStrings writes each element as a uvarint length and its bytes.
func packStrings(ss []string) []byte {
	size := 0
	for _, s := range ss {
		size += binary.MaxVarintLen64 + len(s)
	}
	out := make([]byte, 0, size)
	for _, s := range ss {
		out = binary.AppendUvarint(out, uint64(len(s)))
		out = append(out, s...)
	}
	return out
}

func unpackStrings(b []byte, n int) ([]string, error) {
	if n > len(b) {
		return nil, fmt.Errorf("%d data bytes cannot hold %d strings", len(b), n)
	}
	out := make([]string, n)
	for i := range out {
		l, k := binary.Uvarint(b)
		if k <= 0 || l > uint64(len(b)-k) {
			return nil, fmt.Errorf("string %d of %d is truncated", i, n)
		}
		out[i] = string(b[k : k+int(l)])
		b = b[k+int(l):]
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("%d bytes after the last of %d strings", len(b), n)
	}
	return out, nil
}

// timeToPB and timeFromPB carry a modification time as nanoseconds since
// 1970, 0 for the zero time (a store that does not know).
func timeToPB(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func timeFromPB(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns)
}
