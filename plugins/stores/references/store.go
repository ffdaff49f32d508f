package references

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/netip"
	"strings"
	"sync"

	"github.com/zarrgw/zarrgw/core/store"
)

// Store serves a reference set read-only: inline values from the set,
// the others read from their target files, below the roots the set may
// reach (reach.go): its own directory, the prefixes of targets (declared
// stores of the host's) and of allow_targets (opened by URL); each root's
// store is opened once.
type Store struct {
	store.NoOptional // of the optional operations it lists with sizes only
	src              Source
	opener           store.URLOpener
	// maxGap and maxBlock bound the runs of neighbouring ranges read in
	// one request within a read batch (coalesce.go).
	maxGap, maxBlock int64
	base             string // the set's directory, canonical: relative targets resolve here ("" for none)
	roots            []root // longest prefix first
	// addresses are the non-public network addresses the stores opened by
	// URL may connect to beside their own IP literals (allow_addresses).
	addresses []netip.Prefix
	declared  store.DeclaredOpener

	mu      sync.Mutex
	dirs    map[string]store.Store // by root prefix
	closers []io.Closer            // those opened by URL, this store's
}

// New returns the store over src, reaching target files through opener;
// relative target URLs are taken relative to base (the directory URL of
// the reference set, "" for none), and targets below base may be read.
// Ranges are coalesced with the default bounds.
func New(src Source, opener store.URLOpener, base string) *Store {
	s := &Store{src: src, opener: opener, dirs: map[string]store.Store{},
		maxGap: DefaultMaxGap, maxBlock: DefaultMaxBlock}
	if base != "" {
		// dirPrefix fails only without a working directory; then relative
		// targets fail, saying they need the set's location.
		if b, err := dirPrefix(base); err == nil {
			s.base = b
			s.addRoot(root{prefix: b})
		}
	}
	return s
}

// Coalesce sets the bounds of the runs read in one request within a read
// batch: ranges at most maxGap bytes apart, a run at most maxBlock bytes;
// maxBlock 0 reads every range alone. It returns s.
func (s *Store) Coalesce(maxGap, maxBlock int64) *Store {
	s.maxGap, s.maxBlock = maxGap, maxBlock
	return s
}

// Targets routes the target URLs starting with each prefix of byPrefix to
// the declared store it names (store.TYPE.NAME), opened through declared
// when first read; the rest of such a URL is the file's key there. It
// returns s, or an error for a prefix that is no URL or absolute path.
func (s *Store) Targets(byPrefix map[string]string, declared store.DeclaredOpener) (*Store, error) {
	s.declared = declared
	for prefix, ref := range byPrefix {
		c, err := canonical(prefix, "")
		if err != nil {
			return nil, fmt.Errorf("targets[%q]: %w", prefix, err)
		}
		s.addRoot(root{prefix: c, declared: ref})
	}
	return s, nil
}

// target returns the store holding url's file and the file's key there:
// the declared store of a targets prefix, or the store of an allowed root
// opened by URL (with s's address check); either once. A target below no
// root is errRefused, and nothing is opened for it.
func (s *Store) target(ctx context.Context, url string) (store.Store, string, error) {
	r, key, err := s.resolve(url)
	if err != nil {
		return nil, "", err
	}
	if r.declared != "" {
		d, err := s.open(r.prefix, func() (store.Store, bool, error) {
			d, err := s.declared.OpenDeclared(ctx, r.declared)
			return d, false, err
		})
		if err != nil {
			return nil, "", fmt.Errorf("targets[%q] = %s: %w", r.prefix, r.declared, err)
		}
		return d, key, nil
	}
	d, err := s.open(r.prefix, func() (store.Store, bool, error) {
		d, err := s.opener.OpenURL(store.WithAddressCheck(ctx, s.addressCheck(r.prefix)), r.prefix)
		return d, true, err
	})
	return d, key, err
}

// open returns the store opened under name, opening it once with open
// (which says whether the store is this one's to close).
func (s *Store) open(name string, open func() (store.Store, bool, error)) (store.Store, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, ok := s.dirs[name]; ok {
		return d, nil
	}
	d, owned, err := open()
	if err != nil {
		return nil, err
	}
	s.dirs[name] = d
	if owned {
		s.closers = append(s.closers, d)
	}
	return d, nil
}

// splitFile splits a file's URL or path into its directory (ending in
// "/", "./" for a bare name) and its name.
func splitFile(url string) (dir, name string, err error) {
	i := strings.LastIndexByte(url, '/')
	if i == len(url)-1 {
		return "", "", fmt.Errorf("%q names no file", url)
	}
	if i < 0 {
		return "./", url, nil
	}
	return url[:i+1], url[i+1:], nil
}

