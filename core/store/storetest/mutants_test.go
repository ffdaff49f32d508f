package storetest_test

import (
	"context"
	"fmt"
	"iter"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/store/storetest"
)

// Each mutant is a memory store with one defect, with the checks that must
// catch it and those that may (where catching depends on scheduling). The
// suite runs on each in a child process (a failing suite fails its test),
// and the child must report those failures and no others.
type expect struct{ must, may []string }

var mutants = map[string]expect{
	"none": {},
	"ignoresConditions": {must: []string{"ConditionalSet", "ConditionalAfterErase", "ConditionalLargeValue", "ConditionalRace"},
		may: []string{"ConcurrentIncrements"}},
	"checkThenSet": {must: []string{"ConcurrentIncrements", "ConditionalRace"}},
	"constantVersion": {must: []string{"SetGet", "ConditionalSet", "ConditionalAfterErase", "ConditionalLargeValue", "ConditionalRace"},
		may: []string{"ConcurrentIncrements"}},
	"suffixFromStart":  {must: []string{"LargeValue", "SuffixRanges", "RangeEdges"}},
	"noClipping":       {must: []string{"EmptyValue", "Ranges", "RangeEdges", "ConditionalRace"}},
	"acceptsBadKeys":   {must: []string{"InvalidKeys", "EraseManyInvalid"}},
	"stalePrefixes":    {must: []string{"ListDirAfterErase", "ManyKeys", "ErasePrefix"}},
	"sharesBuffers":    {must: []string{"Ownership"}},
	"cancelIsNotFound": {must: []string{"CancelledRead"}},
	"silentConditions": {must: []string{"ConditionsUnsupported"}},
	"listUnsupported": {must: []string{"EraseMissing", "UnusualKeys", "UnusualPrefixes", "PrefixKeys", "List",
		"ListEarlyBreak", "ListSorted", "ListDir", "ListDirAfterErase", "ManyKeys", "ErasePrefix", "EraseAll", "InvalidKeys", "InvalidPrefixes",
		"EraseMany"}},
	// Defects of remote stores: a listing or an erase that stops after its
	// first page, '+' taken for a space, a prefix that is not cut at a
	// segment, a multipart upload that keeps its first part only or drops
	// its conditions, zero-byte ranges sent as HTTP ranges, and a delete of
	// a missing key passed on as an error.
	"listOnePage":            {must: []string{"ManyKeys"}},
	"listDirOnePage":         {must: []string{"ManyKeys"}},
	"eraseOnePage":           {must: []string{"ManyKeys"}},
	"plusIsSpace":            {must: []string{"UnusualKeys", "UnusualPrefixes", "ListSorted"}},
	"erasePrefixNotSegment":  {must: []string{"PrefixKeys", "ManyKeys", "ErasePrefix"}},
	"largeTruncated":         {must: []string{"LargeValue", "ConditionalLargeValue"}},
	"largeIgnoresConditions": {must: []string{"ConditionalLargeValue"}},
	"emptyRangeFails":        {must: []string{"EmptyValue", "Ranges", "SuffixRanges", "RangeEdges", "ConditionalRace"}},
	"eraseMissingFails":      {must: []string{"NotFound", "Erase", "EraseMissing", "EraseMany"}},
	// a batch erase that sends its first batch of 1000 keys only, and one
	// that takes a key it cannot erase for a missing one
	"eraseManyOneBatch":     {must: []string{"EraseMany"}},
	"eraseManySkipsInvalid": {must: []string{"EraseManyInvalid"}},
	// versions claimed to be MD5s that are not
	"claimsMD5": {must: []string{"MD5Versions"}},
	// a wrapper that changes the bytes of Get and Set (as one that
	// encrypts would) but forwards the optional operations of the store
	// below, which hand out the stored bytes unchanged
	"optionalBypassesGet": {must: []string{"OptionalAgree"}},
}

const envMutant = "STORETEST_MUTANT"

