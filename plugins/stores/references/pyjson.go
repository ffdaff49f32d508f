package references

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Python's json module writes NaN, Infinity and -Infinity as bare words
// (a NetCDF attribute of NaN becomes one in .zattrs), and kerchunk's
// Parquet index is written by it. Go's decoder refuses them; a reader
// of the metadata (zarr-python) takes them. So the index is decoded from
// a copy with each such word replaced by a standard number of the same
// length, and every metadata value served as its bytes in the original.

// pythonJSON returns doc with the words NaN, Infinity and -Infinity
// outside strings replaced by numbers of their length: offsets into the
// result are offsets into doc.
func pythonJSON(doc []byte) []byte {
	if !bytes.Contains(doc, []byte("NaN")) && !bytes.Contains(doc, []byte("Infinity")) {
		return doc
	}
	out := bytes.Clone(doc)
	inString := false
	for i := 0; i < len(out); i++ {
		c := out[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch {
		case c == '"':
			inString = true
		case bytes.HasPrefix(out[i:], []byte("NaN")):
			copy(out[i:], "0.0")
			i += 2
		case bytes.HasPrefix(out[i:], []byte("Infinity")):
			copy(out[i:], "1.0e+308")
			i += 7
		case bytes.HasPrefix(out[i:], []byte("-Infinity")):
			copy(out[i:], "-1.0e+308")
			i += 8
		}
	}
	return out
}

// validPythonJSON reports whether doc is JSON but for Python's words.
func validPythonJSON(doc []byte) bool { return json.Valid(pythonJSON(doc)) }

// decodeIndex reads a Parquet set's .zmetadata: each metadata value as
// its bytes in doc (Python's words kept) and as standard JSON (for the
// reader's own parsing), and record_size.
func decodeIndex(doc []byte) (meta, clean map[string][]byte, recordSize int64, err error) {
	std := pythonJSON(doc)
	dec := json.NewDecoder(bytes.NewReader(std))
	if err := expectDelim(dec, '{'); err != nil {
		return nil, nil, 0, err
	}
	sawSize := false
	for dec.More() {
		key, err := objectKey(dec)
		if err != nil {
			return nil, nil, 0, err
		}
		switch key {
		case "metadata":
			if err := expectDelim(dec, '{'); err != nil {
				return nil, nil, 0, fmt.Errorf("metadata: %w", err)
			}
			meta, clean = map[string][]byte{}, map[string][]byte{}
			for dec.More() {
				k, err := objectKey(dec)
				if err != nil {
					return nil, nil, 0, fmt.Errorf("metadata: %w", err)
				}
				var v json.RawMessage
				if err := dec.Decode(&v); err != nil {
					return nil, nil, 0, fmt.Errorf("metadata: key %q: %w", k, err)
				}
				end := int(dec.InputOffset())
				meta[k], clean[k] = doc[end-len(v):end:end], std[end-len(v):end:end]
			}
			if err := expectDelim(dec, '}'); err != nil {
				return nil, nil, 0, fmt.Errorf("metadata: %w", err)
			}
		case "record_size":
			if err := dec.Decode(&recordSize); err != nil {
				return nil, nil, 0, fmt.Errorf("record_size: %w", err)
			}
			sawSize = true
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, nil, 0, fmt.Errorf("%s: %w", key, err)
			}
		}
	}
	if meta == nil || !sawSize || recordSize <= 0 || recordSize > maxRecordSize {
		return nil, nil, 0, fmt.Errorf(`want {"metadata": {...}, "record_size": N}, N from 1 to %d`, maxRecordSize)
	}
	return meta, clean, recordSize, nil
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok != want {
		return fmt.Errorf("found %v where %q was expected", tok, want)
	}
	return nil
}

func objectKey(dec *json.Decoder) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", err
	}
	key, ok := tok.(string)
	if !ok {
		return "", fmt.Errorf("found %v where a key was expected", tok)
	}
	return key, nil
}
