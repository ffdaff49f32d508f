package metrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zarrgw/zarrgw/plugins/transformers/cache"
)

// storeCaches publishes the counters of the cache transformers in the
// datasets' stacks, read at scrape time (the transformer counts; nothing
// is counted twice). A cache running in a plugin process is not seen.
type StoreCaches struct {
	mu     sync.Mutex
	caches map[string][]*cache.Cache // by dataset
}

var (
	cacheReads = prometheus.NewDesc("zarrgw_store_cache_reads_total",
		"Reads through a dataset's cache transformer, by how they were answered: hit (memory), disk_hit, negative_hit (a remembered miss), miss (a call to the store), coalesced (waited for another reader's call).",
		[]string{"dataset", "result"}, nil)
	cacheRevalidations = prometheus.NewDesc("zarrgw_store_cache_revalidations_total",
		"Versions confirmed with a Stat of the store, by outcome: same, or stale (the entries were dropped).",
		[]string{"dataset", "outcome"}, nil)
	cacheEntries = prometheus.NewDesc("zarrgw_store_cache_entries", "Entries held, by tier.", []string{"dataset", "tier"}, nil)
	cacheBytes   = prometheus.NewDesc("zarrgw_store_cache_bytes", "Bytes held, by tier (what its bound counts: values and bookkeeping in memory; on disk, the blocks of its files and directories, as du counts them).", []string{"dataset", "tier"}, nil)
	cacheMax     = prometheus.NewDesc("zarrgw_store_cache_max_bytes", "The tier's bound in bytes.", []string{"dataset", "tier"}, nil)
	cacheMaxN    = prometheus.NewDesc("zarrgw_store_cache_max_entries", "The disk tier's bound in entries (files).", []string{"dataset", "tier"}, nil)
	cacheEvicted = prometheus.NewDesc("zarrgw_store_cache_evictions_total", "Entries evicted to stay within the bound, by tier.", []string{"dataset", "tier"}, nil)
	cacheCorrupt = prometheus.NewDesc("zarrgw_store_cache_disk_corrupt_total", "Disk entries found damaged and dropped (never served).", []string{"dataset"}, nil)
	cacheDiskErr = prometheus.NewDesc("zarrgw_store_cache_disk_errors_total", "Disk tier reads and writes that failed (the store answered instead).", []string{"dataset"}, nil)
)

// Add reports the cache transformer c of dataset from now on.
func (s *StoreCaches) Add(dataset string, c *cache.Cache) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.caches == nil {
		s.caches = map[string][]*cache.Cache{}
	}
	s.caches[dataset] = append(s.caches[dataset], c)
}

// drop forgets a dataset's caches (it was closed, or is opened again).
func (s *StoreCaches) Drop(dataset string) {
	s.mu.Lock()
	delete(s.caches, dataset)
	s.mu.Unlock()
}

func (s *StoreCaches) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{cacheReads, cacheRevalidations, cacheEntries, cacheBytes, cacheMax, cacheMaxN, cacheEvicted, cacheCorrupt, cacheDiskErr} {
		ch <- d
	}
}

func (s *StoreCaches) Collect(ch chan<- prometheus.Metric) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for ds, caches := range s.caches {
		var sum cache.Stats
		var disk cache.TierStats
		hasDisk := false
		for _, c := range caches {
			st := c.Stats()
			addStats(&sum, st)
			if st.Disk != nil {
				hasDisk = true
				addTier(&disk, *st.Disk)
			}
		}
		collectCache(ch, ds, sum)
		collectTier(ch, ds, "memory", sum.Memory)
		if hasDisk {
			collectTier(ch, ds, "disk", disk)
			ch <- prometheus.MustNewConstMetric(cacheMaxN, prometheus.GaugeValue, float64(disk.MaxEntries), ds, "disk")
			ch <- prometheus.MustNewConstMetric(cacheCorrupt, prometheus.CounterValue, float64(disk.Corrupt), ds)
		}
	}
}

func collectCache(ch chan<- prometheus.Metric, ds string, s cache.Stats) {
	for result, n := range map[string]int64{"hit": s.Hits, "disk_hit": s.DiskHits, "negative_hit": s.NegativeHits, "miss": s.Misses, "coalesced": s.Coalesced} {
		ch <- prometheus.MustNewConstMetric(cacheReads, prometheus.CounterValue, float64(n), ds, result)
	}
	ch <- prometheus.MustNewConstMetric(cacheRevalidations, prometheus.CounterValue, float64(s.Revalidations-s.Stale), ds, "same")
	ch <- prometheus.MustNewConstMetric(cacheRevalidations, prometheus.CounterValue, float64(s.Stale), ds, "stale")
	ch <- prometheus.MustNewConstMetric(cacheDiskErr, prometheus.CounterValue, float64(s.DiskErrors), ds)
}

func collectTier(ch chan<- prometheus.Metric, ds, tier string, t cache.TierStats) {
	ch <- prometheus.MustNewConstMetric(cacheEntries, prometheus.GaugeValue, float64(t.Entries), ds, tier)
	ch <- prometheus.MustNewConstMetric(cacheBytes, prometheus.GaugeValue, float64(t.Bytes), ds, tier)
	ch <- prometheus.MustNewConstMetric(cacheMax, prometheus.GaugeValue, float64(t.MaxBytes), ds, tier)
	ch <- prometheus.MustNewConstMetric(cacheEvicted, prometheus.CounterValue, float64(t.Evictions), ds, tier)
}

// addStats adds b's counters to a: a dataset's stack may declare more
// than one cache.
func addStats(a *cache.Stats, b cache.Stats) {
	a.Hits += b.Hits
	a.DiskHits += b.DiskHits
	a.NegativeHits += b.NegativeHits
	a.Misses += b.Misses
	a.Coalesced += b.Coalesced
	a.Revalidations += b.Revalidations
	a.Stale += b.Stale
	a.DiskErrors += b.DiskErrors
	addTier(&a.Memory, b.Memory)
}

func addTier(a *cache.TierStats, b cache.TierStats) {
	a.Entries += b.Entries
	a.Bytes += b.Bytes
	a.MaxBytes += b.MaxBytes
	a.MaxEntries += b.MaxEntries
	a.Evictions += b.Evictions
	a.Corrupt += b.Corrupt
}
