package meta

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
)

// lenient rewrites the bare tokens NaN, Infinity and -Infinity that Python's
// json module writes (allow_nan=True) outside string literals into the JSON
// strings "NaN", "Infinity" and "-Infinity", which Go's decoder accepts.
// They stay readable, and they are exactly the spellings fill values use;
// in attributes they become strings (a rewrite writes them as strings).
func lenient(doc []byte) []byte {
	if !bytes.Contains(doc, []byte("NaN")) && !bytes.Contains(doc, []byte("Infinity")) {
		return doc
	}
	out := make([]byte, 0, len(doc)+16)
	inString, escaped := false, false
	for i := 0; i < len(doc); i++ {
		c := doc[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			out = append(out, c)
			continue
		}
		if c == '"' {
			inString = true
		}
		if tok := bareToken(doc[i:]); tok != "" {
			out = append(out, '"')
			out = append(out, tok...)
			out = append(out, '"')
			i += len(tok) - 1
			continue
		}
		out = append(out, c)
	}
	return out
}

func bareToken(b []byte) string {
	for _, tok := range []string{"NaN", "Infinity", "-Infinity"} {
		if bytes.HasPrefix(b, []byte(tok)) {
			return tok
		}
	}
	return ""
}

// fields is a decoded JSON object whose keys are matched exactly (Go's
// struct decoding would bind "Shape" to Shape). Known keys are taken out
// one by one; whatever remains is unknown.
type fields map[string]json.RawMessage

func decodeObject(doc []byte) (fields, error) {
	trimmed := bytes.TrimSpace(doc)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		if !json.Valid(trimmed) {
			return nil, fmt.Errorf("invalid JSON: %w", syntaxErr(trimmed))
		}
		return nil, errors.New("not a JSON object")
	}
	var f fields
	if err := json.Unmarshal(trimmed, &f); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	return f, nil
}

func syntaxErr(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	return errors.New("empty document")
}

// take removes and returns the value of key.
func (f fields) take(key string) (json.RawMessage, bool) {
	v, ok := f[key]
	delete(f, key)
	return v, ok
}

// takeNonNull is take with JSON null treated as absent.
func (f fields) takeNonNull(key string) (json.RawMessage, bool) {
	v, ok := f.take(key)
	if ok && isNull(v) {
		return nil, false
	}
	return v, ok
}

// sortedKeys lists the remaining keys in order, for stable errors.
func (f fields) sortedKeys() []string {
	keys := make([]string, 0, len(f))
	for k := range f {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// extras checks the keys left in f: each must hold an object with
// "must_understand": false, and is then kept (compacted) for rewriting.
func (f fields) extras() (map[string]json.RawMessage, error) {
	var out map[string]json.RawMessage
	for _, k := range f.sortedKeys() {
		if !mustUnderstandFalse(f[k]) {
			return nil, fmt.Errorf("unknown field %q (only objects with \"must_understand\": false may be ignored)", k)
		}
		if out == nil {
			out = map[string]json.RawMessage{}
		}
		out[k] = compact(f[k])
	}
	return out, nil
}

func mustUnderstandFalse(raw json.RawMessage) bool {
	obj, err := decodeObject(raw)
	if err != nil {
		return false
	}
	mu, ok := obj["must_understand"]
	return ok && string(bytes.TrimSpace(mu)) == "false"
}

func isNull(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}

// compact returns a compacted copy of a valid JSON value.
func compact(raw json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return append(json.RawMessage(nil), raw...)
	}
	return buf.Bytes()
}

func parseString(raw json.RawMessage) (string, error) {
	var s string
	if len(bytes.TrimSpace(raw)) == 0 || bytes.TrimSpace(raw)[0] != '"' {
		return "", fmt.Errorf("expected a string, got %s", abbreviate(raw))
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", err
	}
	return s, nil
}

func parseArray(raw json.RawMessage) ([]json.RawMessage, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '[' {
		return nil, fmt.Errorf("expected an array, got %s", abbreviate(raw))
	}
	var a []json.RawMessage
	if err := json.Unmarshal(t, &a); err != nil {
		return nil, err
	}
	return a, nil
}

// parseInts reads an array of integers, each >= min. Integers are parsed
// from their literal text (never through float64) and must fit in an int.
func parseInts(raw json.RawMessage, min int) ([]int, error) {
	elems, err := parseArray(raw)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(elems))
	for i, e := range elems {
		n, err := parseInt(e)
		if err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
		if n < min {
			return nil, fmt.Errorf("element %d is %d, must be >= %d", i, n, min)
		}
		out[i] = n
	}
	return out, nil
}

func parseInt(raw json.RawMessage) (int, error) {
	tok := string(bytes.TrimSpace(raw))
	n, err := strconv.ParseInt(tok, 10, strconv.IntSize)
	if err != nil {
		return 0, fmt.Errorf("expected an integer, got %s", abbreviate(raw))
	}
	return int(n), nil
}

// abbreviatedJSON is how much of a metadata value an error quotes: enough
// to recognise it, short enough that a huge document does not flood a log
// line.
const abbreviatedJSON = 60

func abbreviate(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > abbreviatedJSON {
		return string(b[:abbreviatedJSON]) + "..."
	}
	return string(b)
}

// parseObject checks that raw is a JSON object and returns it compacted.
func parseObject(raw json.RawMessage) (json.RawMessage, error) {
	if _, err := decodeObject(raw); err != nil {
		return nil, err
	}
	return compact(raw), nil
}

// parseAttributes reads an attributes object; absent or null is "{}".
func parseAttributes(raw json.RawMessage, present bool) (json.RawMessage, error) {
	if !present || isNull(raw) {
		return json.RawMessage("{}"), nil
	}
	obj, err := parseObject(raw)
	if err != nil {
		return nil, fmt.Errorf("attributes: %w", err)
	}
	return obj, nil
}
