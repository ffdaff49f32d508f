package cache

// Internals the external tests reach.

// SetDefect turns c into one of the mutants the tests must catch.
func SetDefect(c *Cache, defect string) { c.defect = defect }

// The mutants.
const (
	DefectStaleAfterWrite = defectStaleAfterWrite
	DefectCachesErrors    = defectCachesErrors
	DefectNoCoalescing    = defectNoCoalescing
	DefectKeepsRanges     = defectKeepsRanges
)

// Costs of the memory tier's bookkeeping, for tests that fill it.
const (
	RecordOverhead = recordOverhead
	EntryOverhead  = entryOverhead
)
