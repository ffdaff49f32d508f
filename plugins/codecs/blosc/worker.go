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
	comp      *compressor
}

var workers sync.Pool

func getWorker(blockSize int) *worker {
	w, _ := workers.Get().(*worker)
	if w == nil {
		w = &worker{}
	}
	w.tmp = growBuf(w.tmp, blockSize)
	w.tmp2 = growBuf(w.tmp2, blockSize)
	return w
}

// compressorFor returns the worker's compressor for cname and clevel,
// replacing one made for other settings.
func (w *worker) compressorFor(cname string, clevel int) *compressor {
	if w.comp == nil || w.comp.cname != cname || w.comp.clevel != clevel {
		w.comp = newCompressor(cname, clevel)
	}
	return w.comp
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