func (s *Store) Capabilities() store.Capabilities {
	return store.Capabilities{Read: true, List: true, Ranges: true, SuffixRanges: true,
		Optional: store.Optional{Info: true}}
}

func (s *Store) lookup(ctx context.Context, key string) (Ref, *Extents, error) {
	r, ext, ok, err := s.src.Lookup(ctx, key)
	if err != nil {
		return Ref{}, nil, fmt.Errorf("references: key %q: %w", key, err)
	}
	if !ok {
		return Ref{}, nil, fmt.Errorf("references: key %q: %w", key, store.ErrNotFound)
	}
	return r, ext, nil
}

// Get reads a value or part of it. A target that is missing, or shorter
// than the range the reference names, is an error naming the key and the
// target: never store.ErrNotFound, which readers take for fill values.
func (s *Store) Get(ctx context.Context, key string, br store.ByteRange) (store.Value, error) {
	r, ext, err := s.lookup(ctx, key)
	if err != nil {
		return store.Value{}, err
	}
	if r.Inline() {
		start, end, err := br.Resolve(int64(len(r.Data)))
		if err != nil {
			return store.Value{}, fmt.Errorf("references: key %q: %w", key, err)
		}
		return store.Value{Data: r.Data[start:end:end], Version: inlineVersion(r.Data)}, nil
	}
	ctx, err = s.enter(ctx, key)
	if err != nil {
		return store.Value{}, err
	}
	target, tkey, err := s.target(ctx, r.URL)
	if err != nil {
		return store.Value{}, targetError(key, r, err)
	}
	if r.Length < 0 { // the whole file
		v, err := target.Get(ctx, tkey, br)
		if err != nil {
			return store.Value{}, targetError(key, r, err)
		}
		return v, nil
	}
	start, end, err := br.Resolve(r.Length)
	if err != nil {
		return store.Value{}, fmt.Errorf("references: key %q: %w", key, err)
	}
	if b := store.ReadBatchFrom(ctx); b != nil && ext != nil && start == 0 && end == r.Length {
		if v, ok, err := s.coalesced(ctx, b, key, r, ext, target, tkey); ok || err != nil {
			return v, err
		}
	}
	v, err := target.Get(ctx, tkey, store.Range(r.Offset+start, end-start))
	if err != nil {
		return store.Value{}, targetError(key, r, err)
	}
	if int64(len(v.Data)) != end-start {
		return store.Value{}, shortTarget(key, fmt.Errorf("references: key %q: target %s: bytes %d-%d are past its end (%d of %d bytes read)",
			key, r.URL, r.Offset+start, r.Offset+end-1, len(v.Data), end-start))
	}
	v.Version = rangeVersion(v.Version, r)
	return v, nil
}

// entered marks a context as reading through a store's targets.
type entered struct{ s *Store }

// enter marks ctx as reading through s's targets, refusing a read that
// comes back to s through them (a target store declared as the
// reference set's own, directly or through another): it would never end.
func (s *Store) enter(ctx context.Context, key string) (context.Context, error) {
	if s.declared == nil {
		return ctx, nil
	}
	if ctx.Value(entered{s}) != nil {
		return nil, fmt.Errorf("references: key %q: its target is read through this reference set again (targets refer back to it)", key)
	}
	return context.WithValue(ctx, entered{s}, true), nil
}

// rangeVersion is the version of a ranged value: its file's, with the
// range (empty where the file's store has no versions).
func rangeVersion(file string, r Ref) string {
	if file == "" {
		return ""
	}
	return fmt.Sprintf("%s@%d+%d", file, r.Offset, r.Length)
}

// targetError names the key and its target for the operator (the log,
// the CLI); a gateway's clients are told the key only
// (store.WithheldError): the target is the set's choice, and may name a
// file or service they must not learn of. A missing target loses the
// identity of store.ErrNotFound (the key exists: its data is missing).
func targetError(key string, r Ref, err error) error {
	switch {
	case errors.Is(err, errRefused):
		return store.Withhold(fmt.Sprintf("references: key %q: its target is not one this dataset may read", key),
			fmt.Errorf("references: key %q: target %s: %w", key, r.URL, err))
	case errors.Is(err, store.ErrNotFound):
		return store.Withhold(fmt.Sprintf("references: key %q: its target file is missing", key),
			fmt.Errorf("references: key %q: target %s is missing: %v", key, r.URL, err))
	}
	return store.Withhold(fmt.Sprintf("references: key %q: its target could not be read", key),
		fmt.Errorf("references: key %q: target %s: %w", key, r.URL, err))
}

