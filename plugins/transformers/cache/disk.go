package cache

import (
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/transformers/cache/disk"
)

// Tier is the disk tier as the cache uses it: package disk's *Tier
// (through OpenDisk), or a stand-in in tests. Its methods are safe for
// concurrent use.
type Tier interface {
	// Get returns the data and version kept for (key, tag); ok is false
	// on a miss, a damaged entry included.
	Get(key, tag string) (data []byte, version string, ok bool, err error)
	// Put keeps data as (key, tag) at version, within the tier's bound.
	Put(key, tag, version string, data []byte) error
	// DropKey drops every tag of key.
	DropKey(key string) error
	// Stats are the tier's counters.
	Stats() TierStats
	Close() error
}

// OpenDisk opens the disk tier in dir, bounded to maxBytes: exclusively
// (another process, or another cache of this one, holding dir is an
// error that says so).
func OpenDisk(dir string, maxBytes int64) (Tier, error) {
	t, err := disk.Open(dir, maxBytes)
	if err != nil {
		return nil, err
	}
	return diskTier{Tier: t, max: maxBytes}, nil
}

// diskTier adapts package disk's tier to Tier.
type diskTier struct {
	*disk.Tier
	max int64
}

func (d diskTier) Stats() TierStats {
	s := d.Tier.Stats()
	return TierStats{Entries: s.Entries, Bytes: s.Bytes, MaxBytes: d.max, Evictions: s.Evictions, Corrupt: s.Corrupt}
}

// tag names a range in the disk tier: "" for the whole value, else the
// range as HTTP writes it (bytes=0-99, bytes=100-, bytes=-10).
func tag(r store.ByteRange) string {
	if r.Kind == store.Whole {
		return ""
	}
	return r.String()
}
