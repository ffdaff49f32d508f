// Package references is a read-only store over a kerchunk reference set:
// each Zarr key is inline data or a byte range of another file (a NetCDF4
// or HDF5 file in a bucket, on a web server, on disk), so that archives in
// those formats serve as Zarr without a byte copied.
package references

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/zarrgw/zarrgw/core/checked"
)

// Ref is where one key's value is: inline (Data, URL empty), or in the
// file at URL: Length bytes from Offset, or the whole file (Length < 0).
type Ref struct {
	Data   []byte
	URL    string
	Offset int64
	Length int64
}

// Inline reports whether the value is held in the reference set itself.
func (r Ref) Inline() bool { return r.URL == "" }

// Set is a reference set parsed whole (the JSON forms): every key's Ref.
type Set struct {
	refs map[string]Ref

	once    sync.Once
	keys    []string            // sorted, for listings
	extents map[string]*Extents // by target URL
}

// Ref returns the Ref of key.
func (s *Set) Ref(key string) (Ref, bool) {
	r, ok := s.refs[key]
	return r, ok
}

// Keys returns every key, sorted.
func (s *Set) Keys() []string {
	s.index()
	return slices.Clone(s.keys)
}

// index sorts the keys and groups the ranges by file, once, on first use
// (a set is filled by parsing before it is read).
func (s *Set) index() {
	s.once.Do(func() {
		s.keys = slices.Sorted(maps.Keys(s.refs))
		s.extents = extentsByURL(maps.Values(s.refs))
	})
}

// Lookup is the Source's: key's Ref and its file's extents.
func (s *Set) Lookup(_ context.Context, key string) (Ref, *Extents, bool, error) {
	s.index()
	r, ok := s.refs[key]
	return r, s.extents[r.URL], ok, nil
}

// List is the Source's: the keys starting with prefix, sorted.
func (s *Set) List(ctx context.Context, prefix string) iter.Seq2[string, error] {
	s.index()
	return sortedList(ctx, s.keys, prefix)
}

// Len is the number of keys.
func (s *Set) Len() int { return len(s.refs) }

// ParseJSON reads a reference set in kerchunk's JSON forms within
// DefaultLimits (see ParseJSONWithin).
func ParseJSON(doc []byte) (*Set, error) { return ParseJSONWithin(doc, DefaultLimits) }

// ParseJSONWithin reads a reference set in kerchunk's JSON forms: version
// 0, a plain mapping of keys to values, and version 1 ({"version": 1,
// "templates", "gen", "refs"}). Values are inline strings ("base64:"
// for binary data), [url] for a whole file or [url, offset, length].
// What templates and gen entries make is bounded by limits, in all. Every
// error names the key (or gen entry) at fault.
func ParseJSONWithin(doc []byte, limits Limits) (*Set, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(doc, &top); err != nil {
		return nil, fmt.Errorf("reference set: not a JSON object: %w", err)
	}
	b := newBudget(limits)
	rawVersion, ok := top["version"]
	if !ok {
		return parseRefs(top, nil, b)
	}
	var version int
	if err := json.Unmarshal(rawVersion, &version); err != nil || version != 1 {
		return nil, fmt.Errorf("reference set: version %s: only versions 0 (no \"version\") and 1 exist", rawVersion)
	}
	var v1 struct {
		Templates map[string]string          `json:"templates"`
		Gen       []genEntry                 `json:"gen"`
		Refs      map[string]json.RawMessage `json:"refs"`
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	if err := dec.Decode(&v1); err != nil {
		return nil, fmt.Errorf("reference set (version 1): %w", err)
	}
	vars := make(map[string]value, len(v1.Templates))
	for name, t := range v1.Templates {
		vars[name] = strValue(t)
	}
	set, err := parseRefs(v1.Refs, vars, b)
	if err != nil {
		return nil, err
	}
	for i, g := range v1.Gen {
		if err := g.expand(set, vars, b); err != nil {
			return nil, fmt.Errorf("reference set: gen entry %d (key %q): %w", i, g.Key, err)
		}
	}
	return set, nil
}

func parseRefs(raw map[string]json.RawMessage, vars map[string]value, b *budget) (*Set, error) {
	set := &Set{refs: make(map[string]Ref, len(raw))}
	for key, v := range raw {
		if err := checkKey(key); err != nil {
			return nil, fmt.Errorf("reference set: key %q: %w", key, err)
		}
		r, err := parseValue(v, vars, b)
		if err != nil {
			return nil, fmt.Errorf("reference set: key %q: %w", key, err)
		}
		set.refs[key] = r
	}
	return set, nil
}

// checkKey refuses keys no Zarr store holds: empty, absolute, or with
// empty, "." or ".." segments.
func checkKey(key string) error {
	if key == "" || strings.HasPrefix(key, "/") {
		return fmt.Errorf("not a store key")
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("not a store key (segment %q)", seg)
		}
	}
	return nil
}

