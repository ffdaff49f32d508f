package references

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

// memTargets serves directory URLs "mem://NAME/" from memory stores by
// NAME, counting the opens.
type memTargets struct {
	stores map[string]store.Store
	opened int
}

func (m *memTargets) OpenURL(_ context.Context, url string) (store.Store, error) {
	m.opened++
	name, ok := strings.CutPrefix(url, "mem://")
	if s, found := m.stores[strings.TrimSuffix(name, "/")]; ok && found {
		return s, nil
	}
	return nil, fmt.Errorf("no store for %s", url)
}

func newTestStore(t *testing.T) (*Store, *store.Memory) {
	t.Helper()
	files := store.NewMemory()
	ctx := context.Background()
	if _, err := files.Set(ctx, "a.nc", []byte("0123456789abcdefghij"), store.Condition{}); err != nil {
		t.Fatal(err)
	}
	set, err := ParseJSON([]byte(`{
		".zgroup": "{\"zarr_format\":2}",
		"v/.zarray": "{}",
		"v/0": ["mem://files/a.nc", 10, 6],
		"v/1": ["mem://files/a.nc"],
		"v/2": "base64:AAECAw==",
		"v/3": ["mem://files/gone.nc", 0, 4],
		"v/4": ["mem://files/a.nc", 16, 10],
		"v/5": ["mem://elsewhere/a.nc", 0, 4],
		"w/x/0": "x"
	}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(set, &memTargets{stores: map[string]store.Store{"files": nopClose{files}}}, "").
		Allow([]string{"mem://files/", "mem://elsewhere/"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s, files
}

func TestGetReadsInlineAndTargets(t *testing.T) {
	s, _ := newTestStore(t)
	ctx := context.Background()
	for _, tc := range []struct {
		key  string
		r    store.ByteRange
		want string
	}{
		{".zgroup", store.ByteRange{}, `{"zarr_format":2}`},
		{"v/0", store.ByteRange{}, "abcdef"},
		{"v/0", store.Range(1, 2), "bc"},
		{"v/0", store.From(4), "ef"},
		{"v/0", store.Last(3), "def"},
		{"v/1", store.ByteRange{}, "0123456789abcdefghij"},
		{"v/1", store.Last(2), "ij"},
		{"v/2", store.ByteRange{}, "\x00\x01\x02\x03"},
		{"v/2", store.Range(1, 2), "\x01\x02"},
	} {
		v, err := s.Get(ctx, tc.key, tc.r)
		if err != nil || string(v.Data) != tc.want {
			t.Errorf("get %s %s: %q (%v), want %q", tc.key, tc.r, v.Data, err, tc.want)
		}
	}
	for key, size := range map[string]int64{".zgroup": 17, "v/0": 6, "v/1": 20, "v/2": 4} {
		if info, err := s.Stat(ctx, key); err != nil || info.Size != size {
			t.Errorf("stat %s: %+v (%v), want size %d", key, info, err, size)
		}
	}
}

// A key the set lacks is not found (a fill value to readers); a key whose
// target is missing, short or unreachable is an error naming the key and
// the target, never "not found".
func TestGetFailuresNameKeyAndTarget(t *testing.T) {
	s, _ := newTestStore(t)
	ctx := context.Background()
	if _, err := s.Get(ctx, "v/9", store.ByteRange{}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("absent key: %v, want ErrNotFound", err)
	}
	for key, want := range map[string]string{
		"v/3": `key "v/3": target mem://files/gone.nc is missing`,
		"v/4": `key "v/4": target mem://files/a.nc: bytes 16-25 are past its end (4 of 10 bytes read)`,
		"v/5": `key "v/5": target mem://elsewhere/a.nc: no store for mem://elsewhere/`,
	} {
		_, err := s.Get(ctx, key, store.ByteRange{})
		if err == nil || errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), want) {
			t.Errorf("get %s: %v, want an error containing %q and not ErrNotFound", key, err, want)
		}
	}
	if _, err := s.Stat(ctx, "v/9"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("stat of an absent key: %v", err)
	}
}

func TestListingsAndReadOnly(t *testing.T) {
	s, _ := newTestStore(t)
	ctx := context.Background()
	var keys []string
	for k, err := range s.List(ctx, "v/") {
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	if want := []string{"v/.zarray", "v/0", "v/1", "v/2", "v/3", "v/4", "v/5"}; !slices.Equal(keys, want) {
		t.Errorf("list v/: %v, want %v", keys, want)
	}
	dir, err := s.ListDir(ctx, "")
	if err != nil || !slices.Equal(dir.Keys, []string{".zgroup"}) || !slices.Equal(dir.Prefixes, []string{"v/", "w/"}) {
		t.Errorf("list dir: %+v (%v)", dir, err)
	}
	if _, err := s.Set(ctx, "v/0", []byte("x"), store.Condition{}); !errors.Is(err, store.ErrUnsupported) {
		t.Errorf("set: %v, want ErrUnsupported", err)
	}
	for name, err := range map[string]error{
		"erase":        s.Erase(ctx, "v/0"),
		"erase many":   s.EraseMany(ctx, []string{"v/0"}),
		"erase prefix": s.ErasePrefix(ctx, "v/"),
	} {
		if !errors.Is(err, store.ErrUnsupported) {
			t.Errorf("%s: %v, want ErrUnsupported", name, err)
		}
	}
	if c := s.Capabilities(); c.Write || c.Erase || !c.Read || !c.List || !c.Ranges {
		t.Errorf("capabilities %+v", c)
	}
}

// nopClose keeps a shared memory store open when a references store closes
// the directories it opened.
type nopClose struct{ store.Store }

func (nopClose) Close() error { return nil }

// Each target directory is opened once, however many keys read from it;
// relative targets are found beside the reference set.
func TestTargetsOpenedOnceAndRelative(t *testing.T) {
	files := store.NewMemory()
	ctx := context.Background()
	if _, err := files.Set(ctx, "a.nc", []byte("0123456789"), store.Condition{}); err != nil {
		t.Fatal(err)
	}
	set, err := ParseJSON([]byte(`{"v/0": ["a.nc", 0, 2], "v/1": ["./a.nc", 2, 2], "v/2": ["mem://files/a.nc", 4, 2]}`))
	if err != nil {
		t.Fatal(err)
	}
	opener := &memTargets{stores: map[string]store.Store{"files": nopClose{files}}}
	s := New(set, opener, "mem://files/")
	for i, want := range []string{"01", "23", "45"} {
		for range 3 {
			v, err := s.Get(ctx, fmt.Sprintf("v/%d", i), store.ByteRange{})
			if err != nil || string(v.Data) != want {
				t.Fatalf("v/%d: %q (%v), want %q", i, v.Data, err, want)
			}
		}
	}
	if opener.opened != 1 {
		t.Errorf("the directory was opened %d times for 9 reads, want once", opener.opened)
	}
	if _, err := New(set, opener, "").Get(ctx, "v/0", store.ByteRange{}); err == nil || !strings.Contains(err.Error(), "relative target") {
		t.Errorf("a relative target without a base: %v", err)
	}
}
