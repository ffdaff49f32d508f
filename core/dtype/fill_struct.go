package dtype

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

// parseStructFill reads a struct fill value: a JSON object with a value
// for every field and no other key (zarr-extensions data-types/struct:
// "Every field defined in the struct type MUST have a corresponding
// entry"); a base64 string of the packed element (the legacy
// "structured" type and Zarr v2, as zarr-python writes both), taken as
// little endian, the order zarr-python writes on every machine we know;
// or, in v2, the number 0 (all zero bytes), as old zarr-python wrote.
// A subarray field (v2 only) takes a JSON array of its elements.
func parseStructFill(dt DataType, v jsonValue, v2 bool) ([]byte, error) {
	switch {
	case v.kind == jsonString:
		b, err := base64.StdEncoding.DecodeString(v.str)
		if err != nil {
			return nil, fmt.Errorf("a string fill value of a struct is base64 of its bytes: %w", err)
		}
		if len(b) != dt.Size {
			return nil, fmt.Errorf("base64 of %d bytes, a struct element has %d", len(b), dt.Size)
		}
		return b, nil
	case v2 && isZeroNumber(v):
		return make([]byte, dt.Size), nil
	case v.kind != jsonObject:
		return nil, errWant("an object with a value for each field, or a base64 string")
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal([]byte(v.text), &members); err != nil {
		return nil, err
	}
	out := make([]byte, dt.Size)
	for _, f := range dt.Fields() {
		raw, ok := members[f.Name]
		if !ok {
			return nil, fmt.Errorf("no value for field %q (a struct fill value gives every field)", f.Name)
		}
		delete(members, f.Name)
		if err := parseFieldFill(f, raw, v2, out[f.Offset:f.Offset+f.Type.Size*f.Count()]); err != nil {
			return nil, fmt.Errorf("field %q: %w", f.Name, err)
		}
	}
	for name := range members {
		return nil, fmt.Errorf("no field named %q", name)
	}
	return out, nil
}

// parseFieldFill decodes one field's value into dst.
func parseFieldFill(f Field, raw json.RawMessage, v2 bool, dst []byte) error {
	values := []json.RawMessage{raw}
	if f.Shape != nil {
		if err := json.Unmarshal(raw, &values); err != nil || len(values) != f.Count() {
			return fmt.Errorf("expected an array of %d values (subarray %v)", f.Count(), f.Shape)
		}
	}
	for i, e := range values {
		ev, err := classify(e)
		if err != nil {
			return err
		}
		if ev.kind == jsonNull {
			return errWant("a value, not null")
		}
		b, err := parseFill(f.Type, ev, v2)
		if err != nil {
			return err
		}
		copy(dst[i*f.Type.Size:], b)
	}
	return nil
}

// formatStructFill writes a struct fill value as zarr-python does: v3 an
// object of the fields' own fill values in field order, v2 base64 of the
// packed element.
func formatStructFill(dt DataType, fill []byte, v2 bool) (string, error) {
	if v2 {
		return base64String(fill), nil
	}
	var sb strings.Builder
	sb.WriteByte('{')
	for i, f := range dt.Fields() {
		if i > 0 {
			sb.WriteString(", ")
		}
		name, _ := json.Marshal(f.Name)
		sb.Write(name)
		sb.WriteString(": ")
		if f.Shape != nil {
			sb.WriteByte('[')
		}
		for k := 0; k < f.Count(); k++ {
			if k > 0 {
				sb.WriteString(", ")
			}
			at := f.Offset + k*f.Type.Size
			s, err := formatFill(f.Type, fill[at:at+f.Type.Size], false)
			if err != nil {
				return "", fmt.Errorf("field %q: %w", f.Name, err)
			}
			sb.WriteString(s)
		}
		if f.Shape != nil {
			sb.WriteByte(']')
		}
	}
	sb.WriteByte('}')
	return sb.String(), nil
}
