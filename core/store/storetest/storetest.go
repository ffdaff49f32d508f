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

// Run runs every applicable check as a subtest, each on a fresh, empty
// store from newStore, which it closes afterwards.
func Run(t *testing.T, newStore func(t *testing.T) store.Store) {
	t.Helper()
	for _, c := range checks() {
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

func checks() []check {
	return []check{
		{"SetGet", readWrite, testSetGet},
		{"NotFound", readOnly, testNotFound},
		{"PrefixIsNotValue", readWrite, testPrefixIsNotValue},
		{"Erase", readWriteErase, testErase},
		{"EmptyValue", readWrite, testEmptyValue},
		{"UnusualKeys", readWrite, testUnusualKeys},
		{"LargeValue", readWrite, testLargeValue},
		{"Ownership", readWrite, testOwnership},
		{"CancelledRead", readWrite, testCancelledRead},
		{"Ranges", readWrite, testRanges},
		{"SuffixRanges", readWrite, testSuffixRanges},
		{"InvalidRanges", readWrite, testInvalidRanges},
		{"ConditionalSet", conditional, testConditionalSet},
		{"ConditionalAfterErase", conditionalErase, testConditionalAfterErase},
		{"ConcurrentIncrements", conditional, testConcurrentIncrements},
		{"ConditionsUnsupported", writeWithoutConditions, testConditionsUnsupported},
		{"List", readWriteList, testList},
		{"ListEarlyBreak", readWriteList, testListEarlyBreak},
		{"ListDir", readWriteList, testListDir},
		{"ListDirAfterErase", readWriteListErase, testListDirAfterErase},
		{"ErasePrefix", readWriteErase, testErasePrefix},
		{"EraseAll", readWriteErase, testEraseAll},
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
