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

	// Zarr v2 here; meta.V3 and zarr.json documents work the same way.
	if _, err := hierarchy.CreateGroup(ctx, s, "weather", meta.V2, nil); err != nil {
		log.Fatal(err)
	}
	daily, err := meta.ParseV2Array([]byte(`{"zarr_format": 2, "shape": [365], "chunks": [30],
		"dtype": "<f4", "fill_value": "NaN", "order": "C", "compressor": null, "filters": null}`), nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, name := range []string{"weather/temperature", "weather/2024/rain"} {
		if _, err := hierarchy.CreateArray(ctx, s, name, daily, opts); err != nil {
			log.Fatal(err)
		}
	}

	root, err := hierarchy.Open(ctx, s, "")
	if err != nil {
		log.Fatal(err)
	}
	err = hierarchy.Walk(ctx, s, root, func(n hierarchy.Node) error {
		if n.Array != nil {
			fmt.Println(n.Name(), "array", n.Array.Shape, n.Array.V2.DType)
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
	// /weather/2024/rain array [365] <f4
	// /weather/temperature array [365] <f4
}