// parseValue reads one value: a string (inline) or a reference array.
func parseValue(raw json.RawMessage, vars map[string]value, b *budget) (Ref, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return Ref{}, fmt.Errorf("empty value")
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return Ref{}, err
		}
		return inline(s)
	case '[':
		var parts []json.RawMessage
		if err := json.Unmarshal(raw, &parts); err != nil {
			return Ref{}, err
		}
		return parseTarget(parts, vars, b)
	}
	return Ref{}, fmt.Errorf("malformed entry %.60s: want a string or [url], [url, offset, length]", raw)
}

// inline is an inline value: "base64:" data decoded, other strings as
// their UTF-8 bytes (metadata documents, mostly).
func inline(s string) (Ref, error) {
	if b64, ok := strings.CutPrefix(s, "base64:"); ok {
		data, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			return Ref{}, fmt.Errorf("inline base64 data: %w", err)
		}
		return Ref{Data: data}, nil
	}
	return Ref{Data: []byte(s)}, nil
}

func parseTarget(parts []json.RawMessage, vars map[string]value, b *budget) (Ref, error) {
	if len(parts) != 1 && len(parts) != 3 {
		return Ref{}, fmt.Errorf("malformed entry: %d elements, want [url] or [url, offset, length]", len(parts))
	}
	var url string
	if err := json.Unmarshal(parts[0], &url); err != nil || url == "" {
		return Ref{}, fmt.Errorf("malformed entry: the url %s is not a non-empty string", parts[0])
	}
	url, err := expandMade(url, vars, b)
	if err != nil {
		return Ref{}, err
	}
	r := Ref{URL: url, Length: -1}
	if len(parts) == 1 {
		return r, nil
	}
	if r.Offset, err = jsonInt(parts[1], "offset"); err != nil {
		return Ref{}, err
	}
	if r.Length, err = jsonInt(parts[2], "length"); err != nil {
		return Ref{}, err
	}
	return r, checkRange(r)
}

func jsonInt(raw json.RawMessage, what string) (int64, error) {
	n, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("malformed entry: %s %s is not an integer", what, raw)
	}
	return n, nil
}

func checkRange(r Ref) error {
	if r.Offset < 0 || r.Length < 0 || r.Offset > (1<<62)-r.Length {
		return fmt.Errorf("malformed entry: range %d+%d of %s", r.Offset, r.Length, r.URL)
	}
	return nil
}

// genEntry is a version 1 "gen" entry: references made for every
// combination of its dimensions' values, key, url, offset and length being
// templates over them.
type genEntry struct {
	Key        string                     `json:"key"`
	URL        string                     `json:"url"`
	Offset     json.RawMessage            `json:"offset"`
	Length     json.RawMessage            `json:"length"`
	Dimensions map[string]json.RawMessage `json:"dimensions"`
}

