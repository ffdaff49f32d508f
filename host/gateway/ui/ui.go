// Package ui is the gateway's face for people: server-rendered HTML pages
// (html/template) and their static files, embedded in the binary. It
// renders what the gateway gives it and fetches nothing itself; pages work
// without JavaScript except for the picture controls, and ask for nothing
// from other hosts.
package ui

import (
	"bytes"
	"embed"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"strings"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

var pages = template.Must(template.New("").Funcs(template.FuncMap{
	"pathescape": escapePath,
	"query":      url.QueryEscape,
}).ParseFS(templateFiles, "templates/*.html"))

// Render writes page (a template name: "datasets", "dataset", "node",
// "error") with data, or an error page when it cannot.
func Render(w http.ResponseWriter, status int, page string, data any) error {
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, page, data); err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	// Nothing from other hosts, no inline scripts.
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, err := w.Write(buf.Bytes())
	return err
}

// Static serves the pages' style sheet and script, under prefix.
func Static(prefix string) http.Handler {
	sub, _ := fs.Sub(staticFiles, "static")
	fileServer := http.StripPrefix(prefix, http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		fileServer.ServeHTTP(w, r)
	})
}

// escapePath escapes each segment of a slash-separated path.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// Common is what every page shows in its frame.
type Common struct {
	Title     string
	Principal string // "" for anonymous
	// Crumbs lead from the dataset list to the page.
	Crumbs []Link
}

// Link is a named URL.
type Link struct{ Name, URL string }

// DatasetsPage lists the datasets the caller may read.
type DatasetsPage struct {
	Common
	Datasets []Dataset
}

// Dataset is one dataset and its stack, as far as it is not secret.
type Dataset struct {
	Name         string
	Store        string   // store type and name, e.g. `s3 "raw"`
	Prefix       string   // key prefix inside the store
	Transformers []string // outermost first
	Plugins      []string // the plugins its stack and codecs come from
	ReadOnly     bool
	Writable     bool // the caller may write
	Consolidated bool
}

// DatasetPage is a dataset's hierarchy.
type DatasetPage struct {
	Common
	Dataset   Dataset
	Nodes     []TreeNode
	Truncated bool // more nodes than shown
	Error     string
}

// TreeNode is one node of a hierarchy listing.
type TreeNode struct {
	Name, Path, Kind, Summary string
	Depth                     int
	URL                       string
}

// NodePage is one array or group.
type NodePage struct {
	Common
	Dataset    string
	Path       string
	Kind       string // "array" or "group"
	Fields     []Field
	Attributes string // indented JSON
	Stored     string // how much of an array is stored
	Links      []Link
	Children   []TreeNode
	Picture    *Picture
}

// Field is one labelled value of a node's metadata.
type Field struct{ Label, Value string }

// Picture is an array's picture and the controls to move through it.
type Picture struct {
	// URL draws the default slice; Base is it without the slice, for the
	// controls to build others.
	URL, Base string
	Slice     string
	Axes      []Axis
}

// Axis is one dimension of an array in the picture controls.
type Axis struct {
	Index, Size, Start int
	Last               int // Size - 1
	Name               string
	Image              bool // one of the two image axes
}

// ErrorPage explains a failure.
type ErrorPage struct {
	Common
	Status  int
	Message string
	// AskToken offers the token form (401).
	AskToken bool
}
