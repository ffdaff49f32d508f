// Package json2 is the numcodecs "json2" codec for object arrays: an
// array->bytes codec writing a JSON list of the elements (nested by the
// chunk's shape, as numpy's tolist gives), then the dtype string and the
// shape: ["foo","bar","|O",[2]].
package json2

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"unicode/utf8"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// Registration registers the codec as "numcodecs.json2" and "json2".
var Registration = codec.Registration{
	Manifest: extension.Manifest{
		Kind:    extension.Codec,
		Name:    "numcodecs.json2",
		Aliases: []string{"json2"},
		ConfigSchema: json.RawMessage(`{"type":"object","properties":{
	"encoding":{"type":"string","enum":["utf-8"]},
	"ensure_ascii":{"type":"boolean"},
	"allow_nan":{"type":"boolean"},
	"check_circular":{"type":"boolean"},
	"indent":{"type":"integer","minimum":0},
	"separators":{"type":"array","items":{"type":"string"}},
	"skipkeys":{"type":"boolean"},
	"sort_keys":{"type":"boolean"},
	"strict":{"type":"boolean"}}}`),
	},
	New: New,
}

// defaults is numcodecs' JSON() configuration, written when none was given.
const defaults = `{"allow_nan":true,"check_circular":true,"encoding":"utf-8","ensure_ascii":true,"indent":null,"separators":[",",":"],"skipkeys":false,"sort_keys":true,"strict":true}`

// Codec is the json2 codec; immutable and safe for concurrent use.
type Codec struct {
	config      json.RawMessage
	ensureASCII bool
}

// New builds the codec from numcodecs' JSON configuration. Only
// "ensure_ascii" and "encoding" (which must be utf-8) affect this
// implementation: output is always compact, which is what numcodecs writes
// by default; other keys are kept for Configuration.
func New(_ context.Context, configuration json.RawMessage, _ codec.Resolver) (codec.Codec, error) {
	cfg := map[string]json.RawMessage{}
	if len(configuration) > 0 && string(configuration) != "null" {
		if err := json.Unmarshal(configuration, &cfg); err != nil {
			return nil, fmt.Errorf("json2: configuration: %w", err)
		}
	}
	delete(cfg, "id")
	c := &Codec{ensureASCII: true}
	if raw, ok := cfg["ensure_ascii"]; ok {
		if err := json.Unmarshal(raw, &c.ensureASCII); err != nil {
			return nil, fmt.Errorf("json2: ensure_ascii: %w", err)
		}
	}
	if raw, ok := cfg["encoding"]; ok {
		var enc string
		if err := json.Unmarshal(raw, &enc); err != nil || (enc != "utf-8" && enc != "utf8") {
			return nil, fmt.Errorf("json2: only the utf-8 text encoding is supported, not %s", raw)
		}
	}
	if len(cfg) == 0 {
		c.config = json.RawMessage(defaults)
		return c, nil
	}
	c.config = marshalSorted(cfg)
	return c, nil
}

func marshalSorted(cfg map[string]json.RawMessage) json.RawMessage {
	keys := make([]string, 0, len(cfg))
	for k := range cfg {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		json.Compact(&b, cfg[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

func (c *Codec) Name() string                   { return "numcodecs.json2" }
func (c *Codec) Configuration() json.RawMessage { return c.config }

// Encode writes the chunk as numcodecs does, byte for byte for string
// elements: compact separators, Python's escaping.
func (c *Codec) Encode(_ context.Context, in codec.Spec, a *ndarray.Array) ([]byte, error) {
	if !in.DataType.Variable() {
		return nil, fmt.Errorf("json2: data type %s is not an object (variable-length) type", in.DataType)
	}
	n := ndarray.NumElements(in.Shape)
	if len(a.Strings) != n {
		return nil, fmt.Errorf("json2: array holds %d elements, spec %v needs %d", len(a.Strings), in.Shape, n)
	}
	size := 16 + 8*len(in.Shape)
	for i, s := range a.Strings {
		if !utf8.ValidString(s) {
			return nil, fmt.Errorf("json2: element %d is not valid UTF-8", i)
		}
		size += len(s) + 3
	}
	out := make([]byte, 0, size)
	out = append(out, '[')
	out = c.appendNested(out, a.Strings, in.Shape)
	if len(out) > 1 {
		out = append(out, ',')
	}
	out = append(out, `"|O",[`...)
	for i, d := range in.Shape {
		if i > 0 {
			out = append(out, ',')
		}
		out = fmt.Appendf(out, "%d", d)
	}
	return append(out, "]]"...), nil
}

// appendNested writes the elements as comma-separated items, nesting a
// list per dimension after the first (the outer list is the caller's).
func (c *Codec) appendNested(out []byte, s []string, shape []int) []byte {
	if len(shape) <= 1 {
		for i, v := range s {
			if i > 0 {
				out = append(out, ',')
			}
			out = appendString(out, v, c.ensureASCII)
		}
		return out
	}
	step := ndarray.NumElements(shape[1:])
	for i := range shape[0] {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, '[')
		out = c.appendNested(out, s[i*step:(i+1)*step], shape[1:])
		out = append(out, ']')
	}
	return out
}