func TestSuiteCatchesMutants(t *testing.T) {
	for name, want := range mutants {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestMutantChild$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), envMutant+"="+name)
			out, err := cmd.CombinedOutput()
			got := failedChecks(string(out))
			if (err == nil) != (len(got) == 0) || !want.matches(got) {
				t.Fatalf("suite on mutant %s: exit %v, failed checks %q, want %q (and maybe %q)\n%s",
					name, err, got, want.must, want.may, out)
			}
		})
	}
}

func failedChecks(out string) []string {
	var failed []string
	for line := range strings.Lines(out) {
		if _, name, ok := strings.Cut(strings.TrimSpace(line), "--- FAIL: TestMutantChild/"); ok {
			failed = append(failed, strings.Fields(name)[0])
		}
	}
	return failed
}

// matches reports whether failed holds every must and nothing beyond
// must and may.
func (e expect) matches(failed []string) bool {
	for _, name := range e.must {
		if !slices.Contains(failed, name) {
			return false
		}
	}
	for _, name := range failed {
		if !slices.Contains(e.must, name) && !slices.Contains(e.may, name) {
			return false
		}
	}
	return true
}

// TestMutantChild runs the suite on the mutant named in the environment.
func TestMutantChild(t *testing.T) {
	name := os.Getenv(envMutant)
	if name == "" {
		t.Skip("runs only as a child of TestSuiteCatchesMutants")
	}
	storetest.Run(t, func(t *testing.T) store.Store { return newMutant(name) })
}

func newMutant(name string) store.Store {
	m := &mutant{Store: store.NewMemory(), defect: name, caps: store.NewMemory().Capabilities()}
	// none of the memory store's optional operations, which would pass
	// the mutant's defects by: the suite reads and lists it through Get
	// and ListDir
	m.caps.Optional = store.Optional{}
	switch name {
	case "silentConditions":
		m.caps.ConditionalWrite = false
	case "claimsMD5":
		m.caps.MD5Versions = true
	case "optionalBypassesGet":
		m.caps.Optional = store.NewMemory().Capabilities().Optional
	}
	return m
}

type mutant struct {
	store.Store
	defect string
	caps   store.Capabilities

	mu       sync.Mutex
	prefixes map[string]bool          // stalePrefixes: every prefix ever written
	shared   map[string][]byte        // sharesBuffers: the caller's own slices
	meets    map[string]chan struct{} // checkThenSet: the first writer of a raced key waits here
}

// racedKeys are the keys the suite's races write (ConditionalRace and
// ConcurrentIncrements): checkThenSet makes its writers meet there.
var racedKeys = map[string]bool{"raced": true, "counter": true}

func (m *mutant) Capabilities() store.Capabilities { return m.caps }

func (m *mutant) Get(ctx context.Context, key string, r store.ByteRange) (store.Value, error) {
	switch {
	case m.defect == "cancelIsNotFound" && ctx.Err() != nil:
		return store.Value{}, store.ErrNotFound
	case m.defect == "suffixFromStart" && r.Kind == store.Suffix:
		r = store.Range(0, r.Length)
	case m.defect == "noClipping" && r.Kind == store.Bounded:
		if info, err := m.Store.Stat(ctx, key); err == nil && r.Offset+r.Length > info.Size {
			return store.Value{}, fmt.Errorf("range %s past the end", r)
		}
	case m.defect == "acceptsBadKeys":
		key = escape(key)
	case m.defect == "plusIsSpace":
		key = strings.ReplaceAll(key, "+", " ")
	case m.defect == "emptyRangeFails" && r.Kind != store.Whole:
		if info, err := m.Store.Stat(ctx, key); err == nil {
			if start, end, err := r.Resolve(info.Size); err == nil && start == end {
				return store.Value{}, fmt.Errorf("416 range not satisfiable: %s", r)
			}
		}
	}
	v, err := m.Store.Get(ctx, key, r)
	switch {
	case m.defect == "optionalBypassesGet":
		v.Data = flipped(v.Data)
	case m.defect == "constantVersion":
		v.Version = "1"
	case m.defect == "sharesBuffers" && err == nil && r.Kind == store.Whole:
		m.mu.Lock()
		v.Data = m.shared[key] // the slice Set was given, not a copy
		m.mu.Unlock()
	}
	return v, err
}

