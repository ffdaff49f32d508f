package dtype

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

type jsonKind uint8

const (
	jsonNull jsonKind = iota
	jsonBool
	jsonNumber
	jsonString
	jsonArray
	jsonObject
)

// jsonValue is a fill value classified by its JSON type; numbers keep their
// literal text so that integers are never routed through float64.
type jsonValue struct {
	kind  jsonKind
	text  string // the value as written (compact for short values)
	str   string // decoded string (jsonString)
	truth bool   // jsonBool
	elems []json.RawMessage
}

// maxNumberLen bounds a number literal: longer ones are not fill values
// and would only cost time in exact (big.Rat) parsing.
const maxNumberLen = 1024

func classify(raw json.RawMessage) (jsonValue, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return jsonValue{}, errors.New("empty value")
	}
	if !json.Valid(raw) {
		return jsonValue{}, fmt.Errorf("invalid JSON %q", abbreviate(raw))
	}
	v := jsonValue{text: string(raw)}
	switch raw[0] {
	case 'n':
		v.kind = jsonNull
	case 't', 'f':
		v.kind, v.truth = jsonBool, raw[0] == 't'
	case '"':
		v.kind = jsonString
		if err := json.Unmarshal(raw, &v.str); err != nil {
			return jsonValue{}, err
		}
	case '[':
		v.kind = jsonArray
		if err := json.Unmarshal(raw, &v.elems); err != nil {
			return jsonValue{}, err
		}
	case '{':
		v.kind = jsonObject
	default:
		v.kind = jsonNumber
		if len(raw) > maxNumberLen {
			return jsonValue{}, fmt.Errorf("number of %d digits is too long", len(raw))
		}
	}
	return v, nil
}

// abbreviatedFill is how much of a fill value an error quotes: enough to
// recognise it, short enough that a huge value does not flood a log line.
const abbreviatedFill = 40

func abbreviate(b []byte) string {
	if len(b) > abbreviatedFill {
		return string(b[:abbreviatedFill]) + "..."
	}
	return string(b)
}

// isZeroNumber reports whether v is a JSON number equal to zero (0, 0.0,
// -0, 0e5): the legacy "no particular value" fill of zarr-python 2.
func isZeroNumber(v jsonValue) bool {
	if v.kind != jsonNumber {
		return false
	}
	for _, c := range v.text {
		switch {
		case c == 'e' || c == 'E':
			return true
		case c >= '1' && c <= '9':
			return false
		}
	}
	return true
}
