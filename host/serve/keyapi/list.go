package keyapi

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/serve/server"
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
func (g *API) list(w http.ResponseWriter, r *http.Request, ds *server.Dataset, key string) error {
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
		return server.BadRequest(`delimiter must be "/" or absent`)
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
		return server.BadRequest("invalid prefix " + strconv.Quote(prefix))
	}
	res, err := server.ListBucket(r.Context(), ds, server.ListQuery{Prefix: prefix, Delimiter: delim, After: after, Max: limit})
	if err != nil {
		return err
	}
	page := listing{Keys: make([]string, 0, len(res.Objects)), Prefixes: append([]string{}, res.Prefixes...)}
	for _, e := range res.Objects {
		page.Keys = append(page.Keys, e.Key)
	}
	if res.Truncated {
		page.NextPageToken = token(res.Last)
	}
	server.WriteJSON(w, http.StatusOK, page)
	return nil
}

func maxKeys(s string) (int, error) {
	if s == "" {
		return defaultMaxKeys, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > maxMaxKeys {
		return 0, server.BadRequest("max_keys must be a whole number from 1 to " + strconv.Itoa(maxMaxKeys))
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
		return "", server.BadRequest("invalid page_token")
	}
	return string(b), nil
}
