// Command decodelimit measures the decode limit of a zstd-compressed Zarr
// array: klauspost/compress decoding every stored chunk, already in
// memory, on all cores (one goroutine and one single-threaded decoder per
// core, each decoding into its own reused buffer), with no I/O, no copy
// into an output and no process start. `zarrgw cat` of the same array can
// only approach this figure; bench/stream/run.sh prints cat / limit.
//
//	go run ./bench/stream/decodelimit DIR [ROUNDS]
//
// DIR is a Zarr v2 array whose chunk files sit in DIR itself (the layout
// bench/stream/make_arrays.py writes). It prints the best of ROUNDS
// (default 7) in seconds for one pass over all chunks.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/klauspost/compress/zstd"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: decodelimit DIR [ROUNDS]")
		os.Exit(2)
	}
	rounds := 7
	if len(os.Args) > 2 {
		n, err := strconv.Atoi(os.Args[2])
		if err != nil || n < 1 {
			fmt.Fprintln(os.Stderr, "decodelimit: ROUNDS must be a positive integer")
			os.Exit(2)
		}
		rounds = n
	}
	best, cpu, bytes, err := run(os.Args[1], rounds)
	if err != nil {
		fmt.Fprintln(os.Stderr, "decodelimit:", err)
		os.Exit(1)
	}
	// CPU seconds per pass tell the decoding's cost apart from the
	// machine's other load, which only stretches the wall time.
	fmt.Fprintf(os.Stderr, "decodelimit: %d bytes decoded per pass on %d cores, %.0f MiB/s, %.3f CPU s per pass\n",
		bytes, runtime.GOMAXPROCS(0), float64(bytes)/best/(1<<20), cpu)
	fmt.Printf("%.4f\n", best)
}

// run loads the chunks and returns the best pass time, the CPU time of
// an average pass and the decoded bytes of one pass.
func run(dir string, rounds int) (float64, float64, int64, error) {
	chunks, err := load(dir)
	if err != nil {
		return 0, 0, 0, err
	}
	workers := runtime.GOMAXPROCS(0)
	decoders := make([]*zstd.Decoder, workers)
	bufs := make([][]byte, workers)
	for i := range decoders {
		// single-threaded, as each worker is one core's share
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(false))
		if err != nil {
			return 0, 0, 0, err
		}
		decoders[i] = d
	}
	var total int64
	best := 0.0
	var cpuStart float64
	for r := 0; r <= rounds; r++ { // round 0 warms the buffers up, untimed
		if r == 1 {
			cpuStart = cpuSeconds()
		}
		var next atomic.Int64
		var decoded atomic.Int64
		errs := make([]error, workers)
		var wg sync.WaitGroup
		start := time.Now()
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := int(next.Add(1) - 1)
					if i >= len(chunks) {
						return
					}
					out, err := decoders[w].DecodeAll(chunks[i].data, bufs[w][:0])
					if err != nil {
						errs[w] = fmt.Errorf("chunk %s: %w", chunks[i].key, err)
						return
					}
					bufs[w] = out
					decoded.Add(int64(len(out)))
				}
			}()
		}
		wg.Wait()
		took := time.Since(start).Seconds()
		for _, err := range errs {
			if err != nil {
				return 0, 0, 0, err
			}
		}
		total = decoded.Load()
		if r > 0 && (best == 0 || took < best) {
			best = took
		}
	}
	return best, (cpuSeconds() - cpuStart) / float64(rounds), total, nil
}

// cpuSeconds is the process's user and system time so far.
func cpuSeconds() float64 {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano()).Seconds()
}

type chunk struct {
	key  string
	data []byte
}

// load reads every chunk file of a v2 array directory (names of digits
// and dots).
func load(dir string) ([]chunk, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []chunk
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, ".") || strings.Trim(name, "0123456789.") != "" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		out = append(out, chunk{name, b})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no chunk files", dir)
	}
	return out, nil
}
