// Package codecconfig reads the configuration of the registry's codecs,
// whose specs make unknown keys an error ("additional keys are reserved
// for future versions").
package codecconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
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