func (m *mutant) Stat(ctx context.Context, key string) (store.Info, error) {
	switch m.defect {
	case "acceptsBadKeys":
		key = escape(key)
	case "plusIsSpace":
		key = strings.ReplaceAll(key, "+", " ")
	}
	info, err := m.Store.Stat(ctx, key)
	if m.defect == "constantVersion" {
		info.Version = "1"
	}
	return info, err
}

func (m *mutant) Set(ctx context.Context, key string, data []byte, cond store.Condition) (string, error) {
	switch m.defect {
	case "ignoresConditions", "silentConditions":
		cond = store.Condition{}
	case "checkThenSet":
		return m.checkThenSet(ctx, key, data, cond)
	case "constantVersion":
		if _, err := m.Store.Set(ctx, key, data, store.Condition{IfNoneMatch: cond.IfNoneMatch}); err != nil {
			return "", err
		}
		return "1", nil
	case "acceptsBadKeys":
		key = escape(key)
	case "stalePrefixes":
		m.remember(key)
	case "sharesBuffers":
		return m.keepBuffer(ctx, key, data, cond)
	case "plusIsSpace":
		key = strings.ReplaceAll(key, "+", " ")
	case "largeTruncated":
		if len(data) > largeMutant {
			data = data[:largeMutant]
		}
	case "largeIgnoresConditions":
		if len(data) > largeMutant {
			cond = store.Condition{}
		}
	case "optionalBypassesGet":
		data = flipped(data)
	}
	return m.Store.Set(ctx, key, data, cond)
}

// flipped is data with every bit inverted, a copy: what
// optionalBypassesGet stores, and inverts again on Get.
func flipped(data []byte) []byte {
	out := make([]byte, len(data))
	for i, b := range data {
		out[i] = ^b
	}
	return out
}

// keepBuffer stores data and keeps the caller's slice to hand out again.
func (m *mutant) keepBuffer(ctx context.Context, key string, data []byte, cond store.Condition) (string, error) {
	v, err := m.Store.Set(ctx, key, data, cond)
	if err == nil {
		m.mu.Lock()
		if m.shared == nil {
			m.shared = make(map[string][]byte)
		}
		m.shared[key] = data
		m.mu.Unlock()
	}
	return v, err
}

// checkThenSet checks the condition, then writes unconditionally: the
// classic lost-update bug. On a raced key the first writer that passed
// the check waits for a second one (which passes it too, the first not
// having written) and both write, so the bug shows however the machine
// schedules them; later writers go straight through.
func (m *mutant) checkThenSet(ctx context.Context, key string, data []byte, cond store.Condition) (string, error) {
	info, err := m.Store.Stat(ctx, key)
	exists := err == nil
	if (cond.IfNoneMatch && exists) || (cond.IfMatch != "" && (!exists || info.Version != cond.IfMatch)) {
		return "", store.ErrConflict
	}
	if racedKeys[key] {
		m.meetOnce(ctx, key)
	}
	return m.Store.Set(ctx, key, data, store.Condition{})
}

// meetOnce makes the first caller for key wait for the second; once they
// have met, callers pass.
func (m *mutant) meetOnce(ctx context.Context, key string) {
	m.mu.Lock()
	if m.meets == nil {
		m.meets = make(map[string]chan struct{})
	}
	ch, ok := m.meets[key]
	switch {
	case !ok:
		ch = make(chan struct{})
		m.meets[key] = ch
		m.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
		case <-time.After(time.Minute): // no second writer: the suite no longer races here
		}
		return
	case ch != nil:
		close(ch)
		m.meets[key] = nil // met: the next callers pass
	}
	m.mu.Unlock()
}

func (m *mutant) remember(key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.prefixes == nil {
		m.prefixes = make(map[string]bool)
	}
	for i := range len(key) {
		if key[i] == '/' {
			m.prefixes[key[:i+1]] = true
		}
	}
}

