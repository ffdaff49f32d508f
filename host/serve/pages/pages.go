// Package pages is the gateway's pages face: the datasets, their
// hierarchies and their nodes as HTML pages below /ui, with pictures of
// arrays (PNG, drawn by host/serve/pages/picture), over the serving core
// (host/serve/server).
package pages

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/zarrgw/zarrgw/host/serve/identity"
	"github.com/zarrgw/zarrgw/host/serve/server"
	"github.com/zarrgw/zarrgw/host/serve/server/keypath"
	"github.com/zarrgw/zarrgw/host/serve/server/storecache"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/commands/render"
	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/serve/pages/picture"
	"github.com/zarrgw/zarrgw/host/serve/pages/ui"
)

// maxTreeNodes bounds a dataset page's hierarchy listing.
const maxTreeNodes = 500

// Pages is the pages face of one server.
type Pages struct {
	*server.Server
	rows []server.Route
}

// New is the pages face of s.
func New(s *server.Server) *Pages {
	p := &Pages{Server: s}
	p.rows = pageRoutes(p)
	return p
}

// pageRoutes are the pages' rows below /ui: the static files and the
// colormaps' bars, which need no caller, and the pages, which show what
// the caller may read.
func pageRoutes(g *Pages) []server.Route {
	var rows []server.Route
	for _, m := range []string{http.MethodGet, http.MethodHead} {
		rows = append(rows,
			server.Route{Op: "ui:Page", Method: m, Match: server.Match{Path: server.Below("/ui/static/")}, Handle: server.Bind(g, serveStatic)},
			server.Route{Op: "ui:Page", Method: m, Match: server.Match{Path: server.Below("/ui/colorbar/")}, Handle: server.Bind(g, (*Pages).serveColorbar)},
			server.Route{Op: "ui:Page", Method: m, Access: server.AccessAny, Handle: server.Bind(g, (*Pages).servePage)})
	}
	return rows
}

// servePages answers /ui/...: the dataset list, a dataset's hierarchy, a
// node's page, and the pages' static files, through pageRoutes: the
// handler of the pages' mount.
func (g *Pages) Serve(c *server.Call) error {
	rt, allowed := server.Lookup(g.rows, c)
	if rt == nil {
		return server.NotAllowed(c.R, allowed)
	}
	if err := g.Pass(c, server.Bearer, rt); err != nil {
		g.failPage(c, err)
	}
	return nil
}

func serveStatic(_ *Pages, c *server.Call) error {
	ui.Static("/ui/static/").ServeHTTP(c.W, c.R)
	return nil
}

// failPage answers a token not accepted with a page that asks for
// another; other failures as the key API answers them.
func (g *Pages) failPage(c *server.Call, err error) {
	var ae *server.AuthError
	if !errors.As(err, &ae) {
		g.FailBearer(c, err)
		return
	}
	common := ui.Common{Principal: displayName(c.Info.Caller), TokenBox: true}
	c.W.Header().Set("WWW-Authenticate", `Bearer realm="zarrgw", error="invalid_token"`)
	status := http.StatusUnauthorized
	if f := (*identity.Failure)(nil); errors.As(ae.Err, &f) && f.Status == http.StatusServiceUnavailable {
		status = f.Status
	}
	c.Info.Err = identity.Detailed(ae.Err)
	g.page(c.W, c.R, c.Info, status, "error", ui.ErrorPage{Common: titled(common, "Unknown token"), Status: status,
		Message: "The token given is not accepted: " + ae.Error() + ".", AskToken: true})
}

