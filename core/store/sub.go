package store

import (
	"context"
	"fmt"
	"iter"
	"strings"
)

// Sub returns the part of s below prefix as a store of its own: key "k"
// of the result is key prefix+"k" of s, and listings leave the prefix out.
// A dataset declared with a prefix inside a bucket or directory is served
// through it. An empty prefix returns s itself. Closing the result does
// not close s, which may be shared by several datasets.
func Sub(s Store, prefix string) (Store, error) {
	prefix = strings.Trim(prefix, "/")
	if prefix == "" {
		return s, nil
	}
	prefix += "/"
	if err := ValidatePrefix(prefix); err != nil {
		return nil, fmt.Errorf("store prefix: %w", err)
	}
	return &sub{next: s, prefix: prefix}, nil
}

type sub struct {
	next   Store
	prefix string
}

func (s *sub) Capabilities() Capabilities { return s.next.Capabilities() }

// key checks key before joining it, so that the prefix cannot be escaped
// with ".." whatever the store below does with it.
func (s *sub) key(key string) (string, error) {
	if err := ValidateKey(key); err != nil {
		return "", err
	}
	return s.prefix + key, nil
}

func (s *sub) dir(prefix string) (string, error) {
	if err := ValidatePrefix(prefix); err != nil {
		return "", err
	}
	return s.prefix + prefix, nil
}

func (s *sub) Get(ctx context.Context, key string, r ByteRange) (Value, error) {
	k, err := s.key(key)
	if err != nil {
		return Value{}, err
	}
	return s.next.Get(ctx, k, r)
}

// GetInto keeps the copy-free read path of the store below (Sub shows
// it only where that store has one, as ListSorted and ListInfo).
func (s *sub) GetInto(ctx context.Context, key string, dst []byte) (bool, error) {
	k, err := s.key(key)
	if err != nil {
		return false, err
	}
	return GetInto(ctx, s.next, k, dst)
}

func (s *sub) Stat(ctx context.Context, key string) (Info, error) {
	k, err := s.key(key)
	if err != nil {
		return Info{}, err
	}
	return s.next.Stat(ctx, k)
}

func (s *sub) Set(ctx context.Context, key string, data []byte, cond Condition) (string, error) {
	k, err := s.key(key)
	if err != nil {
		return "", err
	}
	return s.next.Set(ctx, k, data, cond)
}

func (s *sub) Erase(ctx context.Context, key string) error {
	k, err := s.key(key)
	if err != nil {
		return err
	}
	return s.next.Erase(ctx, k)
}

func (s *sub) EraseMany(ctx context.Context, keys []string) error {
	ks := make([]string, len(keys))
	for i, key := range keys {
		k, err := s.key(key)
		if err != nil {
			return err
		}
		ks[i] = k
	}
	return s.next.EraseMany(ctx, ks)
}

func (s *sub) ErasePrefix(ctx context.Context, prefix string) error {
	p, err := s.dir(prefix)
	if err != nil {
		return err
	}
	return s.next.ErasePrefix(ctx, p)
}

func (s *sub) List(ctx context.Context, prefix string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		p, err := s.dir(prefix)
		if err != nil {
			yield("", err)
			return
		}
		for key, err := range s.next.List(ctx, p) {
			if err != nil {
				yield("", err)
				return
			}
			if !yield(strings.TrimPrefix(key, s.prefix), nil) {
				return
			}
		}
	}
}

func (s *sub) ListDir(ctx context.Context, prefix string) (Dir, error) {
	p, err := s.dir(prefix)
	if err != nil {
		return Dir{}, err
	}
	d, err := s.next.ListDir(ctx, p)
	if err != nil {
		return Dir{}, err
	}
	for i, k := range d.Keys {
		d.Keys[i] = strings.TrimPrefix(k, s.prefix)
	}
	for i, k := range d.Prefixes {
		d.Prefixes[i] = strings.TrimPrefix(k, s.prefix)
	}
	return d, nil
}

func (s *sub) Close() error { return nil }

// ListSorted keeps the sorted listing of the store below.
func (s *sub) ListSorted(ctx context.Context, prefix, startAfter string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		p, err := s.dir(prefix)
		if err != nil {
			yield("", err)
			return
		}
		if startAfter != "" {
			startAfter = s.prefix + startAfter
		}
		for key, err := range ListSorted(ctx, s.next, p, startAfter) {
			if err != nil {
				yield("", err)
				return
			}
			if !yield(strings.TrimPrefix(key, s.prefix), nil) {
				return
			}
		}
	}
}

// ListInfo keeps the listing with sizes and versions of the store below.
func (s *sub) ListInfo(ctx context.Context, prefix, startAfter string) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		p, err := s.dir(prefix)
		if err != nil {
			yield(Entry{}, err)
			return
		}
		if startAfter != "" {
			startAfter = s.prefix + startAfter
		}
		for e, err := range ListInfo(ctx, s.next, p, startAfter) {
			e.Key = strings.TrimPrefix(e.Key, s.prefix)
			if !yield(e, err) || err != nil {
				return
			}
		}
	}
}
