package storecache

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/zarrgw/zarrgw/core/store"
)

// OpenFile opens the files of the store below for every key the
// metadata cache does not keep: a document it keeps is served from there.
func (c *MetaCache) OpenFile(ctx context.Context, key string, buf []byte) (*os.File, store.Info, error) {
	if c.caching(key) {
		return nil, store.Info{}, fmt.Errorf("open %q as a file: kept by the metadata cache: %w", key, store.ErrUnsupported)
	}
	return store.OpenFile(ctx, c.Next, key, buf)
}

// SetFrom writes through to the files of the store below, dropping the
// key's entry as Set does.
func (c *MetaCache) SetFrom(ctx context.Context, key string, r io.Reader, cond store.Condition) (string, error) {
	c.docs.Drop(key)
	defer c.docs.Drop(key) // a read racing the write may have cached the old value
	return store.SetFrom(ctx, c.Next, key, r, cond)
}