// servePage answers a page for the caller the middleware identified.
func (g *Pages) servePage(c *server.Call) error {
	w, r, info, caller := c.W, c.R, c.Info, c.Info.Caller
	common := ui.Common{Principal: displayName(caller), TokenBox: !caller.Anonymous() || g.someNeedToken()}
	rest, _ := strings.CutPrefix(r.URL.Path, "/ui")
	if rest == "" || rest == "/" {
		g.page(w, r, info, http.StatusOK, "datasets", ui.DatasetsPage{Common: titled(common, "Datasets"), Datasets: g.datasetViews(caller)})
		return nil
	}
	name, path, err := keypath.SplitDatasetPath(r.URL.EscapedPath()[len("/ui"):])
	if err != nil {
		return server.BadRequest("invalid path")
	}
	info.Dataset, info.Key = name, path
	ds, ok := g.Dataset(name)
	if !ok || g.Authorize(ds, caller, false) != nil {
		status, msg := http.StatusNotFound, "No dataset "+name+" that you may read."
		if ok && caller.Anonymous() {
			status, msg = http.StatusUnauthorized, "Dataset "+name+" needs a token."
			w.Header().Set("WWW-Authenticate", `Bearer realm="zarrgw"`)
			common.TokenBox = true
		}
		g.page(w, r, info, status, "error", ui.ErrorPage{Common: titled(common, "Not found"), Status: status, Message: msg, AskToken: status == 401})
		return nil
	}
	common.Crumbs = []ui.Link{{Name: name, URL: "/ui/d/" + url.PathEscape(name) + "/"}}
	if path == "" {
		g.page(w, r, info, http.StatusOK, "dataset", g.datasetPage(r.Context(), ds, caller, titled(common, name), baseURL(r)))
		return nil
	}
	p, err := g.nodePage(r.Context(), ds, path, common, r.URL.Query())
	if err != nil {
		status := server.StatusOf(err)
		info.Err = err
		g.page(w, r, info, status, "error", ui.ErrorPage{Common: titled(common, "Error"), Status: status, Message: store.PublicText(err)})
		return nil
	}
	g.page(w, r, info, http.StatusOK, "node", p)
	return nil
}

// someNeedToken reports whether some dataset needs a token to be read:
// otherwise the pages, which only read, offer no token form to anonymous
// callers.
func (g *Pages) someNeedToken() bool {
	for _, ds := range g.All() {
		if g.Authorize(ds, identity.Caller{Method: identity.Anonymous}, false) != nil {
			return true
		}
	}
	return false
}

// serveColorbar answers /ui/colorbar/NAME.png: the colormap NAME as the
// pictures use it, one row from low to high, for the pages to stretch
// under a picture.
func (g *Pages) serveColorbar(c *server.Call) error {
	w, r := c.W, c.R
	file := strings.TrimPrefix(r.URL.Path, "/ui/colorbar/")
	name, ok := strings.CutSuffix(file, ".png")
	img, err := picture.Colorbar(name)
	if !ok || err != nil {
		return &server.RequestError{Status: http.StatusNotFound, Msg: "no colormap " + file + "; there are " + strings.Join(picture.Colormaps(), ", ")}
	}
	var buf bytes.Buffer
	if err := picture.EncodePNG(&buf, img); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(buf.Bytes())
	}
	return nil
}

// baseURL is the gateway's URL as the request reached it.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

func titled(c ui.Common, title string) ui.Common {
	c.Title = title
	return c
}

// page renders a page with an ETag of its content (a revalidation costs
// the rendering, not the transfer).
func (g *Pages) page(w http.ResponseWriter, r *http.Request, info *server.RequestInfo, status int, name string, data any) {
	var buf pageBuffer
	if err := ui.Render(&buf, status, name, data); err != nil {
		g.Fail(w, info, err)
		return
	}
	sum := sha256.Sum256(buf.body.Bytes())
	tag := `"page-` + hex.EncodeToString(sum[:12]) + `"`
	for k, v := range buf.header {
		w.Header()[k] = v
	}
	w.Header().Set("ETag", tag)
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Vary", "Cookie, Authorization")
	if status == http.StatusOK && server.MatchWeak(r.Header.Get("If-None-Match"), tag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.WriteHeader(buf.status)
	if r.Method != http.MethodHead {
		w.Write(buf.body.Bytes())
	}
}

// pageBuffer collects a rendered page before it is sent.
type pageBuffer struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *pageBuffer) Header() http.Header {
	if b.header == nil {
		b.header = http.Header{}
	}
	return b.header
}
func (b *pageBuffer) Write(p []byte) (int, error) { return b.body.Write(p) }
func (b *pageBuffer) WriteHeader(status int)      { b.status = status }

