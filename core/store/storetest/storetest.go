// Package storetest is the conformance suite that every store runs: memory,
// filesystem, cloud and out-of-process stores alike. It exercises what a
// store's Capabilities claim, fails when a claim is not honoured, and
// checks that operations a store does not claim fail with ErrUnsupported
// instead of being silently ignored.
//
// Stores that cannot hold a value and a directory of the same name (a
// filesystem cannot have both "a/b" and "a/b/c") pass: no check needs it.
package storetest

import (
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

// check is one conformance case. needs returns "" when the store's
// capabilities allow the case, else why it is skipped.
type check struct {
	name  string
	needs func(store.Capabilities) string
	run   func(t *testing.T, s store.Store)
}

// Options fit the suite to a store, so that its paths for large values
// and long listings are taken without making the suite slow.
type Options struct {
	// LargeValue is the size of the values that must take the store's
	// path for large values (multipart uploads, staged blocks): a little
	// more than its threshold, which a test sets low. 0 means 5 MiB + 123.
	LargeValue int
	// ManyKeys is how many keys the paging check writes, lists and erases;
	// 0 means 2,500. A store under test should list in pages well below it.
	ManyKeys int
	// VersionsFromContent says that versions digest the content (S3's
	// ETags): a value written again with the same bytes may get its old
	// version back, which a conditional write may then accept. That is
	// safe for read-modify-write, since the bytes an update was computed
	// from are the bytes stored; versions of different content must still
	// differ.
	VersionsFromContent bool
}

func (o Options) withDefaults() Options {
	if o.LargeValue <= 0 {
		o.LargeValue = 5<<20 + 123
	}
	if o.ManyKeys <= 0 {
		o.ManyKeys = 2500
	}
	return o
}

// Run runs every applicable check as a subtest, each on a fresh, empty
// store from newStore, which it closes afterwards.
func Run(t *testing.T, newStore func(t *testing.T) store.Store) {
	t.Helper()
	RunWith(t, Options{}, newStore)
}

// RunWith is Run with options.
func RunWith(t *testing.T, opts Options, newStore func(t *testing.T) store.Store) {
	t.Helper()
	for _, c := range checks(opts.withDefaults()) {
		t.Run(c.name, func(t *testing.T) {
			s := newStore(t)
			t.Cleanup(func() {
				if err := s.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			if why := c.needs(s.Capabilities()); why != "" {
				t.Skip(why)
			}
			c.run(t, s)
		})
	}
}

// with binds options to a check that takes them.
func with(opts Options, run func(*testing.T, store.Store, Options)) func(*testing.T, store.Store) {
	return func(t *testing.T, s store.Store) { run(t, s, opts) }
}

func checks(opts Options) []check {
	return []check{
		{"SetGet", readWrite, testSetGet},
		{"NotFound", readOnly, testNotFound},
		{"PrefixIsNotValue", readWrite, testPrefixIsNotValue},
		{"Erase", readWriteErase, testErase},
		{"EraseMissing", readWriteErase, testEraseMissing},
		{"EraseMany", readWriteErase, testEraseMany},
		{"EraseManyInvalid", readWriteErase, testEraseManyInvalid},
		{"EmptyValue", readWrite, testEmptyValue},
		{"UnusualKeys", readWrite, testUnusualKeys},
		{"UnusualPrefixes", readWriteListErase, testUnusualPrefixes},
		{"PrefixKeys", readWrite, testPrefixKeys},
		{"LargeValue", readWrite, with(opts, testLargeValue)},
		{"Ownership", readWrite, testOwnership},
		{"CancelledRead", readWrite, testCancelledRead},
		{"Ranges", readWrite, testRanges},
		{"SuffixRanges", readWrite, testSuffixRanges},
		{"RangeEdges", readWrite, testRangeEdges},
		{"InvalidRanges", readWrite, testInvalidRanges},
		{"MD5Versions", md5Versions, testMD5Versions},
		{"ConditionalSet", conditional, testConditionalSet},
		{"ConditionalAfterErase", conditionalErase, with(opts, testConditionalAfterErase)},
		{"ConditionalLargeValue", conditional, with(opts, testConditionalLargeValue)},
		{"ConditionalRace", conditional, testConditionalRace},
		{"ConcurrentIncrements", conditional, testConcurrentIncrements},
		{"ConditionsUnsupported", writeWithoutConditions, testConditionsUnsupported},
		{"List", readWriteList, testList},
		{"ListEarlyBreak", readWriteList, testListEarlyBreak},
		{"ListSorted", readWriteList, testListSorted},
		{"ListDir", readWriteList, testListDir},
		{"ListDirAfterErase", readWriteListErase, testListDirAfterErase},
		{"ManyKeys", readWriteListErase, with(opts, testManyKeys)},
		{"ErasePrefix", readWriteErase, testErasePrefix},
		{"EraseAll", readWriteErase, testEraseAll},
		{"OptionalAgree", readWriteList, testOptionalAgree},
		{"InvalidKeys", always, testInvalidKeys},
		{"InvalidPrefixes", always, testInvalidPrefixes},
		{"Unsupported", always, testUnsupported},
	}
}

func always(store.Capabilities) string { return "" }

func readOnly(c store.Capabilities) string {
	if !c.Read {
		return "store cannot read"
	}
	return ""
}

func readWrite(c store.Capabilities) string {
	if !c.Read || !c.Write {
		return "store cannot both read and write"
	}
	return ""
}

func readWriteErase(c store.Capabilities) string {
	if why := readWrite(c); why != "" {
		return why
	}
	if !c.Erase {
		return "store cannot erase"
	}
	return ""
}

func readWriteList(c store.Capabilities) string {
	if why := readWrite(c); why != "" {
		return why
	}
	if !c.List {
		return "store cannot list"
	}
	return ""
}

func readWriteListErase(c store.Capabilities) string {
	if why := readWriteList(c); why != "" {
		return why
	}
	return readWriteErase(c)
}

func md5Versions(c store.Capabilities) string {
	if why := readWrite(c); why != "" {
		return why
	}
	if !c.MD5Versions {
		return "store does not claim MD5 versions"
	}
	return ""
}

func conditional(c store.Capabilities) string {
	if why := readWrite(c); why != "" {
		return why
	}
	if !c.ConditionalWrite {
		return "store does not claim conditional writes"
	}
	return ""
}

func conditionalErase(c store.Capabilities) string {
	if why := conditional(c); why != "" {
		return why
	}
	return readWriteErase(c)
}

func writeWithoutConditions(c store.Capabilities) string {
	if !c.Write || c.ConditionalWrite {
		return "only for writable stores without conditional writes"
	}
	return ""
}