func (m *mutant) ListDir(ctx context.Context, prefix string) (store.Dir, error) {
	if m.defect == "listUnsupported" {
		return store.Dir{}, store.ErrUnsupported
	}
	d, err := m.Store.ListDir(ctx, prefix)
	if m.defect == "listDirOnePage" && len(d.Keys) > onePage {
		d.Keys = d.Keys[:onePage]
	}
	if err != nil || m.defect != "stalePrefixes" {
		return d, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for p := range m.prefixes {
		rest, ok := strings.CutPrefix(p, prefix)
		if ok && strings.Count(rest, "/") == 1 && !slices.Contains(d.Prefixes, p) {
			d.Prefixes = append(d.Prefixes, p)
		}
	}
	return d, nil
}

func (m *mutant) List(ctx context.Context, prefix string) iter.Seq2[string, error] {
	switch m.defect {
	case "listUnsupported":
		return func(yield func(string, error) bool) { yield("", store.ErrUnsupported) }
	case "listOnePage":
		return m.firstPage(ctx, prefix)
	case "plusIsSpace":
		return m.Store.List(ctx, strings.ReplaceAll(prefix, "+", " "))
	}
	return m.Store.List(ctx, prefix)
}

// firstPage lists like a store that ignores continuation tokens.
func (m *mutant) firstPage(ctx context.Context, prefix string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		keys, err := store.ListAll(ctx, m.Store, prefix)
		if err != nil {
			yield("", err)
			return
		}
		for _, key := range keys[:min(len(keys), onePage)] {
			if !yield(key, nil) {
				return
			}
		}
	}
}

// onePage is the page size of the paging mutants; largeMutant is the
// threshold of the large-value mutants.
const (
	onePage     = 1000
	largeMutant = 1 << 20
)

func (m *mutant) Erase(ctx context.Context, key string) error {
	switch m.defect {
	case "acceptsBadKeys":
		key = escape(key)
	case "plusIsSpace":
		key = strings.ReplaceAll(key, "+", " ")
	case "eraseMissingFails":
		if _, err := m.Store.Stat(ctx, key); err != nil {
			return fmt.Errorf("erase %q: %w", key, err)
		}
	}
	return m.Store.Erase(ctx, key)
}

// EraseMany erases through Erase, so that Erase's defects show in it too.
func (m *mutant) EraseMany(ctx context.Context, keys []string) error {
	switch m.defect {
	case "eraseManyOneBatch":
		keys = keys[:min(len(keys), onePage)]
	case "eraseManySkipsInvalid":
		keys = slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return store.ValidateKey(k) != nil })
	}
	return store.EraseEach(ctx, m, keys, 0)
}

func (m *mutant) ErasePrefix(ctx context.Context, prefix string) error {
	var keep func(i int, key string) bool
	switch m.defect {
	case "eraseOnePage":
		keep = func(i int, _ string) bool { return i >= onePage }
	case "erasePrefixNotSegment":
		if err := store.ValidatePrefix(prefix); err != nil {
			return err
		}
		stem := strings.TrimSuffix(prefix, "/")
		keys, err := store.ListAll(ctx, m.Store, "")
		if err != nil {
			return err
		}
		for _, key := range keys {
			if strings.HasPrefix(key, stem) {
				if err := m.Store.Erase(ctx, key); err != nil {
					return err
				}
			}
		}
		return nil
	case "plusIsSpace":
		prefix = strings.ReplaceAll(prefix, "+", " ")
	}
	if keep == nil {
		return m.Store.ErasePrefix(ctx, prefix)
	}
	keys, err := store.ListAll(ctx, m.Store, prefix)
	if err != nil {
		return err
	}
	for i, key := range keys {
		if !keep(i, key) {
			if err := m.Store.Erase(ctx, key); err != nil {
				return err
			}
		}
	}
	return nil
}

// escape maps any string to a valid key, so a store using it accepts keys
// it should refuse.
func escape(key string) string {
	if store.ValidateKey(key) == nil {
		return key
	}
	return fmt.Sprintf("escaped/%x", key)
}
