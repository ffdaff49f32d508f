package castvalue

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/zarrgw/zarrgw/core/dtype"
)

// scalarMap maps single input elements (by their in-memory bytes) to
// output elements; nan is the output of any NaN input, when a NaN key is
// mapped.
type scalarMap struct {
	byBytes map[string][]byte
	nan     []byte
}

// parseMap reads [[input, output], ...] with inputs in the fill value
// encoding of from and outputs in that of to; the first of repeated keys
// wins. A zero to checks the keys only.
func parseMap(entries [][]json.RawMessage, from, to dtype.DataType) (scalarMap, error) {
	m := scalarMap{byBytes: map[string][]byte{}}
	for i, e := range entries {
		if len(e) != 2 {
			return m, fmt.Errorf("entry %d: %d elements, want [input, output]", i, len(e))
		}
		key, err := dtype.ParseFill(from, e[0], false)
		if err != nil || key == nil {
			return m, fmt.Errorf("entry %d: input %s: %v", i, e[0], orNull(err))
		}
		var val []byte
		if to.Kind != dtype.Invalid {
			if val, err = dtype.ParseFill(to, e[1], false); err != nil || val == nil {
				return m, fmt.Errorf("entry %d: output %s: %v", i, e[1], orNull(err))
			}
		}
		if isNaN(from, key) {
			if m.nan == nil {
				m.nan = val
			}
			continue
		}
		if _, dup := m.byBytes[string(key)]; !dup {
			m.byBytes[string(key)] = val
		}
	}
	return m, nil
}

func orNull(err error) error {
	if err == nil {
		return fmt.Errorf("null is not a value")
	}
	return err
}

// lookup returns the mapped output of the element src of k, if any.
func (m scalarMap) lookup(k kind, src []byte) ([]byte, bool) {
	if len(m.byBytes) == 0 && m.nan == nil {
		return nil, false
	}
	if m.nan != nil && k.num.IsFloat() && math.IsNaN(k.num.Load(src).F) {
		return m.nan, true
	}
	v, ok := m.byBytes[string(src)]
	return v, ok
}

func isNaN(dt dtype.DataType, b []byte) bool {
	k, err := kindOf(dt)
	if err != nil || !k.num.IsFloat() {
		return false
	}
	return math.IsNaN(k.num.Load(b).F)
}
