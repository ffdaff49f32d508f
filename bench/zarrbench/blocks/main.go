// Command blocks reads an array through the gateway's array API block by
// block, N requests in flight, the way zarr_benchmarks reads a sharded
// array inner chunk by inner chunk: every block of the grid -block over
// -shape is one GET of ?slice=...&format=raw, its body read to the end and
// its length checked (an answer of the wrong size fails the run). It
// prints the blocks, bytes and seconds.
//
//	blocks -url http://127.0.0.1:8080/d/shard -shape 1024,1024,1024 -block 64,64,64 -itemsize 2 -concurrency 8
package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	url := flag.String("url", "", "the array's address on the array API, e.g. http://127.0.0.1:8080/d/shard")
	shapeFlag := flag.String("shape", "", "the array's shape, comma-separated")
	blockFlag := flag.String("block", "", "the block shape, comma-separated")
	itemSize := flag.Int64("itemsize", 0, "bytes per element")
	concurrency := flag.Int("concurrency", 8, "requests in flight")
	flag.Parse()
	shape, err := parseShape(*shapeFlag)
	if err == nil {
		var block []int64
		block, err = parseShape(*blockFlag)
		if err == nil && len(block) != len(shape) {
			err = fmt.Errorf("-block has %d dimensions, -shape %d", len(block), len(shape))
		}
		if err == nil && *url != "" && *itemSize > 0 {
			err = run(*url, shape, block, *itemSize, *concurrency)
		} else if err == nil {
			err = fmt.Errorf("-url, -shape, -block and -itemsize are required")
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "blocks:", err)
		os.Exit(1)
	}
}

func parseShape(s string) ([]int64, error) {
	var out []int64
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("bad shape %q", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// selections lists the slice parameter of every block, in C order.
func selections(shape, block []int64) []string {
	grid := make([]int64, len(shape))
	total := int64(1)
	for i := range shape {
		grid[i] = (shape[i] + block[i] - 1) / block[i]
		total *= grid[i]
	}
	out := make([]string, 0, total)
	idx := make([]int64, len(shape))
	for n := int64(0); n < total; n++ {
		parts := make([]string, len(shape))
		for d := range shape {
			lo := idx[d] * block[d]
			parts[d] = fmt.Sprintf("%d:%d", lo, min(lo+block[d], shape[d]))
		}
		out = append(out, strings.Join(parts, ","))
		for d := len(idx) - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < grid[d] {
				break
			}
			idx[d] = 0
		}
	}
	return out
}

// expectedBytes is the size of the raw answer for one selection.
func expectedBytes(sel string, itemSize int64) int64 {
	n := itemSize
	for _, r := range strings.Split(sel, ",") {
		lo, hi, _ := strings.Cut(r, ":")
		a, _ := strconv.ParseInt(lo, 10, 64)
		b, _ := strconv.ParseInt(hi, 10, 64)
		n *= b - a
	}
	return n
}

func run(url string, shape, block []int64, itemSize int64, concurrency int) error {
	sels := selections(shape, block)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: concurrency}}
	work := make(chan string)
	var total atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	start := time.Now()
	for range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for sel := range work {
				n, err := get(client, url+"?format=raw&slice="+sel, expectedBytes(sel, itemSize))
				if err != nil {
					once.Do(func() { firstErr = err })
					continue
				}
				total.Add(n)
			}
		}()
	}
	for _, sel := range sels {
		work <- sel
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	fmt.Printf("%d blocks, %d bytes in %.3f s\n", len(sels), total.Load(), time.Since(start).Seconds())
	return nil
}

func get(client *http.Client, url string, want int64) (int64, error) {
	resp, err := client.Get(url)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		return n, fmt.Errorf("GET %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK || n != want {
		return n, fmt.Errorf("GET %s: status %d, %d bytes (want 200, %d bytes)", url, resp.StatusCode, n, want)
	}
	return n, nil
}
