package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/serve/server/storecache"
)

// Read reads key for a client: the stored value, or for a dataset that
// asks for it, the consolidated metadata built on the fly in place of a
// root document that lacks it.
func (ds *Dataset) Read(ctx context.Context, key string, r store.ByteRange) (store.Value, error) {
	doc, ok, err := ds.consolidatedFor(ctx, key)
	if err != nil || !ok {
		if err != nil {
			return store.Value{}, err
		}
		return ds.Store.Get(ctx, key, r)
	}
	start, end, err := r.Resolve(int64(len(doc.value)))
	if err != nil {
		return store.Value{}, fmt.Errorf("get %q: %w", key, err)
	}
	return store.Value{Data: doc.value[start:end], Version: doc.version, ModTime: doc.changed}, nil
}

// Stat is Stat with the same substitution as read.
func (ds *Dataset) Stat(ctx context.Context, key string) (store.Info, error) {
	doc, ok, err := ds.consolidatedFor(ctx, key)
	if err != nil || !ok {
		if err != nil {
			return store.Info{}, err
		}
		return ds.Store.Stat(ctx, key)
	}
	return doc.info(), nil
}

// Changed is told of every write of a key through the gateway: a decoded
// chunk cached under it goes, and consolidated metadata built from the
// documents is rebuilt after any of them changes.
func (ds *Dataset) Changed(key string) {
	if ds.chunks != nil {
		ds.chunks.Drop(key)
	}
	if ds.consolidated != nil && storecache.IsMetaKey(key) {
		ds.consolidated.reset()
	}
}

// consolidatedFor returns the consolidated document to serve as key, if
// key is the one servedRoot serves.
func (ds *Dataset) consolidatedFor(ctx context.Context, key string) (builtDoc, bool, error) {
	if ds.consolidated == nil || key != array.V3MetaKey("") && key != array.V2ConsolidatedKey("") {
		return builtDoc{}, false, nil
	}
	doc, ok, err := ds.servedRoot(ctx)
	if err != nil || !ok || doc.key != key {
		return builtDoc{}, false, err
	}
	return doc, true, nil
}

// servedRoot returns the root document the gateway builds and serves in
// place of the stored one: the root's .zmetadata (v2) or zarr.json (v3)
// with the hierarchy's metadata consolidated, when the dataset asks for
// consolidated metadata and the root group stores none itself.
func (ds *Dataset) servedRoot(ctx context.Context) (builtDoc, bool, error) {
	if ds.consolidated == nil {
		return builtDoc{}, false, nil
	}
	root, err := hierarchy.Open(ctx, ds.Store, "")
	if err != nil || root.Group == nil || root.Group.Consolidated != nil {
		return builtDoc{}, false, nil // served as stored, or as missing
	}
	doc, err := ds.consolidated.get(ctx, ds.Store)
	if err != nil {
		return builtDoc{}, false, err
	}
	return doc, true, nil
}

// info is what Stat and listings say of a built document.
func (d builtDoc) info() store.Info {
	return store.Info{Size: int64(len(d.value)), Version: d.version, ModTime: d.changed}
}

// consolidated holds the consolidated metadata of a dataset, built on the
// fly and kept for a TTL (writes through this gateway reset it sooner).
type consolidated struct {
	ttl time.Duration

	mu  sync.Mutex
	doc *builtDoc
	// last is the document built last, kept across resets to tell
	// whether a rebuilt one changed.
	last *builtDoc
}

type builtDoc struct {
	key, version string
	value        []byte
	at           time.Time // when it was built
	// changed is when its content last changed, as far as this gateway
	// has seen: its Last-Modified.
	changed time.Time
}

func newConsolidated(ttl time.Duration) *consolidated { return &consolidated{ttl: ttl} }

// get returns the document, building it when there is none or it is older
// than the TTL. One build at a time: concurrent readers wait for it.
func (c *consolidated) get(ctx context.Context, s store.Store) (builtDoc, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.doc != nil && time.Since(c.doc.at) < c.ttl {
		return *c.doc, nil
	}
	d, err := hierarchy.ConsolidatedDoc(ctx, s, "")
	if err != nil {
		return builtDoc{}, fmt.Errorf("consolidating metadata: %w", err)
	}
	sum := sha256.Sum256(d.Value)
	now := time.Now().Truncate(time.Second) // as Last-Modified and listings carry it
	doc := &builtDoc{key: d.Key, value: d.Value, version: "consolidated-" + hex.EncodeToString(sum[:12]), at: now, changed: now}
	if c.last != nil && c.last.version == doc.version {
		doc.changed = c.last.changed // rebuilt the same: not modified
	}
	c.doc, c.last = doc, doc
	return *doc, nil
}

func (c *consolidated) reset() {
	c.mu.Lock()
	c.doc = nil
	c.mu.Unlock()
}
