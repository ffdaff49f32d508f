package store_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/zarrgw/zarrgw/core/store"
)

// A store maps keys to bytes. Every store (memory here; file systems,
// S3, Azure and HTTP in plugins/stores) answers the same calls.
func Example() {
	ctx := context.Background()
	var s store.Store = store.NewMemory()

	for key, value := range map[string]string{
		"zarr.json":          `{"zarr_format":3,"node_type":"group"}`,
		"temp/zarr.json":     `{"zarr_format":3,"node_type":"array"}`,
		"temp/c/0/0":         "chunk 0,0",
		"temp/c/0/1":         "chunk 0,1",
		"humidity/zarr.json": `{"zarr_format":3,"node_type":"array"}`,
	} {
		if _, err := s.Set(ctx, key, []byte(value), store.Condition{}); err != nil {
			log.Fatal(err)
		}
	}

	v, err := s.Get(ctx, "temp/c/0/1", store.Range(6, 3)) // bytes 6-8
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s\n", v.Data)

	_, err = s.Get(ctx, "temp/c/1/0", store.ByteRange{}) // never written
	fmt.Println(errors.Is(err, store.ErrNotFound))

	// A conditional write: create only, never overwrite.
	_, err = s.Set(ctx, "zarr.json", []byte("{}"), store.Condition{IfNoneMatch: true})
	fmt.Println(errors.Is(err, store.ErrConflict))

	keys, err := store.ListAll(ctx, s, "temp/") // List, sorted
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(keys)

	dir, err := s.ListDir(ctx, "") // one level, as a directory listing
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(dir.Keys, dir.Prefixes)
	// Output:
	// 0,1
	// true
	// true
	// [temp/c/0/0 temp/c/0/1 temp/zarr.json]
	// [zarr.json] [humidity/ temp/]
}
