package meta

import (
	"encoding/json"

	"github.com/zarrgw/zarrgw/core/dtype"
)

// ParseDataType reads v3 data type metadata: a name ("uint8") or an
// object with a name and a configuration ({"name": "numpy.datetime64",
// ...}), as an array's data_type and codecs that name a type (cast_value's
// data_type) write it.
func ParseDataType(raw json.RawMessage) (dtype.DataType, error) {
	return parseV3DataType(raw)
}
