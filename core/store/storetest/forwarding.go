package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

// Wrapper builds the store under test over inner: a transformer, a view,
// a client of a store served elsewhere. The check closes what it returns
// (which may close inner, a memory store).
type Wrapper func(t testing.TB, inner store.Store) store.Store

// ForwardOptions fit the forwarding check to a wrapper.
type ForwardOptions struct {
	// Own are the optional operations the wrapper has by its own means,
	// whatever its store has (a plugin client reads into the caller's
	// buffer from frames; the sharding transformer lists its own
	// directories): it must have them, and they need not reach inner.
	Own store.Optional
	// Lacks are those it never has, since it cannot do what they promise
	// (a store that cannot list has no sorted listing).
	Lacks store.Optional
	// OwnErase says the wrapper erases by its own means (the sharding
	// transformer rewrites the shards holding the keys), so its EraseMany
	// need not reach the inner store's. Every other wrapper that can
	// erase must pass a batch on as one batch: one that erased key by key
	// would turn S3's 1000-key DeleteObjects back into 1000 DELETEs.
	OwnErase bool
	// KeepsBytes says the wrapper passes its store's bytes through
	// unchanged, so it must claim files (Optional.File) where its store does (a key
	// mapping, a hook, a read-only view). Other wrappers may drop it, and
	// must, where their bytes differ from the store's: a value read
	// through a file would skip them.
	KeepsBytes bool
}

// RunForwarding checks wrap over an inner store of every combination of
// optional operations (Into, Sorted, Info, File), one subtest
// each: ForwardingProblems must find nothing.
func RunForwarding(t *testing.T, wrap Wrapper, opts ForwardOptions) {
	t.Helper()
	for _, o := range store.EveryOptional() {
		t.Run(o.String(), func(t *testing.T) {
			for _, p := range ForwardingProblems(t, wrap, o, opts) {
				t.Error(p)
			}
		})
	}
}

// ForwardingProblems wraps a memory store claiming the optional operations
// o and reports what is wrong: an optional operation the wrapper drops or
// claims beyond o (and opts), or one it shows but serves by a fallback
// (a Stat per key, a walk of directories, a Get and a copy) instead of
// the inner store's own, or serves wrongly.
func ForwardingProblems(t testing.TB, wrap Wrapper, o store.Optional, opts ForwardOptions) []string {
	t.Helper()
	inner := &counting{Memory: store.NewMemory()}
	w := wrap(t, store.WithOptional(inner, o))
	defer w.Close()
	want := o.Minus(opts.Lacks).Or(opts.Own)
	got := store.OptionalOf(w)
	if !opts.KeepsBytes {
		want.File = want.File && got.File // dropping it is allowed
	}
	problems := claimProblems(got, want)
	if len(problems) > 0 {
		return problems // what it shows is wrong: its calls would mislead
	}
	if err := seed(t.Context(), w, inner); err != nil {
		return []string{err.Error()}
	}
	forwarded := want.Minus(opts.Own)
	if forwarded.Into {
		problems = append(problems, checkInto(t.Context(), w, inner)...)
	}
	if forwarded.Sorted {
		problems = append(problems, checkSorted(t.Context(), w, inner)...)
	}
	if forwarded.Info {
		problems = append(problems, checkInfo(t.Context(), w, inner)...)
	}
	if forwarded.File {
		problems = append(problems, checkFile(t.Context(), w, inner)...)
	}
	if w.Capabilities().Erase && !opts.OwnErase { // last: it erases the keys
		problems = append(problems, checkEraseMany(t.Context(), w, inner)...)
	}
	return problems
}

// checkEraseMany erases two of forwardKeys through w: they must go, in
// one EraseMany of the inner store and no Erase.
func checkEraseMany(ctx context.Context, w store.Store, inner *counting) []string {
	inner.reset()
	keys := forwardKeys[:2]
	if err := w.EraseMany(ctx, append(slices.Clone(keys), "missing")); err != nil {
		return []string{fmt.Sprintf("EraseMany(%q + a missing key): %v", keys, err)}
	}
	var out []string
	for _, k := range keys {
		if _, err := w.Get(ctx, k, store.ByteRange{}); !errors.Is(err, store.ErrNotFound) {
			out = append(out, fmt.Sprintf("Get(%q) after EraseMany: %v, want ErrNotFound", k, err))
		}
	}
	if inner.many.Load() != 1 || inner.erase.Load() > 0 {
		out = append(out, fmt.Sprintf("EraseMany(%q) did not reach the inner store as one EraseMany (%s)", keys, inner))
	}
	return out
}

// claimProblems compares what a wrapper shows with what it should.
func claimProblems(got, want store.Optional) []string {
	var out []string
	if lost := want.Minus(got); lost != (store.Optional{}) {
		out = append(out, fmt.Sprintf("drops %s: shows %s, should show %s", lost, got, want))
	}
	if extra := got.Minus(want); extra != (store.Optional{}) {
		out = append(out, fmt.Sprintf("claims %s, which its store lacks: shows %s, should show %s", extra, got, want))
	}
	return out
}