// datasetViews describes the datasets principal may read: store type and
// name, prefix, transformers, plugins; never store settings or secrets.
func (g *Pages) datasetViews(caller identity.Caller) []ui.Dataset {
	var out []ui.Dataset
	for _, ds := range g.All() {
		if g.Authorize(ds, caller, false) != nil {
			continue
		}
		out = append(out, g.datasetView(ds, caller))
	}
	return out
}

func (g *Pages) datasetView(ds *server.Dataset, caller identity.Caller) ui.Dataset {
	c := ds.Cfg
	v := ui.Dataset{Name: ds.Name, Store: fmt.Sprintf("%s %q", c.Store.Type, c.Store.Name), Prefix: g.Cfg.Redact(c.Prefix),
		ReadOnly: c.ReadOnly, Writable: g.Authorize(ds, caller, true) == nil, Consolidated: c.Consolidated}
	plugins := map[string]bool{}
	if st, ok := g.Cfg.Store(c.Store); ok && st.Extension.Plugin != "" {
		plugins[st.Extension.Plugin] = true
	}
	for _, t := range c.Transformers {
		v.Transformers = append(v.Transformers, t.Name)
		if t.Plugin != "" {
			plugins[t.Plugin] = true
		}
	}
	for _, cd := range c.Codecs {
		if cd.Plugin != "" {
			plugins[cd.Plugin] = true
		}
	}
	for p := range plugins {
		v.Plugins = append(v.Plugins, p)
	}
	slices.Sort(v.Plugins)
	return v
}

// datasetPage lists the dataset's hierarchy, depth first; of an empty
// dataset it says how to write into it (base is the gateway's URL).
func (g *Pages) datasetPage(ctx context.Context, ds *server.Dataset, caller identity.Caller, common ui.Common, base string) ui.DatasetPage {
	p := ui.DatasetPage{Common: common, Dataset: g.datasetView(ds, caller)}
	root, err := hierarchy.Open(ctx, ds.Store, "")
	if err != nil {
		if (errors.Is(err, hierarchy.ErrNoNode) || server.IsNotFound(err)) && isEmpty(ctx, ds) {
			p.Empty = g.emptyHelp(ds, base)
			return p
		}
		p.Error = "No Zarr hierarchy at the root of this dataset: " + store.PublicText(err)
		return p
	}
	errTruncated := errors.New("truncated")
	err = hierarchy.Walk(ctx, ds.Store, root, func(n hierarchy.Node) error {
		if len(p.Nodes) == maxTreeNodes {
			return errTruncated
		}
		p.Nodes = append(p.Nodes, g.treeNode(ds, n))
		return nil
	})
	p.Truncated = errors.Is(err, errTruncated)
	if err != nil && !p.Truncated {
		p.Error = "Listing stopped: " + store.PublicText(err)
	}
	return p
}

// isEmpty reports whether a dataset's store holds no key (the gateway's
// own reserved keys aside, up to a bound); false when it cannot be
// listed.
func isEmpty(ctx context.Context, ds *server.Dataset) bool {
	seen := 0
	for k, err := range ds.Store.List(ctx, "") {
		if err != nil || !keypath.Reserved(k) || seen == maxTreeNodes {
			return false
		}
		seen++
	}
	return true
}

// emptyHelp says how an empty dataset is written into: with the command
// line and the configuration, or through the gateway's key API.
func (g *Pages) emptyHelp(ds *server.Dataset, base string) *ui.Empty {
	e := &ui.Empty{Name: ds.Name, URL: base + "/d/" + url.PathEscape(ds.Name) + "/", Config: "zarrgw.hcl", ReadOnly: ds.Cfg.ReadOnly}
	if g.Cfg.Filename != "" {
		e.Config = filepath.Base(g.Cfg.Filename)
	}
	if !e.ReadOnly && len(ds.Cfg.Access.Write) > 0 {
		e.Writable = true
		e.Token = !slices.Contains(ds.Cfg.Access.Write, config.Anyone)
	}
	return e
}

func (g *Pages) treeNode(ds *server.Dataset, n hierarchy.Node) ui.TreeNode {
	name := n.Path[strings.LastIndex(n.Path, "/")+1:]
	if n.Path == "" {
		name = "/"
	}
	t := ui.TreeNode{Name: name, Path: n.Path, Kind: server.NodeType(n), Depth: strings.Count(n.Path, "/"), URL: keypath.NodeURL(ds.Name, n.Path)}
	if n.Path != "" {
		t.Depth++
	}
	if n.Array != nil {
		t.Summary = render.ArraySummary(n.Array)
	} else {
		t.Summary = render.GroupSummary(n)
	}
	return t
}

