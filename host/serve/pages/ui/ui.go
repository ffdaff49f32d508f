// Package ui is the gateway's face for people: server-rendered HTML pages
// (html/template) and their static files, embedded in the binary. It
// renders what the gateway gives it and fetches nothing itself; pages ask
// for nothing from other hosts. Without JavaScript they work (the picture
// controls submit the page again); the script draws pictures in place,
// labels their colorbar with the range the picture used when none was
// given, and fills a 1-D array's table of values from the array API.
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
	// TokenBox offers the token form: some dataset needs a token to be
	// read, or the caller gave one (and may forget it).
	TokenBox bool
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
	// Empty, when nothing is stored in the dataset, says how to write
	// into it.
	Empty *Empty
}

// Empty is how to write into an empty dataset.
type Empty struct {
	Name string
	// URL is the dataset's URL in the key API (…/d/NAME/).
	URL string
	// Config names the configuration file that declares the dataset
	// (its base name).
	Config string
	// ReadOnly: the gateway takes no writes into it; Writable: the
	// gateway takes writes from someone (Token: only with a token).
	ReadOnly, Writable, Token bool
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
	Values     *Values
}

// Field is one labelled value of a node's metadata.
type Field struct{ Label, Value string }

// Picture is an array's picture (a 1-D array's line plot), its colorbar
// and the controls to move through it.
type Picture struct {
	// URL draws the slice, colormap and range the page was asked for
	// (by default the middle of every axis but the image's); Base is it
	// without slice, colormap and range, for the controls to build
	// others.
	URL, Base string
	Slice     string
	Axes      []Axis
	// Plot: a line plot of a 1-D array, its values from bottom to top.
	Plot bool
	// Booleans are drawn black (false) and white (true): no colormap,
	// no range.
	Booleans bool
	// Colormap is the colormap drawn; Colormaps all there are.
	Colormap  string
	Colormaps []string
	// Vmin and Vmax are the range asked for, "" when the picture takes
	// it from the data (and says which in its headers).
	Vmin, Vmax string
	// SampleAbove is the number of values above which a plot samples one
	// value per pixel column instead of reading every value (0: never).
	SampleAbove int
	// Error says why the page's query was not used.
	Error string
}

// Axis is one dimension of an array in the picture controls.
type Axis struct {
	Index, Size int
	// Start is a fixed axis's index; From and To an image axis's window
	// (To excluded; Until = To - 1, the window's last index).
	Start, From, To, Until int
	Last                   int // Size - 1
	Name                   string
	Image                  bool // one of the picture's axes
}

// Values is the table of a 1-D array's values, filled page by page from
// the array API.
type Values struct {
	// URL is the array's URL in the array API; First is its first page
	// of values as JSON.
	URL, First string
	Size, Page int
}

// ErrorPage explains a failure.
type ErrorPage struct {
	Common
	Status  int
	Message string
	// AskToken says a token is needed (401).
	AskToken bool
}
