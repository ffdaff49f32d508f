package array_test

import (
	"context"
	"fmt"
	"log"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/codecs/bytescodec"
)

// An array is created from its metadata, written a slice at a time and
// read back. Core holds no codecs: the "bytes" codec every v3 array names
// comes from its plugin package (plugins/builtin lists them all).
func Example() {
	ctx := context.Background()
	s := store.NewMemory()
	m, _, err := meta.ParseV3([]byte(`{
		"zarr_format": 3, "node_type": "array",
		"shape": [4, 6], "data_type": "uint8", "fill_value": 0,
		"chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2, 3]}},
		"chunk_key_encoding": {"name": "default"},
		"codecs": [{"name": "bytes"}]}`))
	if err != nil {
		log.Fatal(err)
	}
	opts := array.Options{Codecs: codec.NewRegistry(bytescodec.Registration)}
	a, err := array.Create(ctx, s, "counts", m, opts)
	if err != nil {
		log.Fatal(err)
	}

	// Write a 2x3 block into rows 1-2, columns 2-4 (it straddles chunks).
	sel, err := grid.Parse("1:3, 2:5", a.Shape())
	if err != nil {
		log.Fatal(err)
	}
	block := &ndarray.Array{DType: m.DataType, Shape: []int{2, 3}, Data: []byte{1, 2, 3, 4, 5, 6}}
	if err := a.Write(ctx, sel, block); err != nil {
		log.Fatal(err)
	}

	all, err := a.ReadAll(ctx)
	if err != nil {
		log.Fatal(err)
	}
	rows, cols := all.Shape[0], all.Shape[1]
	for r := range rows {
		line := make([]any, cols)
		for c := range cols {
			line[c] = all.At(r*cols + c) // elements in C order
		}
		fmt.Println(line...)
	}
	// Output:
	// 0 0 0 0 0 0
	// 0 0 1 2 3 0
	// 0 0 4 5 6 0
	// 0 0 0 0 0 0
}
