package hierarchy_test

import (
	"context"
	"fmt"
	"log"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/codecs/bytescodec"
)

// A hierarchy is groups and arrays under one root. Creating a node
// creates its missing ancestor groups; Walk visits every node, parents
// before children.
func Example() {
	ctx := context.Background()
	s := store.NewMemory()
	opts := array.Options{Codecs: codec.NewRegistry(bytescodec.Registration)}

	if _, err := hierarchy.CreateGroup(ctx, s, "weather", meta.V3, nil); err != nil {
		log.Fatal(err)
	}
	for _, name := range []string{"weather/temperature", "weather/2024/rain"} {
		m, _, err := meta.ParseV3([]byte(`{
			"zarr_format": 3, "node_type": "array",
			"shape": [365], "data_type": "float32", "fill_value": "NaN",
			"chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [30]}},
			"chunk_key_encoding": {"name": "default"},
			"codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}`))
		if err != nil {
			log.Fatal(err)
		}
		if _, err := hierarchy.CreateArray(ctx, s, name, m, opts); err != nil {
			log.Fatal(err)
		}
	}

	root, err := hierarchy.Open(ctx, s, "")
	if err != nil {
		log.Fatal(err)
	}
	err = hierarchy.Walk(ctx, s, root, func(n hierarchy.Node) error {
		if n.Array != nil {
			fmt.Println(n.Name(), "array", n.Array.Shape, n.Array.DataType)
		} else {
			fmt.Println(n.Name(), "group")
		}
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// / group
	// /weather group
	// /weather/2024 group
	// /weather/2024/rain array [365] float32
	// /weather/temperature array [365] float32
}
