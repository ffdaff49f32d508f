package cache

import "context"

// Stats are a cache's counters, for metrics. They count events, and only
// grow (but the tiers' Entries and Bytes): a read that is revalidated
// counts a revalidation and then a hit or a miss, and a copy-free read
// (GetInto) the memory tier cannot answer counts its Stat too.
type Stats struct {
	// Hits are reads (Get, GetInto, Stat) answered from memory.
	Hits int64
	// DiskHits are values or ranges answered from the disk tier.
	DiskHits int64
	// NegativeHits are reads answered "not found" from a remembered miss.
	NegativeHits int64
	// Misses are calls made to the next store to answer reads: one for
	// each group of readers that shared a call.
	Misses int64
	// Coalesced are readers (and revalidations) that waited for a call
	// another one made instead of making their own.
	Coalesced int64
	// Revalidations are Stats sent to the next store to confirm a version
	// it has not confirmed within revalidate_after (of an entry in memory
	// grown old, or of one found on disk); Stale those that found the
	// value changed or gone (its entries were dropped).
	Revalidations, Stale int64
	// Memory is the memory tier; Disk the disk tier, nil without one.
	Memory TierStats
	Disk   *TierStats
	// DiskErrors are disk reads and writes that failed (the read went to
	// the next store; the value was not kept).
	DiskErrors int64
}

// TierStats describe one tier. Bytes count what the tier's bound counts
// (values plus bookkeeping in memory; on disk, the blocks its files and
// directories take, as du counts them). MaxEntries bounds Entries (disk
// tier only; 0 for none).
type TierStats struct {
	Entries, Bytes, MaxBytes, MaxEntries, Evictions int64
	// Corrupt are disk entries found damaged and dropped (never served).
	Corrupt int64
}

// Stats returns the cache's counters.
func (c *Cache) Stats() Stats {
	s := Stats{
		Hits:          c.count.hits.Load(),
		DiskHits:      c.count.diskHits.Load(),
		NegativeHits:  c.count.negHits.Load(),
		Misses:        c.count.misses.Load(),
		Coalesced:     c.count.coalesced.Load(),
		Revalidations: c.count.revalidations.Load(),
		Stale:         c.count.stale.Load(),
		DiskErrors:    c.count.diskErrors.Load(),
	}
	c.mu.Lock()
	s.Memory = TierStats{Entries: c.mem.entries, Bytes: c.mem.bytes, MaxBytes: c.mem.max, Evictions: c.mem.evictions}
	c.mu.Unlock()
	if c.disk != nil {
		d := c.disk.Stats()
		s.Disk = &d
	}
	return s
}

// openedKey is the context key of OnOpen's function.
type openedKey struct{}

// OnOpen returns ctx carrying fn: the transformer's factory (the
// registration's New) calls fn with every cache it builds under the
// returned context, so that whoever opens a stack (the gateway) can
// publish each cache's Stats as metrics without finding it in the stack.
// Functions of enclosing contexts are called too. A cache running in a
// plugin process is not reported: its counters stay in that process.
func OnOpen(ctx context.Context, fn func(*Cache)) context.Context {
	return context.WithValue(ctx, openedKey{}, opened{fn: fn, outer: opener(ctx)})
}

type opened struct {
	fn    func(*Cache)
	outer *opened
}

func opener(ctx context.Context) *opened {
	o, ok := ctx.Value(openedKey{}).(opened)
	if !ok {
		return nil
	}
	return &o
}

// announce calls the OnOpen functions of ctx with c.
func announce(ctx context.Context, c *Cache) {
	for o := opener(ctx); o != nil; o = o.outer {
		o.fn(c)
	}
}