func apiURL(dataset, path string) string {
	return "/d/" + url.PathEscape(dataset) + "/" + keypath.EscapeSegments(path)
}

// nodePage describes one node; for arrays also how much is stored and a
// picture of the default slice.
func (g *Pages) nodePage(ctx context.Context, ds *server.Dataset, path string, common ui.Common, q url.Values) (ui.NodePage, error) {
	n, err := hierarchy.Open(ctx, ds.Store, path)
	if err != nil {
		return ui.NodePage{}, err
	}
	common.Crumbs = append(common.Crumbs, crumbs(ds.Name, n.Path)...)
	p := ui.NodePage{Common: titled(common, "/"+n.Path), Dataset: ds.Name, Path: n.Path, Kind: server.NodeType(n)}
	attrs := n.Attributes()
	var pretty bytes.Buffer
	if json.Indent(&pretty, attrs, "", "  ") == nil {
		p.Attributes = pretty.String()
	}
	for _, k := range server.MetaKeys(n) {
		p.Links = append(p.Links, ui.Link{Name: "key " + k, URL: apiURL(ds.Name, k)})
	}
	p.Links = append(p.Links, ui.Link{Name: "metadata and children (JSON)", URL: apiURL(ds.Name, n.Path) + "?meta"})
	if n.Group != nil {
		p.Fields = []ui.Field{{Label: "format", Value: n.Group.Format.String()}}
		kids, err := hierarchy.Children(ctx, ds.Store, n)
		if err != nil {
			return p, err
		}
		for _, k := range kids {
			p.Children = append(p.Children, g.treeNode(ds, k))
		}
		return p, nil
	}
	return g.arrayPage(ctx, ds, n, p, q)
}

// crumbs are the links to a node's ancestors and itself.
func crumbs(dataset, path string) []ui.Link {
	var out []ui.Link
	segs := strings.Split(path, "/")
	for i := range segs {
		p := strings.Join(segs[:i+1], "/")
		out = append(out, ui.Link{Name: segs[i], URL: keypath.NodeURL(dataset, p)})
	}
	return out
}

func (g *Pages) arrayPage(ctx context.Context, ds *server.Dataset, n hierarchy.Node, p ui.NodePage, q url.Values) (ui.NodePage, error) {
	m := n.Array
	d := render.Describe(m)
	p.Fields = []ui.Field{
		{Label: "format", Value: d.Format}, {Label: "shape", Value: d.Shape}, {Label: "data type", Value: d.DataType}, {Label: "chunks", Value: d.Chunks},
		{Label: "chunk key encoding", Value: d.ChunkKeys}, {Label: "fill value", Value: d.FillValue}, {Label: "codecs", Value: d.Codecs},
		{Label: "codecs from", Value: g.codecSources(m)},
	}
	if d.Transformers != "" {
		p.Fields = append(p.Fields, ui.Field{Label: "storage transformers", Value: d.Transformers})
	}
	if d.DimensionNames != "" {
		p.Fields = append(p.Fields, ui.Field{Label: "dimension names", Value: d.DimensionNames})
	}
	a, err := array.New(ctx, ds.Store, n.Path, m, ds.Opts)
	if err != nil {
		p.Stored = "This array cannot be opened here: " + store.PublicText(err)
		return p, nil
	}
	if layout, err := render.ShardLayout(ctx, a); err == nil && layout != "" {
		p.Fields = append(p.Fields, ui.Field{Label: "shards", Value: layout})
	}
	p.Stored = storedChunks(ctx, ds, a)
	base := apiURL(ds.Name, n.Path)
	p.Links = append(p.Links,
		ui.Link{Name: "chunk keys", URL: "/d/" + url.PathEscape(ds.Name) + "/?list&prefix=" + url.QueryEscape(array.ChunkPrefix(m.Format, n.Path))},
		ui.Link{Name: "first elements as JSON", URL: base + "?format=json&slice=" + url.QueryEscape(firstElements(m.Shape))},
		ui.Link{Name: "whole array as .npy", URL: base + "?format=npy"},
	)
	if len(m.Shape) == 1 && m.Shape[0] > 0 {
		first := "0:" + strconv.Itoa(min(m.Shape[0], valuesPage))
		p.Values = &ui.Values{URL: base, First: base + "?format=json&slice=" + url.QueryEscape(first), Size: m.Shape[0], Page: valuesPage}
	}
	if drawable(m) {
		p.Picture = pictureView(m, base, q)
		name := "this picture (PNG)"
		if p.Picture.Plot {
			name = "this plot (PNG)"
		}
		p.Links = append(p.Links, ui.Link{Name: name, URL: p.Picture.URL})
	}
	return p, nil
}

