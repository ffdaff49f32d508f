package hclread

import (
	"bytes"
	"encoding/json"

	"github.com/zclconf/go-cty/cty"

	"github.com/zarrgw/zarrgw/core/extension"
)

// checkValue returns what is wrong with the value of attribute name, a
// value already converted to its schema's HCL type, in the words of the
// one configuration validator (extension.Schema.Check), with paths written
// as in HCL ("codecs[0].name").
func checkValue(s *extension.Schema, v cty.Value, name string) []string {
	if v.IsNull() || !v.IsWhollyKnown() {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(mustJSON(v)))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return nil // values that cannot be JSON were refused by conversion
	}
	var problems []string
	for _, f := range s.Check(x, "/"+name, true) {
		problems = append(problems, extension.PointerPath(f.Path)+" "+f.Message)
	}
	return problems
}
