package storetest

import (
	"context"
	"fmt"
	"iter"

	"github.com/zarrgw/zarrgw/core/store"
)

// ReadVia returns a store that reads through reader and writes through
// writer, for running the suite on a read-only store (an HTTP store in
// front of a directory that an fs store writes): every read check then
// exercises reader. reader must see what writer writes. The result
// cannot list nor write conditionally, since versions from the two
// stores need not agree; closing it closes both. It reads into buffers
// where reader does.
func ReadVia(writer, reader store.Store) store.Store {
	return &readVia{w: writer, r: reader}
}

// readVia lists nothing and hands out no files: of the optional
// operations it does GetInto only.
type readVia struct {
	store.NoOptional
	w, r store.Store
}

func (s *readVia) Capabilities() store.Capabilities {
	rc, wc := s.r.Capabilities(), s.w.Capabilities()
	return store.Capabilities{Read: rc.Read, Ranges: rc.Ranges, SuffixRanges: rc.SuffixRanges,
		Write: wc.Write, Erase: wc.Erase, Optional: store.Optional{Into: rc.Into}}
}

func (s *readVia) Get(ctx context.Context, key string, r store.ByteRange) (store.Value, error) {
	return s.r.Get(ctx, key, r)
}

func (s *readVia) GetInto(ctx context.Context, key string, dst []byte) (bool, error) {
	return store.GetInto(ctx, s.r, key, dst)
}

func (s *readVia) Stat(ctx context.Context, key string) (store.Info, error) {
	return s.r.Stat(ctx, key)
}

func (s *readVia) Set(ctx context.Context, key string, data []byte, cond store.Condition) (string, error) {
	if cond != (store.Condition{}) {
		return "", fmt.Errorf("set %q: conditions through a reader of another store: %w", key, store.ErrUnsupported)
	}
	_, err := s.w.Set(ctx, key, data, cond)
	return "", err
}

func (s *readVia) Erase(ctx context.Context, key string) error { return s.w.Erase(ctx, key) }

func (s *readVia) EraseMany(ctx context.Context, keys []string) error {
	return s.w.EraseMany(ctx, keys)
}

func (s *readVia) ErasePrefix(ctx context.Context, prefix string) error {
	return s.w.ErasePrefix(ctx, prefix)
}

func (s *readVia) List(_ context.Context, prefix string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		if err := store.ValidatePrefix(prefix); err != nil {
			yield("", err)
			return
		}
		yield("", fmt.Errorf("list %q: %w", prefix, store.ErrUnsupported))
	}
}

func (s *readVia) ListDir(_ context.Context, prefix string) (store.Dir, error) {
	if err := store.ValidatePrefix(prefix); err != nil {
		return store.Dir{}, err
	}
	return store.Dir{}, fmt.Errorf("list %q: %w", prefix, store.ErrUnsupported)
}

func (s *readVia) Close() error {
	werr, rerr := s.w.Close(), s.r.Close()
	if werr != nil {
		return werr
	}
	return rerr
}
