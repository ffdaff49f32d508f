// Command mksample writes the small sample dataset that `make run` serves:
//
//	go run ./examples/mksample examples/sample.zarr
//	go run ./examples/mksample -format 2 examples/gateway/data/sample_v2.zarr
//
// The Zarr v2 copy is for clients that read only v2 (zarr-python 2).
package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/host/registry"
	"github.com/zarrgw/zarrgw/plugins/stores/fs"
)

func main() {
	format := flag.Int("format", 3, "Zarr format: 3 or 2")
	flag.Parse()
	if flag.NArg() != 1 || *format != 2 && *format != 3 {
		fmt.Fprintln(os.Stderr, "usage: mksample [-format 2|3] DIR")
		os.Exit(2)
	}
	if err := write(context.Background(), flag.Arg(0), meta.Format(*format)); err != nil {
		fmt.Fprintln(os.Stderr, "mksample:", err)
		os.Exit(1)
	}
}

func write(ctx context.Context, dir string, f meta.Format) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	s, err := fs.New(dir)
	if err != nil {
		return err
	}
	defer s.Close()
	if _, err := hierarchy.CreateGroup(ctx, s, "", f, json.RawMessage(`{"title":"zarrgw sample dataset"}`)); err != nil {
		return err
	}
	opts := array.Options{Codecs: registry.Codecs()}
	f32 := dtype.Named("float32")
	nan := make([]byte, 4)
	binary.LittleEndian.PutUint32(nan, math.Float32bits(float32(math.NaN())))
	temp, err := hierarchy.CreateArray(ctx, s, "temperature", &meta.ArrayMeta{
		Format: f, Shape: []int{4, 6}, ChunkShape: []int{2, 4}, DataType: f32, FillValue: nan,
		ChunkKey: keys(f),
		Codecs: []meta.Extension{
			{Name: "bytes", Configuration: json.RawMessage(`{"endian":"little"}`), MustUnderstand: true},
			{Name: "zstd", Configuration: json.RawMessage(`{"level":0,"checksum":false}`), MustUnderstand: true},
		},
		DimensionNames: []*string{ptr("station"), ptr("hour")},
		Attributes:     json.RawMessage(`{"units":"degC"}`),
	}, opts)
	if err != nil {
		return err
	}
	data := ndarray.New(f32, []int{4, 6})
	for i := 0; i < 24; i++ {
		binary.LittleEndian.PutUint32(data.Data[4*i:], math.Float32bits(12.5+0.25*float32(i)))
	}
	if err := temp.WriteAll(ctx, data); err != nil {
		return err
	}
	str := dtype.Named("string")
	if f == meta.V2 {
		str, _, _ = dtype.ParseV2("|O")
	}
	names, err := hierarchy.CreateArray(ctx, s, "station", &meta.ArrayMeta{
		Format: f, Shape: []int{4}, ChunkShape: []int{4}, DataType: str, FillValue: []byte{},
		ChunkKey:   keys(f),
		Codecs:     []meta.Extension{{Name: "vlen-utf8", Configuration: json.RawMessage(`{}`), MustUnderstand: true}},
		Attributes: json.RawMessage(`{}`),
	}, opts)
	if err != nil {
		return err
	}
	st := ndarray.New(str, []int{4})
	copy(st.Strings, []string{"Tromsø", "Zürich", "São Paulo", "Kyōto"})
	return names.WriteAll(ctx, st)
}

func ptr(s string) *string { return &s }

// keys is the chunk key encoding zarr-python writes in each format.
func keys(f meta.Format) meta.ChunkKeyEncoding {
	if f == meta.V2 {
		return meta.ChunkKeyEncoding{Name: "v2", Separator: "."}
	}
	return meta.ChunkKeyEncoding{Name: "default", Separator: "/"}
}