// forwardKeys are the keys the check reads back, in byte order, each
// holding its own name.
var forwardKeys = []string{"a/b", "a/c", "d"}

// seed writes forwardKeys through w, or into inner where w cannot write
// (a read-only view shows inner's keys as they are).
func seed(ctx context.Context, w store.Store, inner store.Store) error {
	target := w
	if !w.Capabilities().Write {
		target = inner
	}
	for _, k := range forwardKeys {
		if _, err := target.Set(ctx, k, []byte(k), store.Condition{}); err != nil {
			return fmt.Errorf("set %q: %w", k, err)
		}
	}
	return nil
}

// checkFile reads a key through the wrapper's OpenFile: the inner
// store's file, with the key's bytes.
func checkFile(ctx context.Context, w store.Store, inner *counting) []string {
	inner.reset()
	key := forwardKeys[0]
	f, info, err := store.OpenFile(ctx, w, key, nil)
	if err != nil || f == nil {
		return []string{fmt.Sprintf("OpenFile(%q): %v, %v", key, f, err)}
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	small := make([]byte, 64)
	if g, sinfo, err := store.OpenFile(ctx, w, key, small); err != nil || g != nil || string(small[:sinfo.Size]) != key {
		return []string{fmt.Sprintf("OpenFile(%q) with room for it: file %v, %v, read %q", key, g, err, small[:max(0, min(64, sinfo.Size))])}
	}
	switch {
	case err != nil || !bytes.Equal(data, []byte(key)) || info.Size != int64(len(key)):
		return []string{fmt.Sprintf("OpenFile(%q) read %q (size %d), %v: want %q", key, data, info.Size, err, key)}
	case inner.file.Load() == 0:
		return []string{fmt.Sprintf("OpenFile(%q) never reached the inner store's OpenFile (%s)", key, inner)}
	}
	return checkSetFrom(ctx, w, inner)
}

// checkSetFrom writes a key through the wrapper's SetFrom, where it
// writes: it must reach the inner store's SetFrom and read back. A
// wrapper that cannot write must refuse without storing.
func checkSetFrom(ctx context.Context, w store.Store, inner *counting) []string {
	inner.reset()
	key, value := "streamed", "streamed value"
	_, err := store.SetFrom(ctx, w, key, strings.NewReader(value), store.Condition{})
	if !w.Capabilities().Write {
		if _, gerr := inner.Memory.Get(ctx, key, store.ByteRange{}); err == nil || !errors.Is(gerr, store.ErrNotFound) {
			return []string{fmt.Sprintf("SetFrom(%q) through a wrapper that cannot write: %v, and the inner store holds the key: %v", key, err, gerr)}
		}
		return nil
	}
	v, gerr := w.Get(ctx, key, store.ByteRange{})
	switch {
	case err != nil || gerr != nil || string(v.Data) != value:
		return []string{fmt.Sprintf("SetFrom(%q): %v, then read %q, %v: want %q", key, err, v.Data, gerr, value)}
	case inner.setFrom.Load() == 0:
		return []string{fmt.Sprintf("SetFrom(%q) never reached the inner store's SetFrom (%s)", key, inner)}
	}
	return nil
}

func checkInto(ctx context.Context, w store.Store, inner *counting) []string {
	inner.reset()
	key := forwardKeys[len(forwardKeys)-1]
	dst := make([]byte, len(key))
	ok, err := store.GetInto(ctx, w, key, dst)
	switch {
	case err != nil || !ok || !bytes.Equal(dst, []byte(key)):
		return []string{fmt.Sprintf("GetInto(%q) = %v, %v, %q: want true, <nil>, %q", key, ok, err, dst, key)}
	case inner.into.Load() == 0:
		return []string{fmt.Sprintf("GetInto(%q) never reached the inner store's GetInto (%s)", key, inner)}
	}
	return nil
}

func checkSorted(ctx context.Context, w store.Store, inner *counting) []string {
	var out []string
	for _, after := range []string{"", forwardKeys[0]} {
		inner.reset()
		got, err := store.Collect(store.ListSorted(ctx, w, "", after))
		if want := keysAfter(after); err != nil || !slices.Equal(got, want) {
			out = append(out, fmt.Sprintf("ListSorted(\"\", %q) = %q, %v: want %q", after, got, err, want))
		}
		if !inner.listedSorted() {
			out = append(out, fmt.Sprintf("ListSorted(\"\", %q) did not list through the inner store's sorted listing (%s)", after, inner))
		}
	}
	return out
}

func checkInfo(ctx context.Context, w store.Store, inner *counting) []string {
	var out []string
	for _, after := range []string{"", forwardKeys[0]} {
		inner.reset()
		var got []string
		var err error
		for e, lerr := range store.ListInfo(ctx, w, "", after) {
			if err = lerr; err != nil {
				break
			}
			got = append(got, e.Key)
			if e.Info.Size != int64(len(e.Key)) || e.Info.Version == "" {
				out = append(out, fmt.Sprintf("ListInfo(\"\", %q): %s has size %d, version %q: want %d and a version", after, e.Key, e.Info.Size, e.Info.Version, len(e.Key)))
			}
		}
		if want := keysAfter(after); err != nil || !slices.Equal(got, want) {
			out = append(out, fmt.Sprintf("ListInfo(\"\", %q) = %q, %v: want %q", after, got, err, want))
		}
		if inner.info.Load() == 0 || inner.stat.Load() > 0 {
			out = append(out, fmt.Sprintf("ListInfo(\"\", %q) did not list through the inner store's ListInfo (%s)", after, inner))
		}
	}
	return out
}

func keysAfter(after string) []string {
	var out []string
	for _, k := range forwardKeys {
		if k > after {
			out = append(out, k)
		}
	}
	return out
}

// counting is a memory store that counts the calls a fallback makes in
// place of an optional operation: Stats for ListInfo, directory listings
// for ListSorted, Gets for GetInto. Calls may come from any goroutine (a
// plugin's server).
type counting struct {
	*store.Memory
	into, sorted, info, stat, dir, get, erase, many, file, setFrom atomic.Int64
}

// Capabilities claims files too, which counting hands out.
func (c *counting) Capabilities() store.Capabilities {
	caps := c.Memory.Capabilities()
	caps.File = true
	return caps
}

func (c *counting) reset() {
	for _, n := range []*atomic.Int64{&c.into, &c.sorted, &c.info, &c.stat, &c.dir, &c.get, &c.erase, &c.many, &c.file, &c.setFrom} {
		n.Store(0)
	}
}

// listedSorted reports whether a sorted listing went through the inner
// store's own (ListSorted, or ListInfo, which lists in the same order)
// and not through a walk of its directories.
func (c *counting) listedSorted() bool {
	return c.sorted.Load()+c.info.Load() > 0 && c.dir.Load() == 0
}

func (c *counting) String() string {
	return fmt.Sprintf("it saw %d GetInto, %d ListSorted, %d ListInfo, %d Stat, %d ListDir, %d Get, %d Erase, %d EraseMany, %d OpenFile, %d SetFrom",
		c.into.Load(), c.sorted.Load(), c.info.Load(), c.stat.Load(), c.dir.Load(), c.get.Load(), c.erase.Load(), c.many.Load(), c.file.Load(), c.setFrom.Load())
}

func (c *counting) Erase(ctx context.Context, key string) error {
	c.erase.Add(1)
	return c.Memory.Erase(ctx, key)
}

func (c *counting) EraseMany(ctx context.Context, keys []string) error {
	c.many.Add(1)
	return c.Memory.EraseMany(ctx, keys)
}

// OpenFile hands out the value as a file of its own, as the fs store
// does: a copy in a temporary file, removed once open.
func (c *counting) OpenFile(ctx context.Context, key string, buf []byte) (*os.File, store.Info, error) {
	c.file.Add(1)
	v, err := c.Memory.Get(ctx, key, store.ByteRange{})
	if err != nil {
		return nil, store.Info{}, err
	}
	info := store.Info{Size: int64(len(v.Data)), Version: v.Version, ModTime: v.ModTime}
	if len(v.Data) <= len(buf) {
		copy(buf, v.Data)
		return nil, info, nil
	}
	f, err := os.CreateTemp("", "storetest-file-")
	if err != nil {
		return nil, store.Info{}, err
	}
	os.Remove(f.Name())
	if _, err := f.Write(v.Data); err != nil {
		f.Close()
		return nil, store.Info{}, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, store.Info{}, err
	}
	return f, info, nil
}

// SetFrom reads the stream to its end and stores it, as a store of
// files does, only if it ends well.
func (c *counting) SetFrom(ctx context.Context, key string, r io.Reader, cond store.Condition) (string, error) {
	c.setFrom.Add(1)
	data, err := io.ReadAll(r)
	if err != nil {
		return "", fmt.Errorf("set %q: %w", key, err)
	}
	return c.Memory.Set(ctx, key, data, cond)
}

func (c *counting) Get(ctx context.Context, key string, r store.ByteRange) (store.Value, error) {
	c.get.Add(1)
	return c.Memory.Get(ctx, key, r)
}

func (c *counting) GetInto(ctx context.Context, key string, dst []byte) (bool, error) {
	c.into.Add(1)
	return c.Memory.GetInto(ctx, key, dst)
}

func (c *counting) Stat(ctx context.Context, key string) (store.Info, error) {
	c.stat.Add(1)
	return c.Memory.Stat(ctx, key)
}

func (c *counting) ListDir(ctx context.Context, prefix string) (store.Dir, error) {
	c.dir.Add(1)
	return c.Memory.ListDir(ctx, prefix)
}

func (c *counting) ListSorted(ctx context.Context, prefix, startAfter string) iter.Seq2[string, error] {
	c.sorted.Add(1)
	return c.Memory.ListSorted(ctx, prefix, startAfter)
}

func (c *counting) ListInfo(ctx context.Context, prefix, startAfter string) iter.Seq2[store.Entry, error] {
	c.info.Add(1)
	return c.Memory.ListInfo(ctx, prefix, startAfter)
}
