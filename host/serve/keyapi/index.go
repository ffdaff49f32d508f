package keyapi

import (
	"context"
	"encoding/hex"
	"html"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/serve/server"
	"github.com/zarrgw/zarrgw/host/serve/server/keypath"
	"github.com/zarrgw/zarrgw/host/serve/server/storecache"
)

// The key API answers directories as a static web server does, because
// the web's own listing protocol is the index page: GDAL's /vsicurl/,
// fsspec's HTTPFileSystem, rclone's http backend and wget -r find keys by
// following its links. A directory is any prefix of stored keys (a group,
// an array, a chunk row): "/d/NAME/P" redirects to "/d/NAME/P/" when no
// value is named P, and "/d/NAME/P/" is P's index page.

// serveKey answers GET and HEAD of a key: its value, or, when no value
// has that name but keys lie below it, a 301 to the directory's slash
// form, as nginx and Go's FileServer answer "/dir". Only a name with
// neither is 404.
func (g *API) serveKey(w http.ResponseWriter, r *http.Request, ds *server.Dataset, key string) error {
	err := g.ServeValue(w, r, ds, key)
	if !server.IsNotFound(err) || r.URL.RawQuery != "" || storecache.IsMetaKey(key) {
		// a metadata document's name is never a directory: Zarr clients
		// probing for one (zarr.json, .zarray, .zgroup) pay no listing
		return err
	}
	dir, lerr := hasKeysBelow(r.Context(), ds, key+"/")
	if lerr != nil {
		// the value is absent all the same: its 404 stands
		g.Log.Warn("listing a missing key's directory failed", "dataset", ds.Name, "key", key, "error", lerr.Error())
	}
	if !dir {
		return err
	}
	redirectToDir(w, ds.Name, key)
	return nil
}

// hasKeysBelow reports whether any key a client may read starts with dir.
func hasKeysBelow(ctx context.Context, ds *server.Dataset, dir string) (bool, error) {
	page, err := server.ListBucket(ctx, ds, server.ListQuery{Prefix: dir, Max: 1})
	return page.Count() > 0, err
}

// redirectToDir answers 301 with the slash form of the directory key of
// dataset (key "" is its top level). The location is an absolute path, as
// Go's http.Redirect and python's http.server write it: aiohttp (under
// fsspec) joins a relative one only after decoding it, so "co%3Alon/"
// would turn into the scheme "co:". Behind a proxy that adds a path
// prefix, the proxy rewrites it (nginx: proxy_redirect).
func redirectToDir(w http.ResponseWriter, dataset, key string) {
	loc := "/d/" + relativeRef(dataset) + "/"
	if key != "" {
		for _, seg := range strings.Split(key, "/") {
			loc += relativeRef(seg) + "/"
		}
	}
	w.Header().Set("Location", loc)
	w.Header().Set("Cache-Control", "no-cache") // a prefix may become a key
	w.WriteHeader(http.StatusMovedPermanently)
}

// relativeRef is name as a relative URL reference (or a path segment):
// every byte but RFC 3986's unreserved characters (and the "/" that ends a
// directory) percent-encoded. A colon left as it is would read as a scheme, and an
// "&" would need an HTML entity that regex-based link finders (fsspec's)
// do not decode.
func relativeRef(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		if isUnreserved(c) || c == '/' && i == len(name)-1 {
			b.WriteByte(c)
			continue
		}
		b.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{c})))
	}
	return b.String()
}

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

// index answers a directory: its index page, one link per key and child
// prefix below it. A request with a query, or that asks for JSON, gets the
// key API's JSON listing of the same (paged by page_token).
func (g *API) index(w http.ResponseWriter, r *http.Request, ds *server.Dataset, key string) error {
	if r.URL.RawQuery != "" || acceptsJSON(r) {
		return g.list(w, r, ds, key)
	}
	if !strings.HasSuffix(r.URL.EscapedPath(), "/") { // "/d/NAME"
		redirectToDir(w, ds.Name, "")
		return nil
	}
	dir := ""
	if key != "" {
		dir = key + "/"
	}
	d, err := listDir(r.Context(), ds, dir)
	if err != nil {
		return err
	}
	if dir != "" && len(d.Keys)+len(d.Prefixes) == 0 {
		return store.ErrNotFound
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'") // names are data, never markup
	h.Set("Cache-Control", "no-cache")
	if r.Method == http.MethodHead {
		// the length a GET would send: clients (GDAL) that find none in a
		// HEAD ask again with a GET
		var n byteCounter
		writeIndex(&n, r.URL.Path, dir, d)
		h.Set("Content-Length", strconv.FormatInt(int64(n), 10))
		w.WriteHeader(http.StatusOK)
		return nil
	}
	w.WriteHeader(http.StatusOK)
	writeIndex(w, r.URL.Path, dir, d)
	return nil
}

// byteCounter counts what is written to it.
type byteCounter int64

func (c *byteCounter) Write(p []byte) (int, error) {
	*c += byteCounter(len(p))
	return len(p), nil
}

// acceptsJSON reports a client that asks for JSON rather than a page.
func acceptsJSON(r *http.Request) bool {
	a := r.Header.Get("Accept")
	return strings.Contains(a, "application/json") && !strings.Contains(a, "text/html")
}

// writeIndex writes the page in the form of nginx's autoindex (title and
// heading "Index of PATH", one link per line in a <pre>), which GDAL,
// rclone, fsspec and wget all parse: child prefixes first, each ending in
// "/", then keys, links relative to the directory.
func writeIndex(w io.Writer, path, dir string, d store.Dir) {
	title := html.EscapeString(path)
	io.WriteString(w, "<!DOCTYPE html>\n<html>\n<head><meta charset=\"utf-8\"><title>Index of "+title+"</title></head>\n<body>\n<h1>Index of "+title+"</h1><hr><pre>\n")
	for _, names := range [][]string{d.Prefixes, d.Keys} {
		for _, full := range names {
			name := strings.TrimPrefix(full, dir)
			io.WriteString(w, `<a href="`+html.EscapeString(relativeRef(name))+`">`+html.EscapeString(name)+"</a>\n")
		}
	}
	io.WriteString(w, "</pre><hr></body>\n</html>\n")
}

// listDir lists one directory as clients see it: without the gateway's
// reserved names, and with the root document the gateway consolidates
// on the fly where it serves one the store lacks (a v2 .zmetadata).
func listDir(ctx context.Context, ds *server.Dataset, dir string) (store.Dir, error) {
	d, err := ds.Store.ListDir(ctx, dir)
	if err != nil {
		return store.Dir{}, err
	}
	d.Keys = slices.DeleteFunc(d.Keys, keypath.Reserved)
	d.Prefixes = slices.DeleteFunc(d.Prefixes, keypath.Reserved)
	if len(d.Keys)+len(d.Prefixes) == 0 {
		return d, nil
	}
	built, err := ds.BuiltEntry(ctx, dir)
	if err != nil || built == nil {
		return d, err
	}
	if i, found := slices.BinarySearch(d.Keys, built.Key); !found {
		d.Keys = slices.Insert(d.Keys, i, built.Key)
	}
	return d, nil
}
