// Command limits measures what bounds zarr_benchmarks' workloads on this
// machine, apart from any Zarr implementation:
//
//	limits zstd DIR     decode every chunk file under DIR/c with zarrgw's
//	                    zstd codec, then encode the decoded chunks again at
//	                    the array's level, on every core, from memory (no
//	                    I/O): the codec's share of a read and a round trip
//	limits durable DIR N MIB
//	                    write N files of MIB MiB into DIR, each made
//	                    durable (fsync of the file, then of the directory)
//	                    before the next starts on its core, as a durable
//	                    store writes chunks: the disk's pace for them
//
// Each prints its seconds, wall time measured around the work only.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/plugins/codecs/zstdcodec"
)

func main() {
	var err error
	switch {
	case len(os.Args) == 3 && os.Args[1] == "zstd":
		err = zstdLimits(os.Args[2])
	case len(os.Args) == 5 && os.Args[1] == "durable":
		err = durable(os.Args[2], os.Args[3], os.Args[4])
	default:
		err = fmt.Errorf("usage: limits zstd DIR | limits durable DIR N MIB")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "limits:", err)
		os.Exit(1)
	}
}

// parallel runs fn(i) for i in [0, n) on every core and returns the wall
// time it took and the first error.
func parallel(n int, fn func(i int) error) (time.Duration, error) {
	var next sync.Mutex
	i, firstErr := 0, error(nil)
	var wg sync.WaitGroup
	start := time.Now()
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				next.Lock()
				k := i
				i++
				next.Unlock()
				if k >= n {
					return
				}
				if err := fn(k); err != nil {
					next.Lock()
					if firstErr == nil {
						firstErr = err
					}
					next.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return time.Since(start), firstErr
}

func zstdLimits(dir string) error {
	var files []string
	err := filepath.WalkDir(filepath.Join(dir, "c"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		return err
	}
	var doc struct {
		Codecs []struct {
			Name          string          `json:"name"`
			Configuration json.RawMessage `json:"configuration"`
		} `json:"codecs"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "zarr.json"))
	if err == nil {
		err = json.Unmarshal(b, &doc)
	}
	if err != nil || len(doc.Codecs) != 2 || doc.Codecs[1].Name != "zstd" {
		return fmt.Errorf("%s: not an array of bytes + zstd (%v)", dir, err)
	}
	ctx := context.Background()
	c, err := zstdcodec.New(ctx, doc.Codecs[1].Configuration, nil)
	if err != nil {
		return err
	}
	z := c.(codec.BytesBytes)
	encoded := make([][]byte, len(files))
	for i, f := range files {
		if encoded[i], err = os.ReadFile(f); err != nil {
			return err
		}
	}
	// A first pass, untimed, learns each chunk's size; the timed pass
	// decodes into buffers of that size, as a read decodes into its output.
	spec := codec.Spec{DecodedSize: -1, MaxDecodedSize: 1 << 30}
	decoded := make([][]byte, len(files))
	for i := range files {
		if decoded[i], err = z.DecodeBytes(ctx, spec, encoded[i]); err != nil {
			return err
		}
	}
	into, ok := z.(interface {
		DecodeBytesInto(ctx context.Context, in codec.Spec, b, dst []byte) error
	})
	if !ok {
		return fmt.Errorf("the zstd codec does not decode into a buffer")
	}
	took, err := parallel(len(files), func(i int) error {
		return into.DecodeBytesInto(ctx, codec.Spec{DecodedSize: int64(len(decoded[i]))}, encoded[i], decoded[i])
	})
	if err != nil {
		return err
	}
	var n int64
	for _, d := range decoded {
		n += int64(len(d))
	}
	fmt.Printf("zstd decode: %d chunks, %d bytes out, %.3f s on %d cores\n", len(files), n, took.Seconds(), runtime.GOMAXPROCS(0))
	var out int64
	var mu sync.Mutex
	took, err = parallel(len(files), func(i int) error {
		e, err := z.EncodeBytes(ctx, spec, decoded[i])
		mu.Lock()
		out += int64(len(e))
		mu.Unlock()
		return err
	})
	if err != nil {
		return err
	}
	fmt.Printf("zstd encode (%s): %d bytes in, %d out, %.3f s on %d cores\n", zstdcodec.Library(), n, out, took.Seconds(), runtime.GOMAXPROCS(0))
	return nil
}

func durable(dir, count, mib string) error {
	n, err1 := strconv.Atoi(count)
	size, err2 := strconv.Atoi(mib)
	if err1 != nil || err2 != nil || n <= 0 || size <= 0 {
		return fmt.Errorf("durable: bad count %q or size %q", count, mib)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	data := make([]byte, size<<20)
	for i := range data {
		data[i] = byte(i * 7)
	}
	took, err := parallel(n, func(i int) error {
		f, err := os.Create(filepath.Join(dir, strconv.Itoa(i)))
		if err != nil {
			return err
		}
		if _, err := f.Write(data); err != nil {
			f.Close()
			return err
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		d, err := os.Open(dir)
		if err != nil {
			return err
		}
		defer d.Close()
		return d.Sync()
	})
	if err != nil {
		return err
	}
	fmt.Printf("durable writes: %d files of %d MiB, %.3f s on %d cores\n", n, size, took.Seconds(), runtime.GOMAXPROCS(0))
	return nil
}
