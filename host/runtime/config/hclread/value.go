package hclread

import (
	"encoding/json"
	"fmt"

	"github.com/zclconf/go-cty/cty"
)

// ToJSON renders a decoded configuration as the JSON handed to an
// extension. Null object attributes (optional ones left out) are omitted,
// so the extension applies its own defaults; numbers keep their exact
// decimal form.
func ToJSON(v cty.Value) (json.RawMessage, error) {
	x, err := jsonValue(v)
	if err != nil {
		return nil, err
	}
	return json.Marshal(x) // maps marshal with sorted keys: stable output
}

// mustJSON is ToJSON for values already known to convert.
func mustJSON(v cty.Value) json.RawMessage {
	b, err := ToJSON(v)
	if err != nil {
		return nil
	}
	return b
}

func jsonValue(v cty.Value) (any, error) {
	if v.IsNull() {
		return nil, nil
	}
	if !v.IsKnown() {
		// Only values depending on a variable that already failed are
		// unknown; that failure is the error to report.
		return nil, nil
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		return v.AsString(), nil
	case ty == cty.Number:
		return json.Number(v.AsBigFloat().Text('f', -1)), nil
	case ty == cty.Bool:
		return v.True(), nil
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		out := []any{}
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			x, err := jsonValue(e)
			if err != nil {
				return nil, err
			}
			out = append(out, x)
		}
		return out, nil
	case ty.IsMapType() || ty.IsObjectType():
		out := map[string]any{}
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			if e.IsNull() {
				continue
			}
			x, err := jsonValue(e)
			if err != nil {
				return nil, err
			}
			out[k.AsString()] = x
		}
		return out, nil
	}
	return nil, fmt.Errorf("a %s cannot be written as JSON", ty.FriendlyName())
}

// StringList converts a known list of strings; null elements become "".
func StringList(v cty.Value) []string {
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if !e.IsNull() {
			out = append(out, e.AsString())
		} else {
			out = append(out, "")
		}
	}
	return out
}

// StringListVal is the HCL list of strings ss, for files zarrgw writes.
func StringListVal(ss []string) cty.Value {
	vals := make([]cty.Value, len(ss))
	for i, s := range ss {
		vals[i] = cty.StringVal(s)
	}
	return cty.ListVal(vals)
}
