// Package zipstore is an example of a store maintained outside zarrgw and
// run as a plugin: a read-only store over the members of a zip file, so
// that a Zarr hierarchy zipped whole can be served as it is.
//
// Keys are member names. A member stored without compression (as Zarr
// chunks, compressed already, usually are) is read in place, byte ranges
// included; a compressed one is inflated whole.
package zipstore

import (
	"archive/zip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"slices"
	"sort"
	"strings"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/store"
)

// Name is the store type, as HCL store blocks name it: store "zip" "NAME".
const Name = "zip"

// Registration is what the plugin serves.
var Registration = store.Registration{
	Manifest: extension.Manifest{
		Kind:    extension.Store,
		Name:    Name,
		Version: "1.0.0",
		ConfigSchema: json.RawMessage(`{"type": "object", "required": ["path"], "additionalProperties": false,
			"properties": {"path": {"type": "string", "description": "the zip file, relative to the directory zarrgw runs in"}}}`),
	},
	New: Open,
}

// Store serves the members of one zip file.
type Store struct {
	store.NoOptional // none of the optional operations: the helpers fall back
	zr               *zip.ReadCloser
	members          map[string]*zip.File
	keys             []string // sorted
}

// Open opens the zip file {"path": "..."} names.
func Open(_ context.Context, configuration json.RawMessage) (store.Store, error) {
	var cfg struct {
		Path string `json:"path"`
	}
	if err := extension.DecodeConfig(configuration, &cfg); err != nil || cfg.Path == "" {
		return nil, fmt.Errorf("%s: configuration needs a path: %v", Name, err)
	}
	zr, err := zip.OpenReader(cfg.Path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	s := &Store{zr: zr, members: map[string]*zip.File{}}
	for _, f := range zr.File {
		if !strings.HasSuffix(f.Name, "/") && store.ValidateKey(f.Name) == nil {
			s.members[f.Name] = f
			s.keys = append(s.keys, f.Name)
		}
	}
	sort.Strings(s.keys)
	return s, nil
}

func (s *Store) Capabilities() store.Capabilities {
	return store.Capabilities{Read: true, List: true, Ranges: true, SuffixRanges: true}
}

func (s *Store) member(key string) (*zip.File, error) {
	if err := store.ValidateKey(key); err != nil {
		return nil, err
	}
	f, ok := s.members[key]
	if !ok {
		return nil, fmt.Errorf("%s: %q: %w", Name, key, store.ErrNotFound)
	}
	return f, nil
}

func (s *Store) Get(_ context.Context, key string, r store.ByteRange) (store.Value, error) {
	f, err := s.member(key)
	if err != nil {
		return store.Value{}, err
	}
	start, end, err := r.Resolve(int64(f.UncompressedSize64))
	if err != nil {
		return store.Value{}, fmt.Errorf("%s: %q: %w", Name, key, err)
	}
	if f.Method == zip.Store {
		// Not compressed: read just the range, in place.
		raw, err := f.OpenRaw()
		if err != nil {
			return store.Value{}, fmt.Errorf("%s: %q: %w", Name, key, err)
		}
		if at, ok := raw.(io.ReaderAt); ok {
			data := make([]byte, end-start)
			if _, err := at.ReadAt(data, start); err != nil && !(err == io.EOF && start == end) {
				return store.Value{}, fmt.Errorf("%s: %q: %w", Name, key, err)
			}
			return store.Value{Data: data}, nil
		}
	}
	rc, err := f.Open()
	if err != nil {
		return store.Value{}, fmt.Errorf("%s: %q: %w", Name, key, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc) // also checks the member's CRC-32
	if err != nil {
		return store.Value{}, fmt.Errorf("%s: %q: %w", Name, key, err)
	}
	return store.Value{Data: data[start:end]}, nil
}

func (s *Store) Stat(_ context.Context, key string) (store.Info, error) {
	f, err := s.member(key)
	if err != nil {
		return store.Info{}, err
	}
	return store.Info{Size: int64(f.UncompressedSize64)}, nil
}

func (s *Store) Set(_ context.Context, key string, _ []byte, _ store.Condition) (string, error) {
	return "", fmt.Errorf("%s: set %q: a zip file is read only: %w", Name, key, store.ErrUnsupported)
}

func (s *Store) Erase(_ context.Context, key string) error {
	return fmt.Errorf("%s: erase %q: a zip file is read only: %w", Name, key, store.ErrUnsupported)
}

func (s *Store) EraseMany(_ context.Context, keys []string) error {
	return fmt.Errorf("%s: erase %d keys: a zip file is read only: %w", Name, len(keys), store.ErrUnsupported)
}

func (s *Store) ErasePrefix(_ context.Context, prefix string) error {
	return fmt.Errorf("%s: erase %q: a zip file is read only: %w", Name, prefix, store.ErrUnsupported)
}

func (s *Store) List(_ context.Context, prefix string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		if err := store.ValidatePrefix(prefix); err != nil {
			yield("", err)
			return
		}
		for _, k := range s.keys[s.from(prefix):] {
			if !strings.HasPrefix(k, prefix) || !yield(k, nil) {
				return
			}
		}
	}
}

func (s *Store) ListDir(_ context.Context, prefix string) (store.Dir, error) {
	if err := store.ValidatePrefix(prefix); err != nil {
		return store.Dir{}, err
	}
	var d store.Dir
	for _, k := range s.keys[s.from(prefix):] {
		rest, ok := strings.CutPrefix(k, prefix)
		if !ok {
			break
		}
		if dir, _, nested := strings.Cut(rest, "/"); nested {
			if p := prefix + dir + "/"; !slices.Contains(d.Prefixes, p) {
				d.Prefixes = append(d.Prefixes, p)
			}
		} else {
			d.Keys = append(d.Keys, k)
		}
	}
	return d, nil
}

// from is the index of the first key not before prefix.
func (s *Store) from(prefix string) int {
	return sort.SearchStrings(s.keys, prefix)
}

func (s *Store) Close() error { return s.zr.Close() }
