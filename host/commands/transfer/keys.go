package transfer

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/store"
)

// keyPrefix is the key prefix of the node at path.
func keyPrefix(path string) string { return array.NodePrefix(strings.Trim(path, "/")) }

// listKeys lists the keys to copy, in byte order.
func listKeys(ctx context.Context, src Endpoint, path string) ([]string, error) {
	var keys []string
	for k, err := range store.ListSorted(ctx, src.Store, keyPrefix(path), "") {
		if err != nil {
			return nil, fmt.Errorf("%s: list: %w", src.Name, err)
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s: nothing below %q to copy", src.Name, path)
	}
	return keys, nil
}

// copyKeys copies keys (the plan's, or a partition's), byte for byte, in
// parallel: the metadata documents after the others, and not those of a
// node below which a key failed, so that no reader takes a missing chunk
// for fill values (a rerun copies what failed, then the documents). A key
// that fails alone (gone from the source, refused by the destination's
// key rules, altered on the way) is counted and the others go on; a
// failure of a store itself (a StoreFault) or the end of ctx stops every
// worker: no new key starts, those in flight end, and the first such
// error is returned once.
func (p *Plan) copyKeys(ctx context.Context, src, dst Endpoint, opts Options, keys []string) (Summary, error) {
	progress := opts.progress()
	var s Summary
	progress.Start("keys", int64(len(keys)))
	defer progress.Finish()
	var data, docs []string
	for _, k := range keys {
		if isMetadataKey(k) {
			docs = append(docs, k)
		} else {
			data = append(data, k)
		}
	}
	failed, err := p.copyKeySet(ctx, src, dst, opts, data, &s)
	if err != nil {
		return s, err
	}
	held := nodesHolding(failed, docs)
	docs = slices.DeleteFunc(docs, func(doc string) bool { return held[nodeOfDoc(doc)] })
	_, err = p.copyKeySet(ctx, src, dst, opts, docs, &s)
	return s, err
}

// nodesHolding are the nodes (of those docs describe) nearest above each
// of keys: the arrays whose chunks they are.
func nodesHolding(keys, docs []string) map[string]bool {
	nodes := map[string]bool{}
	for _, d := range docs {
		nodes[nodeOfDoc(d)] = true
	}
	held := map[string]bool{}
	for _, k := range keys {
		for dir := parentDir(k); ; dir = parentDir(dir) {
			if nodes[dir] {
				held[dir] = true
				break
			}
			if dir == "" {
				break
			}
		}
	}
	return held
}

// copyKeySet copies keys in parallel into s and returns those that failed.
func (p *Plan) copyKeySet(ctx context.Context, src, dst Endpoint, opts Options, keys []string, s *Summary) ([]string, error) {
	progress := opts.progress()
	var mu sync.Mutex
	var failed []string
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opts.jobs())
	for _, key := range keys {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			n, skipped, err := p.copyKey(gctx, src, dst, key, opts)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case gctx.Err() != nil:
				return gctx.Err() // stopped: what was in flight is not a failure
			case err != nil:
				failed = append(failed, key)
				return s.failure(gctx, err)
			case skipped:
				s.Skipped++
			default:
				s.Copied++
				s.Bytes += n
			}
			progress.Add(1, n)
			return nil
		})
	}
	err := g.Wait()
	if err == nil {
		err = ctx.Err() // stopped before the last key started
	}
	return failed, err
}

// copyKey copies one key, unless the journal has it and the destination
// holds a value of the size recorded; transient failures are retried.
func (p *Plan) copyKey(ctx context.Context, src, dst Endpoint, key string, opts Options) (n int64, skipped bool, err error) {
	if opts.Journal != nil {
		if size, ok := opts.Journal.Done("k " + key); ok {
			info, err := dst.Store.Stat(ctx, key)
			if err == nil && strconv.FormatInt(info.Size, 10) == size {
				return 0, true, nil
			}
		}
	}
	retries := opts.Retries
	if retries <= 0 {
		retries = 3
	}
	for attempt := 0; ; attempt++ {
		n, err = copyOnce(ctx, src, dst, key, p.docs)
		if err == nil || attempt == retries || !transient(err) {
			break
		}
		select {
		case <-time.After(time.Duration(200<<attempt) * time.Millisecond):
		case <-ctx.Done():
			return 0, false, ctx.Err()
		}
	}
	if err != nil {
		return 0, false, err
	}
	if opts.Journal != nil {
		if err := opts.Journal.Record("k "+key, strconv.FormatInt(n, 10)); err != nil {
			return n, false, err
		}
	}
	return n, false, nil
}

// copyOnce reads a value (or takes it from docs, the merged metadata)
// and writes it, then checks the destination: by the MD5 when its ETag
// is one (S3 writes of one part), else by the size it reports.
func copyOnce(ctx context.Context, src, dst Endpoint, key string, docs map[string][]byte) (int64, error) {
	v, err := readValue(ctx, src, key, docs)
	if err != nil {
		return 0, err
	}
	version, err := dst.Store.Set(ctx, key, v.Data, store.Condition{})
	if err != nil {
		return 0, fmt.Errorf("%s: write %s: %w", dst.Name, key, err)
	}
	if tag := strings.Trim(version, `"`); dst.Store.Capabilities().MD5Versions && store.IsMD5Hex(tag) {
		sum := md5.Sum(v.Data)
		if hex.EncodeToString(sum[:]) != tag {
			return 0, fmt.Errorf("%s: %s: the store's checksum %s is not that of the bytes written", dst.Name, key, tag)
		}
		return int64(len(v.Data)), nil
	}
	info, err := dst.Store.Stat(ctx, key)
	if err != nil {
		return 0, fmt.Errorf("%s: check %s: %w", dst.Name, key, err)
	}
	if info.Size != int64(len(v.Data)) {
		return 0, fmt.Errorf("%s: %s holds %d bytes after writing %d", dst.Name, key, info.Size, len(v.Data))
	}
	return int64(len(v.Data)), nil
}

func readValue(ctx context.Context, src Endpoint, key string, docs map[string][]byte) (store.Value, error) {
	if doc, ok := docs[key]; ok {
		return store.Value{Data: doc}, nil
	}
	v, err := src.Store.Get(ctx, key, store.ByteRange{})
	if err != nil {
		return v, fmt.Errorf("%s: read %s: %w", src.Name, key, err)
	}
	return v, nil
}

// transient reports a failure worth another try: not a missing or invalid
// key, not an unsupported operation or a refusal, not the caller giving
// up.
func transient(err error) bool {
	switch {
	case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrInvalidKey), errors.Is(err, store.ErrUnsupported),
		errors.Is(err, store.ErrAccessDenied),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return false
	}
	return true
}
