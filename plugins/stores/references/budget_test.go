package references

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// genSet is a version 1 set of one gen entry over dimension i, whose
// offset is the template offset.
func genSet(dimension, offset string) string {
	return `{"version": 1, "gen": [{"key": "g/{{i}}", "url": "f.nc", "offset": "` + offset + `", "length": 1, "dimensions": {"i": ` + dimension + `}}]}`
}

// Ranges compute as Python's range at every int64 bound, counting up and
// down: no step wraps past the stop (which never ended), and a range
// spanning all of int64 is counted without overflow and refused.
func TestGenRangesAtInt64Bounds(t *testing.T) {
	for dimension, want := range map[string][]int64{
		`{"start": 9223372036854775800, "stop": 9223372036854775807, "step": 5}`:                     {9223372036854775800, 9223372036854775805},
		`{"start": 5, "stop": 0, "step": -2}`:                                                        {1, 3, 5},
		`{"start": 9223372036854775807, "stop": -9223372036854775808, "step": -9223372036854775808}`: {-1, 9223372036854775807},
		`{"start": -9223372036854775808, "stop": -9223372036854775806}`:                              {-9223372036854775808, -9223372036854775807},
		`{"start": 3, "stop": 3}`: nil,
		`{"stop": -5}`:            nil,
		`[7, 7, 2]`:               {2, 7},
	} {
		set, err := ParseJSON([]byte(genSet(dimension, "0")))
		if err != nil {
			t.Errorf("%s: %v", dimension, err)
			continue
		}
		var got []int64
		for _, k := range set.Keys() {
			var v int64
			fmt.Sscanf(k, "g/%d", &v)
			got = append(got, v)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s made %v, want %v", dimension, got, want)
		}
	}
}