// valuesPage is how many values a 1-D array's table shows at once.
const valuesPage = 100

// plotSampleAbove is the number of values above which a page's plot
// samples one value per pixel column (downsample=stride) instead of
// streaming every value for each column's least and greatest.
const plotSampleAbove = 1 << 24

// pictureView is an array's picture (or, of a 1-D array, line plot) as
// the page's query asks for it: the controls' fields (startI and stopI
// of the picture's axes, indexI of the others), cmap, vmin and vmax. A
// query that does not fit the array is said, and the default drawn.
func pictureView(m *meta.ArrayMeta, base string, q url.Values) *ui.Picture {
	pic := &ui.Picture{Plot: len(m.Shape) == 1, Booleans: m.DataType.Kind == dtype.Bool,
		Colormap: picture.DefaultColormap, Colormaps: picture.Colormaps()}
	pic.Base = base + "?format=png&max_pixels=1048576"
	if pic.Plot {
		pic.Base = base + "?format=png&plot=line"
		pic.SampleAbove = plotSampleAbove
	}
	pic.Axes = defaultAxes(m)
	if err := pageQuery(pic, q); err != nil {
		pic.Error = err.Error() + "; drawn as by default instead."
		pic.Axes = defaultAxes(m)
		pic.Colormap, pic.Vmin, pic.Vmax = picture.DefaultColormap, "", ""
	}
	parts := make([]string, len(pic.Axes))
	for i := range pic.Axes {
		ax := &pic.Axes[i]
		ax.Until = ax.To - 1
		parts[i] = strconv.Itoa(ax.Start)
		if ax.Image {
			parts[i] = strconv.Itoa(ax.From) + ":" + strconv.Itoa(ax.To)
		}
	}
	pic.Slice = strings.Join(parts, ",")
	pic.URL = pic.Base + "&slice=" + url.QueryEscape(pic.Slice)
	if pic.Plot && pic.Axes[0].To-pic.Axes[0].From > pic.SampleAbove {
		pic.URL += "&downsample=stride"
	}
	if !pic.Plot && !pic.Booleans {
		pic.URL += "&cmap=" + url.QueryEscape(pic.Colormap)
	}
	if pic.Vmin != "" && !pic.Booleans {
		pic.URL += "&vmin=" + url.QueryEscape(pic.Vmin) + "&vmax=" + url.QueryEscape(pic.Vmax)
	}
	return pic
}

// defaultAxes are the picture's first slice: the picture's axes (the
// last two, or a 1-D array's only one) whole, the middle of every other.
func defaultAxes(m *meta.ArrayMeta) []ui.Axis {
	var axes []ui.Axis
	for i, size := range m.Shape {
		ax := ui.Axis{Index: i, Size: size, Last: size - 1, Start: size / 2, To: size, Image: i >= len(m.Shape)-2}
		if i < len(m.DimensionNames) && m.DimensionNames[i] != nil {
			ax.Name = *m.DimensionNames[i]
		}
		axes = append(axes, ax)
	}
	return axes
}

