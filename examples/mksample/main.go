// Command mksample writes the small sample dataset that `make run` serves:
//
//	go run ./examples/mksample examples/sample.zarr
//	go run ./examples/mksample -format 2 examples/gateway/data/sample_v2.zarr
//
// The Zarr v2 copy is for clients that read only v2 (zarr-python 2). The
// arrays are an xarray dataset: temperature (station, hour) and its
// coordinates station and hour, each naming its dimensions (v3
// dimension_names; in v2 xarray's _ARRAY_DIMENSIONS attribute, which
// meta.ArrayMeta.ToV2 writes from them), so xarray.open_zarr opens either.
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
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
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
	s, err := fsstore.New(dir)
	if err != nil {
		return err
	}
	defer s.Close()
	if _, err := hierarchy.CreateGroup(ctx, s, "", f, json.RawMessage(`{"title":"zarrgw sample dataset"}`)); err != nil {
		return err
	}
	f32 := dtype.Named("float32")
	nan := make([]byte, 4)
	binary.LittleEndian.PutUint32(nan, math.Float32bits(float32(math.NaN())))
	temp := ndarray.New(f32, []int{4, 6})
	for i := 0; i < 24; i++ {
		binary.LittleEndian.PutUint32(temp.Data[4*i:], math.Float32bits(12.5+0.25*float32(i)))
	}
	err = create(ctx, s, "temperature", f, &meta.ArrayMeta{
		Shape: []int{4, 6}, ChunkShape: []int{2, 4}, DataType: f32, FillValue: nan,
		Codecs: []meta.Extension{
			{Name: "bytes", Configuration: json.RawMessage(`{"endian":"little"}`), MustUnderstand: true},
			{Name: "zstd", Configuration: json.RawMessage(`{"level":0,"checksum":false}`), MustUnderstand: true},
		},
		DimensionNames: names("station", "hour"),
		Attributes:     json.RawMessage(`{"units":"degC"}`),
	}, temp)
	if err != nil {
		return err
	}
	str := dtype.Named("string")
	station := ndarray.New(str, []int{4})
	copy(station.Strings, []string{"Tromsø", "Zürich", "São Paulo", "Kyōto"})
	err = create(ctx, s, "station", f, &meta.ArrayMeta{
		Shape: []int{4}, ChunkShape: []int{4}, DataType: str, FillValue: []byte{},
		Codecs:         []meta.Extension{{Name: "vlen-utf8", Configuration: json.RawMessage(`{}`), MustUnderstand: true}},
		DimensionNames: names("station"),
		Attributes:     json.RawMessage(`{}`),
	}, station)
	if err != nil {
		return err
	}
	// float, with NaN as its fill value: xarray masks the fill value of
	// v2 arrays, so an integer hour 0 with fill value 0 would read as NaN
	hour := ndarray.New(f32, []int{6})
	for i := 0; i < 6; i++ {
		binary.LittleEndian.PutUint32(hour.Data[4*i:], math.Float32bits(float32(i)))
	}
	return create(ctx, s, "hour", f, &meta.ArrayMeta{
		Shape: []int{6}, ChunkShape: []int{6}, DataType: f32, FillValue: nan,
		Codecs:         []meta.Extension{{Name: "bytes", Configuration: json.RawMessage(`{"endian":"little"}`), MustUnderstand: true}},
		DimensionNames: names("hour"),
		Attributes:     json.RawMessage(`{"long_name":"hour of the day"}`),
	}, hour)
}

// create writes an array described as Zarr v3 (m) in format f, converted
// by ToV2 for v2, with its chunk keys as zarr-python writes them in f, and
// fills it with data.
func create(ctx context.Context, s store.Store, path string, f meta.Format, m *meta.ArrayMeta, data *ndarray.Array) error {
	m.Format, m.ChunkKey = meta.V3, keys(f)
	if f == meta.V2 {
		var err error
		if m, err = m.ToV2(); err != nil {
			return fmt.Errorf("array /%s: %w", path, err)
		}
	}
	a, err := hierarchy.CreateArray(ctx, s, path, m, array.Options{Codecs: registry.Codecs()})
	if err != nil {
		return err
	}
	return a.WriteAll(ctx, data)
}

func names(list ...string) []*string {
	out := make([]*string, len(list))
	for i := range list {
		out[i] = &list[i]
	}
	return out
}

// keys is the chunk key encoding zarr-python writes in each format (a v3
// array may have v2's: ToV2 keeps it).
func keys(f meta.Format) meta.ChunkKeyEncoding {
	if f == meta.V2 {
		return meta.ChunkKeyEncoding{Name: "v2", Separator: "."}
	}
	return meta.ChunkKeyEncoding{Name: "default", Separator: "/"}
}
