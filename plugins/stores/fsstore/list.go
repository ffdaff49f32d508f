package fsstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"strings"

	"github.com/zarrgw/zarrgw/core/store"
)

// readBatch is how many directory entries List reads at a time, so a
// directory of a million chunks streams instead of loading at once.
const readBatch = 256

// List yields every key under prefix, walking depth first and reading
// each directory in batches; keys come in directory order.
func (s *Store) List(ctx context.Context, prefix string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		if err := checkPrefix(prefix); err != nil {
			yield("", err)
			return
		}
		s.walk(ctx, strings.TrimSuffix(prefix, "/"), prefix, yield)
	}
}

// walk yields the keys under dir (whose keys start with keyPrefix) and
// returns false once the caller stopped or an error was yielded.
func (s *Store) walk(ctx context.Context, dir, keyPrefix string, yield func(string, error) bool) bool {
	f, err := s.openDirFile(dir)
	if isMissing(err) {
		return true // no such prefix, or pruned while we walked
	}
	if err != nil {
		return yield("", fmt.Errorf("fs: list %q: %w", keyPrefix, err)) && false
	}
	defer f.Close()
	for {
		entries, err := f.ReadDir(readBatch)
		for _, e := range entries {
			if err := ctx.Err(); err != nil {
				return yield("", fmt.Errorf("fs: list %q: %w", keyPrefix, err)) && false
			}
			name := e.Name()
			if !isKeySegment(name) {
				continue
			}
			switch {
			case e.IsDir():
				if !s.walk(ctx, joinDir(dir, name), keyPrefix+name+"/", yield) {
					return false
				}
			case e.Type().IsRegular():
				if !yield(keyPrefix+name, nil) {
					return false
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return true
		}
		if err != nil {
			return yield("", fmt.Errorf("fs: list %q: %w", keyPrefix, err)) && false
		}
	}
}

func joinDir(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// ListDir lists the files (keys) and directories (prefixes) directly in
// the prefix's directory.
func (s *Store) ListDir(ctx context.Context, prefix string) (store.Dir, error) {
	if err := ctx.Err(); err != nil {
		return store.Dir{}, fmt.Errorf("fs: list dir %q: %w", prefix, err)
	}
	if err := checkPrefix(prefix); err != nil {
		return store.Dir{}, err
	}
	f, err := s.openDirFile(strings.TrimSuffix(prefix, "/"))
	if isMissing(err) {
		return store.Dir{}, nil
	}
	if err != nil {
		return store.Dir{}, fmt.Errorf("fs: list dir %q: %w", prefix, err)
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return store.Dir{}, fmt.Errorf("fs: list dir %q: %w", prefix, err)
	}
	var d store.Dir
	for _, e := range entries {
		switch name := e.Name(); {
		case !isKeySegment(name):
		case e.IsDir():
			d.Prefixes = append(d.Prefixes, prefix+name+"/")
		case e.Type().IsRegular():
			d.Keys = append(d.Keys, prefix+name)
		}
	}
	slices.Sort(d.Keys)
	slices.Sort(d.Prefixes)
	return d, nil
}
