package blosc

import (
	"context"
	"sync"
	"sync/atomic"
)

// worker is the per-goroutine state of a frame job: block-sized filter
// buffers and, when encoding, a compressor. Workers are pooled.
type worker struct {
	tmp, tmp2 []byte
	parts     [maxSplits][]byte // where each stream of a block was decoded
	comps     []*compressor     // by cname and level, most recent first
}

// maxCompressors bounds the compressors a pooled worker keeps.
const maxCompressors = 4

var workers sync.Pool

func getWorker(blockSize int) *worker {
	w, _ := workers.Get().(*worker)
	if w == nil {
		w = &worker{}
	}
	w.tmp = growBuf(w.tmp, blockSize)
	return w
}

// scratch returns the second block buffer, which only bit shuffles need.
func (w *worker) scratch(n int) []byte {
	w.tmp2 = growBuf(w.tmp2, n)
	return w.tmp2
}

// compressorFor returns the worker's compressor for cname and clevel,
// making one (and dropping the least recently used) when needed.
func (w *worker) compressorFor(cname string, clevel int) *compressor {
	for i, c := range w.comps {
		if c.cname == cname && c.clevel == clevel {
			copy(w.comps[1:i+1], w.comps[:i])
			w.comps[0] = c
			return c
		}
	}
	c := newCompressor(cname, clevel)
	if len(w.comps) < maxCompressors {
		w.comps = append(w.comps, nil)
	}
	copy(w.comps[1:], w.comps)
	w.comps[0] = c
	return c
}

func putWorker(w *worker) { workers.Put(w) }

// runBlocks calls fn for blocks 0..n-1 on up to par goroutines (the
// caller's included), each with its own worker, and returns the first
// error. Blocks are handed out in order through a shared counter, so
// workers that finish early take more.
func runBlocks(ctx context.Context, n, par, blockSize int, fn func(w *worker, j int) error) error {
	par = max(1, min(par, n))
	var (
		next     atomic.Int64
		failed   atomic.Bool
		errOnce  sync.Once
		firstErr error
	)
	run := func() {
		w := getWorker(blockSize)
		defer putWorker(w)
		for !failed.Load() {
			j := int(next.Add(1) - 1)
			if j >= n {
				return
			}
			err := ctx.Err()
			if err == nil {
				err = fn(w, j)
			}
			if err != nil {
				errOnce.Do(func() { firstErr = err })
				failed.Store(true)
				return
			}
		}
	}
	var wg sync.WaitGroup
	for range par - 1 {
		wg.Go(run)
	}
	run()
	wg.Wait()
	return firstErr
}
