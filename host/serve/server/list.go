package server

import (
	"context"
	"iter"
	"strings"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/serve/server/keypath"
)

// ListQuery is what a listing asks for, through either API.
type ListQuery struct {
	Prefix, Delimiter string
	After             string // keys and common prefixes up to it were listed before
	Max               int
	// Sizes asks for each key's size, time and version (S3 lists them;
	// the key API does not, and a store without them in its listing would
	// Stat each key)
	Sizes bool
}

// ListResult is one page of a listing.
type ListResult struct {
	Objects   []store.Entry
	Prefixes  []string
	Truncated bool
	Last      string // the last key or common prefix of the page
}

// Count is how many entries the page holds (objects and prefixes).
func (p *ListResult) Count() int { return len(p.Objects) + len(p.Prefixes) }

// ListBucket lists one page, for both APIs. It reads the store in key
// order from where the page starts (never the keys before it), and skips
// past the keys of each common prefix with a new listing instead of
// reading them all.
func ListBucket(ctx context.Context, ds *Dataset, q ListQuery) (ListResult, error) {
	var out ListResult
	if q.Max == 0 {
		return out, nil
	}
	dir := q.Prefix[:strings.LastIndex(q.Prefix, "/")+1]
	if store.ValidatePrefix(dir) != nil {
		return out, nil // no key is below it ("a//", "../")
	}
	built, err := ds.BuiltEntry(ctx, dir)
	if err != nil {
		return out, err
	}
	from := max(q.After, justBefore(q.Prefix))
	for {
		next, done, err := listRun(ctx, ds, q, dir, from, built, &out)
		if err != nil || done {
			return out, err
		}
		from = next
	}
}

// listRun adds to the page from the keys after from, until the page is
// full or the keys run out (done), or it meets a common prefix or the
// gateway's own keys: then it reports the key to list on from.
func listRun(ctx context.Context, ds *Dataset, q ListQuery, dir, from string, built *store.Entry, out *ListResult) (string, bool, error) {
	for e, err := range ds.entries(ctx, dir, from, q.Sizes, built) {
		if err != nil {
			return "", true, err
		}
		k := e.Key
		if !strings.HasPrefix(k, q.Prefix) {
			if k > q.Prefix {
				return "", true, nil // sorted: nothing further can match
			}
			continue
		}
		if at := keypath.ReservedAt(k); at >= 0 {
			// jump past the reserved directory; a reserved value is passed over
			end := strings.IndexByte(k[at:], '/')
			if end < 0 {
				continue
			}
			return k[:at+end+1] + store.SkipPast, false, nil
		}
		common, isPrefix := commonPrefix(k, q.Prefix, q.Delimiter)
		if isPrefix && (common <= q.After || common == out.Last) {
			return common + store.SkipPast, false, nil // listed on the page before, or just now
		}
		if out.Count() == q.Max {
			out.Truncated = true
			return "", true, nil
		}
		if isPrefix {
			out.Prefixes = append(out.Prefixes, common)
			out.Last = common
			return common + store.SkipPast, false, nil
		}
		out.Objects = append(out.Objects, e)
		out.Last = k
	}
	return "", true, nil
}

// BuiltEntry is the root document the gateway builds and serves in place
// of the stored one (consolidated metadata), as a listing of dir reports
// it, if dir is the root and there is one: listings say that document's
// size, version and time, and list it even where the store holds none (a
// v2 .zmetadata), so that what a listing says is what a read returns.
func (ds *Dataset) BuiltEntry(ctx context.Context, dir string) (*store.Entry, error) {
	if ds.consolidated == nil || dir != "" {
		return nil, nil
	}
	doc, ok, err := ds.servedRoot(ctx)
	if err != nil || !ok {
		return nil, err
	}
	return &store.Entry{Key: doc.key, Info: doc.info()}, nil
}

// entries lists the keys below dir after from, in order, with their
// information when sizes is set, and built (if any) in its place.
func (ds *Dataset) entries(ctx context.Context, dir, from string, sizes bool, built *store.Entry) iter.Seq2[store.Entry, error] {
	stored := storedEntries(ctx, ds.Store, dir, from, sizes)
	if built == nil {
		return stored
	}
	return func(yield func(store.Entry, error) bool) {
		withBuilt(stored, *built, from, yield)
	}
}

// withBuilt yields the stored entries with built merged in at its place in
// key order, in place of a stored entry of the same key.
func withBuilt(stored iter.Seq2[store.Entry, error], built store.Entry, from string, yield func(store.Entry, error) bool) {
	pending := built.Key > from
	for e, err := range stored {
		if err != nil {
			yield(e, err)
			return
		}
		if pending && built.Key <= e.Key {
			pending = false
			if !yield(built, nil) {
				return
			}
			if built.Key == e.Key {
				continue
			}
		}
		if !yield(e, nil) {
			return
		}
	}
	if pending {
		yield(built, nil)
	}
}

// storedEntries lists the stored keys below dir after from, in order,
// with their information when sizes is set.
func storedEntries(ctx context.Context, s store.Store, dir, from string, sizes bool) iter.Seq2[store.Entry, error] {
	if sizes {
		return store.ListInfo(ctx, s, dir, from)
	}
	return func(yield func(store.Entry, error) bool) {
		for k, err := range store.ListSorted(ctx, s, dir, from) {
			if !yield(store.Entry{Key: k}, err) || err != nil {
				return
			}
		}
	}
}

// commonPrefix returns the common prefix a key rolls up into: the key up
// to the first delimiter after the prefix, delimiter included.
func commonPrefix(key, prefix, delimiter string) (string, bool) {
	if delimiter == "" {
		return "", false
	}
	i := strings.Index(key[len(prefix):], delimiter)
	if i < 0 {
		return "", false
	}
	return key[:len(prefix)+i+len(delimiter)], true
}

// justBefore returns a string that sorts before p but after as few keys
// as it can that do not start with p, so a listing of p's keys starts
// close to them.
func justBefore(p string) string {
	if p == "" {
		return ""
	}
	last := p[len(p)-1]
	if last > ' ' && last < 0x80 {
		return p[:len(p)-1] + string(rune(last-1)) + store.SkipPast
	}
	return p[:len(p)-1]
}
