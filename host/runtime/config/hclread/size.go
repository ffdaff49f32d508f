package hclread

import (
	"fmt"
	"strings"

	"github.com/zclconf/go-cty/cty"

	"github.com/zarrgw/zarrgw/core/size"
)

// Size reads a number of bytes or a string such as "64MiB" or "1.5GB".
func Size(v cty.Value) (int64, error) {
	switch v.Type() {
	case cty.Number:
		f, _ := v.AsBigFloat().Float64()
		return size.Whole(f)
	case cty.String:
		return size.Parse(v.AsString())
	}
	return 0, fmt.Errorf("got %s", v.Type().FriendlyName())
}

// SizeOrZero is Size that also takes 0 (a feature turned off).
func SizeOrZero(v cty.Value) (int64, error) {
	if v.Type() == cty.Number && v.RawEquals(cty.Zero) || v.Type() == cty.String && strings.TrimSpace(v.AsString()) == "0" {
		return 0, nil
	}
	return Size(v)
}

// Rate reads a size per second, such as "16KiB" or "16KiB/s"; 0 turns
// it off.
func Rate(v cty.Value) (int64, error) {
	if v.Type() == cty.String {
		v = cty.StringVal(strings.TrimSuffix(strings.TrimSpace(v.AsString()), "/s"))
	}
	return SizeOrZero(v)
}