// A gen bomb is refused before it makes anything, naming its gen entry
// and the budget: a range of all int64, one of five million, two
// dimensions whose product passes the budget; so is a step of 0, and
// arithmetic that overflows.
func TestGenBombsRefused(t *testing.T) {
	for name, tc := range map[string]struct{ doc, want string }{
		"all of int64": {genSet(`{"start": -9223372036854775808, "stop": 9223372036854775807}`, "0"), `gen entry 0 (key "g/{{i}}"): dimension "i" of 18446744073709551615 values`},
		"five million": {genSet(`{"stop": 5000000}`, "0"), `dimension "i" of 5000000 values`},
		"product":      {`{"version": 1, "gen": [{"key": "g/{{i}}.{{j}}", "url": "f", "dimensions": {"i": {"stop": 1001}, "j": {"stop": 1000}}}]}`, `dimension "j" of 1000 values`},
		"zero step":    {genSet(`{"stop": 5, "step": 0}`, "0"), `gen entry 0 (key "g/{{i}}"): dimension "i": step 0`},
		// each wraps around to a valid offset: wrong bytes, were it not refused
		"minus wraps":   {genSet(`{"start": -9223372036854775808, "stop": -9223372036854775807}`, "{{-i // -4}}"), `integer overflow`},
		"product wraps": {genSet(`[4]`, "{{i * 4611686018427387904}}"), `integer overflow`},
		"sum wraps":     {genSet(`[1]`, "{{i + 9223372036854775807 + 9223372036854775807 + 2}}"), `integer overflow`},
		"floor wraps":   {genSet(`{"start": -9223372036854775808, "stop": -9223372036854775807}`, "{{i // -1 // -4}}"), `integer overflow`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseJSON([]byte(tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// What gen entries make is bounded by the set's limits, in all: exactly
// the limit is made, one more is refused; many entries, each within the
// limit, are refused together.
func TestGenLimitsConfigured(t *testing.T) {
	many := `{"version": 1, "gen": [`
	for e := range 20 {
		if e > 0 {
			many += ","
		}
		many += fmt.Sprintf(`{"key": "g%d/{{i}}", "url": "f.nc", "dimensions": {"i": {"stop": 1000}}}`, e)
	}
	_, err := ParseJSONWithin([]byte(many+`]}`), Limits{Generated: 10_000, Bytes: 1 << 20})
	if !errors.Is(err, errBudget) || !strings.Contains(err.Error(), `gen entry 10 (key "g10/{{i}}")`) {
		t.Errorf("20 entries of 1000 within 10 000: %v", err)
	}
	doc := []byte(`{"version": 1, "gen": [{"key": "a/{{i}}", "url": "f", "dimensions": {"i": {"stop": 6}}},
		{"key": "b/{{i}}", "url": "f", "dimensions": {"i": {"stop": 4}}}]}`)
	if set, err := ParseJSONWithin(doc, Limits{Generated: 10, Bytes: 1 << 20}); err != nil || set.Len() != 10 {
		t.Errorf("within the limit of 10: %v", err)
	}
	_, err = ParseJSONWithin(doc, Limits{Generated: 9, Bytes: 1 << 20})
	if !errors.Is(err, errBudget) || !strings.Contains(err.Error(), `gen entry 1 (key "b/{{i}}")`) || !strings.Contains(err.Error(), "9 references") {
		t.Errorf("over the limit of 9: %v", err)
	}
	// keys "a/0".."a/5", "b/0".."b/3" (3 bytes each) and their URLs "f"
	// are made of templates only where they have one: 30 bytes
	if _, err := ParseJSONWithin(doc, Limits{Generated: 10, Bytes: 30}); err != nil {
		t.Errorf("within 30 bytes: %v", err)
	}
	if _, err := ParseJSONWithin(doc, Limits{Generated: 10, Bytes: 29}); !errors.Is(err, errBudget) || !strings.Contains(err.Error(), "max_generated_bytes") {
		t.Errorf("over 29 bytes: %v", err)
	}
}

// Templates that expand to more bytes than the budget are refused before
// the string is made: a template repeated in a URL, in many references,
// concatenated in an expression, or in the URLs of a gen entry.
func TestTemplateBombsRefused(t *testing.T) {
	limits := Limits{Generated: 1000, Bytes: 16 << 20}
	big := strings.Repeat("x", 64<<10) // 300 of them: 19 MiB
	refs := `{"version": 1, "templates": {"u": "` + big + `"}, "refs": {`
	for i := range 300 {
		if i > 0 {
			refs += ","
		}
		refs += fmt.Sprintf(`"a/%d": ["{{u}}", 0, 1]`, i)
	}
	refs += `}}`
	for name, doc := range map[string]string{
		"one url":     `{"version": 1, "templates": {"u": "` + big + `"}, "refs": {"a/0": ["` + strings.Repeat("{{u}}", 300) + `", 0, 1]}}`,
		"many refs":   refs,
		"concatenate": `{"version": 1, "templates": {"u": "` + big + `"}, "refs": {"a/0": ["{{` + strings.Repeat("u+", 300) + `u}}", 0, 1]}}`,
		"gen urls":    `{"version": 1, "templates": {"u": "` + big + `"}, "gen": [{"key": "g/{{i}}", "url": "{{u}}{{i}}", "dimensions": {"i": {"stop": 300}}}]}`,
	} {
		_, err := ParseJSONWithin([]byte(doc), limits)
		if !errors.Is(err, errBudget) || !strings.Contains(err.Error(), "max_generated_bytes") {
			t.Errorf("%s: %.200v, want the bytes budget", name, err)
		}
	}
}

// An expression nested deeper than maxDepth is refused, however deep: the
// parser recurses per level, and a set of a million "(" must not exhaust
// the stack.
func TestDeepExpressionsRefused(t *testing.T) {
	for name, expr := range map[string]string{
		"parentheses": strings.Repeat("(", 1_000_000) + "1" + strings.Repeat(")", 1_000_000),
		"minus":       strings.Repeat("-", 1_000_000) + "1",
	} {
		_, err := ParseJSON([]byte(`{"version": 1, "refs": {"a/0": ["f{{` + expr + `}}", 0, 1]}}`))
		if err == nil || !strings.Contains(err.Error(), "nested more than") {
			t.Errorf("%s: %.200v, want nested too deep", name, err)
		}
	}
	vars := map[string]value{}
	if v, err := evaluate(strings.Repeat("(", maxDepth)+"1"+strings.Repeat(")", maxDepth), vars, newBudget(DefaultLimits)); err != nil || v.n != 1 {
		t.Errorf("%d levels: %v %v", maxDepth, v, err)
	}
}

// Template arithmetic reports every overflow and nothing else: each
// operator at the int64 bounds, and unary minus of the least int64.
func TestTemplateArithmeticOverflow(t *testing.T) {
	vars := map[string]value{"min": intValue(math.MinInt64), "max": intValue(math.MaxInt64)}
	for expr, ok := range map[string]bool{
		"max + 1": false, "min + -1": false, "max + min": true, "-5 + 5": true,
		"min - 1": false, "0 - min": false, "-1 - min": true, "max - max": true, "-min": false, "-max": true,
		"4294967296 * 2147483648": false, "2147483648 * 2147483648": true,
		"-1 * min": false, "min * -1": false, "min * 1": true, "0 * min": true,
		"-3037000500 * 3037000500": false, "-3037000499 * 3037000499": true,
		"min // -1": false, "min % -1": true,
	} {
		_, err := evaluate(expr, vars, newBudget(DefaultLimits))
		if (err == nil) != ok || (err != nil && !errors.Is(err, errOverflow)) {
			t.Errorf("%s: %v, want ok %v", expr, err, ok)
		}
	}
}

// Ranges are counted at every int64 bound.
func TestRangeLen(t *testing.T) {
	for _, tc := range []struct {
		start, stop, step int64
		want              uint64
	}{
		{0, 10, 3, 4}, {10, 0, -3, 4}, {0, 10, -1, 0}, {math.MinInt64, math.MaxInt64, 1, math.MaxUint64},
		{math.MaxInt64, math.MinInt64, math.MinInt64, 2}, {math.MinInt64, math.MaxInt64, math.MaxInt64, 3},
	} {
		if got := rangeLen(tc.start, tc.stop, tc.step); got != tc.want {
			t.Errorf("range(%d, %d, %d) has %d values, want %d", tc.start, tc.stop, tc.step, got, tc.want)
		}
	}
}