// shortTarget is err, about a target shorter than key's reference, as
// clients are told it: without the target.
func shortTarget(key string, err error) error {
	return store.Withhold(fmt.Sprintf("references: key %q: its target file is shorter than its reference", key), err)
}

// inlineVersion is an inline value's version: its content's hash, so
// that a reference set rewritten with other data gives other versions.
func inlineVersion(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:16])
}

// Stat of a value in a target file asks the file's store (a round trip,
// as a Get would make): a ranged value's version is its file's with the
// range, as Get gives it, so that a cache above revalidates it by Stat;
// and a missing or short file is the same error as Get's.
func (s *Store) Stat(ctx context.Context, key string) (store.Info, error) {
	r, _, err := s.lookup(ctx, key)
	if err != nil {
		return store.Info{}, err
	}
	if r.Inline() {
		return store.Info{Size: int64(len(r.Data)), Version: inlineVersion(r.Data)}, nil
	}
	ctx, err = s.enter(ctx, key)
	if err != nil {
		return store.Info{}, err
	}
	target, tkey, err := s.target(ctx, r.URL)
	if err != nil {
		return store.Info{}, targetError(key, r, err)
	}
	info, err := target.Stat(ctx, tkey)
	if err != nil {
		return store.Info{}, targetError(key, r, err)
	}
	if r.Length < 0 { // the whole file
		return info, nil
	}
	if info.Size < r.Offset+r.Length {
		return store.Info{}, shortTarget(key, fmt.Errorf("references: key %q: target %s: bytes %d-%d are past its end (it has %d)",
			key, r.URL, r.Offset, r.Offset+r.Length-1, info.Size))
	}
	info.Size, info.Version = r.Length, rangeVersion(info.Version, r)
	return info, nil
}

var errReadOnly = fmt.Errorf("a reference set is read-only: %w", store.ErrUnsupported)

func (s *Store) Set(_ context.Context, key string, _ []byte, _ store.Condition) (string, error) {
	return "", fmt.Errorf("references: set %q: %w", key, errReadOnly)
}

func (s *Store) Erase(_ context.Context, key string) error {
	return fmt.Errorf("references: erase %q: %w", key, errReadOnly)
}

func (s *Store) EraseMany(_ context.Context, keys []string) error {
	return fmt.Errorf("references: erase %d keys: %w", len(keys), errReadOnly)
}

func (s *Store) ErasePrefix(_ context.Context, prefix string) error {
	return fmt.Errorf("references: erase prefix %q: %w", prefix, errReadOnly)
}

// List yields the keys under prefix, in the source's order.
func (s *Store) List(ctx context.Context, prefix string) iter.Seq2[string, error] {
	return s.src.List(ctx, prefix)
}

// ListInfo lists keys in byte order with their sizes from the reference
// set itself, without a request to a target file (an S3 listing of a
// million chunks would otherwise make a million): ranged values carry no
// version here, Stat gives it; only whole-file values are Stat'ed.
func (s *Store) ListInfo(ctx context.Context, prefix, startAfter string) iter.Seq2[store.Entry, error] {
	return func(yield func(store.Entry, error) bool) {
		for k, err := range store.ListSorted(ctx, s, prefix, startAfter) {
			var info store.Info
			if err == nil {
				info, err = s.listedInfo(ctx, k)
			}
			if !yield(store.Entry{Key: k, Info: info}, err) || err != nil {
				return
			}
		}
	}
}

func (s *Store) listedInfo(ctx context.Context, key string) (store.Info, error) {
	r, _, err := s.lookup(ctx, key)
	switch {
	case err != nil:
		return store.Info{}, err
	case r.Inline():
		return store.Info{Size: int64(len(r.Data)), Version: inlineVersion(r.Data)}, nil
	case r.Length >= 0:
		return store.Info{Size: r.Length}, nil
	}
	return s.Stat(ctx, key)
}

func (s *Store) ListDir(ctx context.Context, prefix string) (store.Dir, error) {
	if err := store.ValidatePrefix(prefix); err != nil {
		return store.Dir{}, err
	}
	if dl, ok := s.src.(dirLister); ok {
		if d, handled, err := dl.ListDir(ctx, prefix); handled || err != nil {
			return d, err
		}
	}
	return store.ListDirFromList(ctx, s, prefix)
}

// Close closes the target directories' stores.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, c := range s.closers {
		errs = append(errs, c.Close())
	}
	s.closers, s.dirs = nil, map[string]store.Store{}
	return errors.Join(errs...)
}
