package numeric

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// Filter is the type handling numcodecs' array->array filters share
// (delta, fixedscaleoffset): the "dtype" they read, by default the
// array's, and the "astype" they store, by default dtype, each kept as
// configured so that it is written back unchanged.
type Filter struct {
	name                string // the codec, for messages
	dtypeStr, astypeStr string
	dt, as              dtype.DataType
	dtNum, asNum        Type
}

// NewFilter reads the configured type strings (numpy strings or names;
// "" when not configured) of the codec name.
func NewFilter(name, dtypeStr, astypeStr string) (Filter, error) {
	f := Filter{name: name, dtypeStr: dtypeStr, astypeStr: astypeStr}
	var err error
	if dtypeStr != "" {
		if f.dt, f.dtNum, err = ParseType(dtypeStr); err != nil {
			return f, fmt.Errorf("%s: dtype: %w", name, err)
		}
	}
	if astypeStr != "" {
		if f.as, f.asNum, err = ParseType(astypeStr); err != nil {
			return f, fmt.Errorf("%s: astype: %w", name, err)
		}
	}
	return f, nil
}

// Types resolves dtype and astype for an input of type in: the encoded
// type, and the numeric types of dtype and astype.
func (f Filter) Types(in dtype.DataType) (as dtype.DataType, dtNum, asNum Type, err error) {
	dt, dtNum := f.dt, f.dtNum
	if f.dtypeStr == "" {
		if dtNum, err = Of(in); err != nil {
			return as, dtNum, asNum, fmt.Errorf("%s: %w", f.name, err)
		}
		dt = in
	}
	if dt.Size != in.Size || in.Variable() {
		return as, dtNum, asNum, fmt.Errorf("%s: dtype %s does not match the array's type %s", f.name, dt, in)
	}
	as, asNum = f.as, f.asNum
	if f.astypeStr == "" {
		as, asNum = dt, dtNum
	}
	return as, dtNum, asNum, nil
}

// OutputSpec is the encoded spec: astype, with the fill value encoded by
// enc (nil: cast as it is).
func (f Filter) OutputSpec(in codec.Spec, enc func(dtNum Type, x Value) Value) (codec.Spec, error) {
	as, dtNum, asNum, err := f.Types(in.DataType)
	if err != nil {
		return codec.Spec{}, err
	}
	out := in
	out.DataType = as
	if len(in.FillValue) == dtNum.Size {
		v := dtNum.Load(in.FillValue)
		if enc != nil {
			v = enc(dtNum, v)
		}
		out.FillValue = make([]byte, asNum.Size)
		asNum.Store(out.FillValue, v)
	}
	return out, nil
}

// Encoding checks a chunk a of spec in and returns the array of astype it
// encodes into, with the numeric types of both.
func (f Filter) Encoding(in codec.Spec, a *ndarray.Array) (out *ndarray.Array, dtNum, asNum Type, err error) {
	as, dtNum, asNum, err := f.Types(in.DataType)
	if err != nil {
		return nil, dtNum, asNum, err
	}
	n := ndarray.NumElements(in.Shape)
	if len(a.Data) != n*dtNum.Size {
		return nil, dtNum, asNum, fmt.Errorf("%s: array holds %d bytes, spec %s%v needs %d", f.name, len(a.Data), in.DataType, in.Shape, n*dtNum.Size)
	}
	return &ndarray.Array{DType: as, Shape: append([]int(nil), in.Shape...), Data: make([]byte, n*asNum.Size)}, dtNum, asNum, nil
}

// Decoding checks an encoded array a of a chunk of spec in and returns the
// array of in's type it decodes into, with the numeric types of both.
func (f Filter) Decoding(in codec.Spec, a *ndarray.Array) (out *ndarray.Array, dtNum, asNum Type, err error) {
	_, dtNum, asNum, err = f.Types(in.DataType)
	if err != nil {
		return nil, dtNum, asNum, err
	}
	n := ndarray.NumElements(in.Shape)
	if len(a.Data) != n*asNum.Size {
		return nil, dtNum, asNum, fmt.Errorf("%s: %w: encoded array holds %d bytes, want %d", f.name, codec.ErrCorrupt, len(a.Data), n*asNum.Size)
	}
	return &ndarray.Array{DType: in.DataType, Shape: append([]int(nil), in.Shape...), Data: make([]byte, n*dtNum.Size)}, dtNum, asNum, nil
}

// Configuration is cfg with dtype and astype as configured, as JSON.
func (f Filter) Configuration(cfg map[string]any) json.RawMessage {
	if f.dtypeStr != "" {
		cfg["dtype"] = f.dtypeStr
	}
	if f.astypeStr != "" {
		cfg["astype"] = f.astypeStr
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep "<i2" readable
	enc.Encode(cfg)
	return bytes.TrimSpace(buf.Bytes())
}