// pageQuery applies a page's query to its picture's axes, colormap and
// range.
func pageQuery(pic *ui.Picture, q url.Values) error {
	field := func(name string, lo, hi, def int) (int, error) {
		s := q.Get(name)
		if s == "" {
			return def, nil
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < lo || n > hi {
			return 0, fmt.Errorf("%s must be a whole number from %d to %d", name, lo, hi)
		}
		return n, nil
	}
	var err error
	for i := range pic.Axes {
		ax := &pic.Axes[i]
		k := strconv.Itoa(ax.Index)
		if !ax.Image {
			if ax.Start, err = field("index"+k, 0, ax.Last, ax.Start); err != nil {
				return err
			}
			continue
		}
		if ax.From, err = field("start"+k, 0, ax.Size-1, ax.From); err != nil {
			return err
		}
		if ax.To, err = field("stop"+k, ax.From+1, ax.Size, ax.To); err != nil {
			return err
		}
	}
	if c := q.Get("cmap"); c != "" {
		if !slices.Contains(pic.Colormaps, c) {
			return fmt.Errorf("no colormap %q (there are %s)", c, strings.Join(pic.Colormaps, ", "))
		}
		pic.Colormap = c
	}
	lo, hi := strings.TrimSpace(q.Get("vmin")), strings.TrimSpace(q.Get("vmax"))
	if lo == "" && hi == "" {
		return nil
	}
	a, err1 := strconv.ParseFloat(lo, 64)
	b, err2 := strconv.ParseFloat(hi, 64)
	if err1 != nil || err2 != nil || !(b > a) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return errors.New("vmin and vmax must both be numbers, vmin below vmax")
	}
	pic.Vmin, pic.Vmax = lo, hi
	return nil
}

// codecSources says where each codec of an array runs: bundled, or the
// plugin of the configuration that provides it (a configuration's plugin
// wins over a bundled codec of the same name).
func (g *Pages) codecSources(m *meta.ArrayMeta) string {
	var parts []string
	for _, c := range m.Codecs {
		src := "bundled"
		for _, pl := range g.Cfg.Plugins {
			for _, man := range pl.Manifests {
				if slices.Contains(man.Names(), c.Name) {
					src = "plugin " + pl.Source
				}
			}
			if !pl.Probed && pl.Name() == c.Name {
				src = "plugin " + pl.Source
			}
		}
		parts = append(parts, c.Name+": "+src)
	}
	return strings.Join(parts, "; ")
}

// drawable reports whether an array has a picture (two dimensions or
// more) or a line plot (one), of numbers or booleans, not empty.
func drawable(m *meta.ArrayMeta) bool {
	k := m.DataType.Kind
	return len(m.Shape) >= 1 && !slices.Contains(m.Shape, 0) && (k == dtype.Bool || k == dtype.Int || k == dtype.Uint || k == dtype.Float)
}

// firstElements selects at most about 100 elements from the start.
func firstElements(shape []int) string {
	parts := make([]string, len(shape))
	for i, n := range shape {
		k := 1
		if i >= len(shape)-2 {
			k = min(n, 10)
		}
		parts[i] = "0:" + strconv.Itoa(k)
	}
	return strings.Join(parts, ",")
}

// maxCountedKeys bounds the listing that counts an array's stored chunks.
const maxCountedKeys = 100000

// storedChunks says how many of an array's chunks are stored, from a
// listing of its keys.
func storedChunks(ctx context.Context, ds *server.Dataset, a *array.Array) string {
	prefix := array.NodePrefix(a.Path())
	if a.Meta().Format == meta.V3Draft {
		prefix = array.ChunkPrefix(a.Meta().Format, a.Path())
	}
	stored, more := 0, false
	for k, err := range ds.Store.List(ctx, prefix) {
		if err != nil {
			return "Stored chunks unknown: " + store.PublicText(err)
		}
		if stored == maxCountedKeys {
			more = true
			break
		}
		if !storecache.IsMetaKey(k) {
			stored++
		}
	}
	total := a.Grid().NumChunks()
	word := "chunks"
	if render.IsSharded(a.Meta()) {
		word = "shards"
	}
	if more {
		return fmt.Sprintf("More than %d of %d %s stored.", maxCountedKeys, total, word)
	}
	pct := 0.0
	if total > 0 {
		pct = 100 * float64(stored) / float64(total)
	}
	return fmt.Sprintf("%d of %d %s stored (%.1f%%).", stored, total, word, pct)
}

// displayName is who the pages say the caller is: its principals, else
// the subject of its identity provider's token.
func displayName(c identity.Caller) string {
	if n := c.Name(); n != "" || c.Subject == "" {
		return n
	}
	return c.Subject + " (" + c.Provider + ")"
}
