// Package codecconfig reads the configuration of the registry's codecs,
// whose specs make unknown keys an error ("additional keys are reserved
// for future versions").
package codecconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/zarrgw/zarrgw/core/meta"
)

// Decode reads raw into v, refusing keys v does not declare, and returns
// raw compacted, which the codec writes back as its configuration. No
// configuration (empty or null) leaves v as it is and returns nil.
func Decode(codec string, raw json.RawMessage, v any) (json.RawMessage, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return nil, fmt.Errorf("%s: configuration: %w", codec, err)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, fmt.Errorf("%s: configuration: %w", codec, err)
	}
	return buf.Bytes(), nil
}

// Codecs reads the nested codec list of a codec's "codecs" field
// (conditional, n5_default): required, and in the form of an array's
// codecs (objects or short-hand names).
func Codecs(codec string, raw json.RawMessage) ([]meta.Extension, error) {
	if len(raw) == 0 {
		return nil, fmt.Errorf("%s: configuration needs \"codecs\"", codec)
	}
	exts, err := meta.ParseExtensions(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: codecs: %w", codec, err)
	}
	return exts, nil
}