func (g genEntry) expand(set *Set, vars map[string]value, b *budget) error {
	if g.Key == "" || g.URL == "" {
		return fmt.Errorf("needs a key and a url")
	}
	names := make([]string, 0, len(g.Dimensions))
	for name := range g.Dimensions {
		names = append(names, name)
	}
	sort.Strings(names)
	dims := make([]dimension, len(names))
	for i, name := range names {
		d, err := parseDimension(g.Dimensions[name])
		if err != nil {
			return fmt.Errorf("dimension %q: %w", name, err)
		}
		if d.n == 0 {
			return nil // no combination: nothing is made
		}
		dims[i] = d
	}
	// The count is checked against what is left before a reference is
	// made: a gen bomb is refused at once, not after filling the memory.
	total := int64(1)
	for i, d := range dims {
		var ok bool
		if d.n <= uint64(b.refs) {
			total, ok = checked.Mul(total, int64(d.n))
		}
		if !ok || total > b.refs {
			return fmt.Errorf("dimension %q of %d values: %w", names[i], d.n, b.tooMany())
		}
	}
	if err := b.generate(total); err != nil {
		return err
	}
	local := make(map[string]value, len(vars)+len(names))
	for k, v := range vars {
		local[k] = v
	}
	idx := make([]uint64, len(names))
	for n := int64(0); n < total; n++ {
		for i, name := range names {
			local[name] = intValue(dims[i].at(idx[i]))
		}
		if err := g.one(set, local, b); err != nil {
			return err
		}
		for i := len(idx) - 1; i >= 0; i-- { // the next combination, last name fastest
			if idx[i]++; idx[i] < dims[i].n {
				break
			}
			idx[i] = 0
		}
	}
	return nil
}

func (g genEntry) one(set *Set, vars map[string]value, b *budget) error {
	key, err := expandMade(g.Key, vars, b)
	if err != nil {
		return err
	}
	if err := checkKey(key); err != nil {
		return fmt.Errorf("key %q: %w", key, err)
	}
	url, err := expandMade(g.URL, vars, b)
	if err != nil {
		return err
	}
	r := Ref{URL: url, Length: -1}
	if g.Offset != nil || g.Length != nil {
		if r.Offset, err = templateInt(g.Offset, vars, b, "offset"); err != nil {
			return fmt.Errorf("key %q: %w", key, err)
		}
		if r.Length, err = templateInt(g.Length, vars, b, "length"); err != nil {
			return fmt.Errorf("key %q: %w", key, err)
		}
		if err := checkRange(r); err != nil {
			return fmt.Errorf("key %q: %w", key, err)
		}
	}
	set.refs[key] = r
	return nil
}

// expandMade expands a template, taking the bytes it makes from b (a
// string without a template is the set's own bytes, and costs nothing).
func expandMade(s string, vars map[string]value, b *budget) (string, error) {
	if !strings.Contains(s, "{{") {
		return s, nil
	}
	out, err := expand(s, vars, b)
	if err != nil {
		return "", err
	}
	return out, b.spend(int64(len(out)))
}

// templateInt is an offset or length of a gen entry: an integer, or a
// string template that expands to one.
func templateInt(raw json.RawMessage, vars map[string]value, b *budget, what string) (int64, error) {
	if raw == nil {
		return 0, fmt.Errorf("%s missing", what)
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return jsonInt(raw, what)
	}
	out, err := expand(s, vars, b)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(strings.TrimSpace(out), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s %q expands to %.60q, not an integer", what, s, out)
	}
	return n, nil
}

// dimension is a gen dimension's values: a list, or Python's
// range(start, stop, step) of n values, made one at a time (never held).
type dimension struct {
	list        []int64
	start, step int64
	n           uint64
}

// at is the i-th value (i < d.n): start + i*step cannot overflow, since
// it lies between start and stop.
func (d dimension) at(i uint64) int64 {
	if d.list != nil {
		return d.list[i]
	}
	return int64(uint64(d.start) + i*uint64(d.step))
}

// parseDimension reads a gen dimension: {"start", "stop", "step"} as
// Python's range (start 0 and step 1 by default; a negative step counts
// down), or a list of integers.
func parseDimension(raw json.RawMessage) (dimension, error) {
	var list []int64
	if json.Unmarshal(raw, &list) == nil {
		if list == nil {
			list = []int64{}
		}
		return dimension{list: list, n: uint64(len(list))}, nil
	}
	var r struct {
		Start *int64 `json:"start"`
		Stop  *int64 `json:"stop"`
		Step  *int64 `json:"step"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || r.Stop == nil {
		return dimension{}, fmt.Errorf("want {\"stop\": N} (with optional start and step) or a list of integers, got %.60s", raw)
	}
	d := dimension{step: 1}
	if r.Start != nil {
		d.start = *r.Start
	}
	if r.Step != nil {
		d.step = *r.Step
	}
	if d.step == 0 {
		return dimension{}, fmt.Errorf("step 0: a range needs a step other than 0")
	}
	d.n = rangeLen(d.start, *r.Stop, d.step)
	return d, nil
}
