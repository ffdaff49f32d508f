package cache

import "github.com/zarrgw/zarrgw/plugins/transformers/cache/disk"

// Tier is the disk tier as the cache uses it: package disk's *Tier
// (through OpenDisk), or a stand-in in tests. Its methods are safe for
// concurrent use.
type Tier interface {
	// Get returns the data and version kept for (key, tag); ok is false
	// on a miss, a damaged entry included.
	Get(key, tag string) (data []byte, version string, ok bool, err error)
	// Put keeps data as (key, tag) at version, within the tier's bounds.
	Put(key, tag, version string, data []byte) error
	// Tags lists the entries kept for key: each one's tag and length.
	Tags(key string) []disk.Kept
	// DropKey drops every tag of key.
	DropKey(key string) error
	// Stats are the tier's counters.
	Stats() TierStats
	Close() error
}

// OpenDisk opens the disk tier in dir, bounded to maxBytes on disk (the
// blocks of its files and directories, as du counts them) and to
// maxEntries entries: exclusively (another process, or another cache of
// this one, holding dir is an error that says so).
func OpenDisk(dir string, maxBytes, maxEntries int64) (Tier, error) {
	t, err := disk.Open(dir, maxBytes, maxEntries)
	if err != nil {
		return nil, err
	}
	return diskTier{Tier: t, max: maxBytes, maxEntries: maxEntries}, nil
}

// DefaultDiskEntries is the entry bound of a disk tier of maxBytes when
// the configuration sets none: one entry per 16 KiB, the share of inodes
// mke2fs gives a file system of that size by default (so the tier cannot
// run its file system out of inodes before out of space), and at most
// MaxDefaultDiskEntries, which bounds the memory of its index (a few
// hundred bytes an entry: about 150 MB at 262144).
func DefaultDiskEntries(maxBytes int64) int64 {
	return min(max(maxBytes/(16<<10), 1), MaxDefaultDiskEntries)
}

// MaxDefaultDiskEntries is the largest entry bound DefaultDiskEntries gives.
const MaxDefaultDiskEntries = 1 << 18

// diskTier adapts package disk's tier to Tier.
type diskTier struct {
	*disk.Tier
	max, maxEntries int64
}

func (d diskTier) Stats() TierStats {
	s := d.Tier.Stats()
	return TierStats{Entries: s.Entries, Bytes: s.Bytes, MaxBytes: d.max, MaxEntries: d.maxEntries,
		Evictions: s.Evictions, Corrupt: s.Corrupt}
}
