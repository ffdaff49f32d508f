package gateway

import (
	"encoding/base64"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/zarrgw/zarrgw/core/store"
)

const (
	defaultMaxKeys = 1000
	maxMaxKeys     = 10000
)

// listing is the JSON of a listing page.
type listing struct {
	Keys          []string `json:"keys"`
	Prefixes      []string `json:"prefixes"`
	NextPageToken *string  `json:"next_page_token"`
}

// list answers GET /d/NAME/?list&prefix=P&delimiter=/&page_token=T&max_keys=N
// (plain GET /d/NAME/ lists the top level). Keys and prefixes come in
// byte order; each page starts where the last one ended, without listing
// what came before when the store lists in order.
func (g *Gateway) list(w http.ResponseWriter, r *http.Request, ds *dataset, key string) error {
	q := r.URL.Query()
	prefix := q.Get("prefix")
	if key != "" {
		prefix = key + "/" + prefix
	}
	delim := q.Get("delimiter")
	if !q.Has("list") {
		delim = "/"
	}
	if delim != "" && delim != "/" {
		return badRequest(`delimiter must be "/" or absent`)
	}
	limit, err := maxKeys(q.Get("max_keys"))
	if err != nil {
		return err
	}
	after, err := decodeToken(q.Get("page_token"))
	if err != nil {
		return err
	}
	dir := prefix[:strings.LastIndex(prefix, "/")+1]
	if err := store.ValidatePrefix(dir); err != nil {
		return badRequest("invalid prefix " + strconv.Quote(prefix))
	}
	var page listing
	if delim == "/" {
		page, err = listDir(r, ds, dir, prefix, after, limit)
	} else {
		page, err = listFlat(r, ds, dir, prefix, after, limit)
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}

// listDir pages through the keys and child prefixes directly below dir
// that start with prefix.
func listDir(r *http.Request, ds *dataset, dir, prefix, after string, limit int) (listing, error) {
	d, err := ds.store.ListDir(r.Context(), dir)
	if err != nil {
		return listing{}, err
	}
	type entry struct {
		name  string
		isDir bool
	}
	var all []entry
	for _, k := range d.Keys {
		if !reserved(k) {
			all = append(all, entry{k, false})
		}
	}
	for _, p := range d.Prefixes {
		if !reserved(p) {
			all = append(all, entry{p, true})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].name < all[j].name })
	page := listing{Keys: []string{}, Prefixes: []string{}}
	for _, e := range all {
		if e.name <= after || !strings.HasPrefix(e.name, prefix) {
			continue
		}
		if len(page.Keys)+len(page.Prefixes) == limit {
			page.NextPageToken = token(after)
			break
		}
		if e.isDir {
			page.Prefixes = append(page.Prefixes, e.name)
		} else {
			page.Keys = append(page.Keys, e.name)
		}
		after = e.name
	}
	return page, nil
}

// listFlat pages through every key below dir that starts with prefix.
func listFlat(r *http.Request, ds *dataset, dir, prefix, after string, limit int) (listing, error) {
	page := listing{Keys: []string{}, Prefixes: []string{}}
	for k, err := range store.ListSorted(r.Context(), ds.store, dir, after) {
		if err != nil {
			return listing{}, err
		}
		if !strings.HasPrefix(k, prefix) {
			if k > prefix {
				break // sorted: nothing further can match
			}
			continue
		}
		if reserved(k) {
			continue
		}
		if len(page.Keys) == limit {
			page.NextPageToken = token(page.Keys[len(page.Keys)-1])
			break
		}
		page.Keys = append(page.Keys, k)
	}
	return page, nil
}

func maxKeys(s string) (int, error) {
	if s == "" {
		return defaultMaxKeys, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > maxMaxKeys {
		return 0, badRequest("max_keys must be a whole number from 1 to " + strconv.Itoa(maxMaxKeys))
	}
	return n, nil
}

// A page token is the last name of the page before, encoded so that it
// travels in a URL as one opaque word.
func token(last string) *string {
	t := base64.RawURLEncoding.EncodeToString([]byte(last))
	return &t
}

func decodeToken(t string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(t)
	if err != nil {
		return "", badRequest("invalid page_token")
	}
	return string(b), nil
}
