package pages

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/checked"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/host/serve/pages/picture"
	"github.com/zarrgw/zarrgw/host/serve/server"
	"github.com/zarrgw/zarrgw/host/serve/server/arraycost"
)

// maxTaggedChunks bounds the chunks whose versions tag a picture: a
// picture over more is sent without an ETag rather than after thousands
// of Stat calls.
const maxTaggedChunks = 4096

// picturePlan is a picture to draw, as its cost's estimate found it.
type picturePlan struct {
	a    *array.Array
	sel  grid.Selection
	opts picture.Options
	tag  string
	// unchanged: the client has the picture already (If-None-Match)
	unchanged bool
}

// PictureCost is the cost class of a picture's rows (Picture).
func (g *Pages) PictureCost() server.Cost {
	return server.Costing("picture", server.Expensive, g, estimatePicture)
}

// estimatePicture is what drawing a picture holds (PictureCost), fitted
// to the budget of expensive requests (see fitPicture); a picture the
// client has already is not drawn and needs no room.
func estimatePicture(g *Pages, c *server.Call) (int64, error) {
	r, ds := c.R, c.DS
	a, sel, opts, err := g.openPicture(r, ds, c.Key)
	if err != nil {
		return 0, err
	}
	opts, cost, err := g.fitPicture(ds, a, sel, opts)
	if err != nil {
		return 0, pictureError(err)
	}
	tag, err := g.pictureTag(r.Context(), ds, a, cost.read, r.URL.RawQuery+"\n"+strconv.Itoa(opts.MaxPixels))
	if err != nil {
		return 0, err
	}
	p := &picturePlan{a: a, sel: sel, opts: opts, tag: tag}
	c.Plan = p
	if h := r.Header.Get("If-None-Match"); tag != "" && h != "" && server.MatchWeak(h, tag) {
		p.unchanged = true
		return server.TakesNothing, nil
	}
	return cost.bytes, nil
}

// Picture answers ?format=png: the 2-D selection drawn through a
// colormap, tagged with the versions of the metadata and chunks it reads,
// so that a browser's revalidation costs no decoding. Drawing holds the
// room its row's cost (PictureCost) took.
func (g *Pages) Picture(c *server.Call) error {
	w, r := c.W, c.R
	p := c.Plan.(*picturePlan)
	a, sel, opts, tag := p.a, p.sel, p.opts, p.tag
	if p.unchanged {
		setPictureTag(w, tag)
		w.WriteHeader(http.StatusNotModified) // no drawing: no room needed
		return nil
	}
	var buf bytes.Buffer
	drawn, err := drawPicture(r.Context(), &buf, a, sel, opts)
	if err != nil {
		return err
	}
	c.Res.Shrink(int64(buf.Cap())) // all but the PNG is garbage now
	setPictureTag(w, tag)
	setPictureRange(w.Header(), drawn)
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(buf.Bytes())
	}
	return nil
}

// Headers of a picture that say how it was drawn: the values at the ends
// of its colormap (of a plot, at its bottom and top) and the colormap.
// The limits are those given (vmin, vmax), else those the picture found
// in the data it drew (2nd and 98th percentiles; a plot's least and
// greatest value). Pictures of booleans have none. A 304 has none either:
// a cache keeps them with the picture.
const (
	headerVmin     = "X-Zarrgw-Vmin"
	headerVmax     = "X-Zarrgw-Vmax"
	headerColormap = "X-Zarrgw-Colormap"
)

func setPictureRange(h http.Header, d picture.Drawn) {
	if !d.Scaled {
		return
	}
	h.Set(headerVmin, strconv.FormatFloat(d.Limits.Min, 'g', -1, 64))
	h.Set(headerVmax, strconv.FormatFloat(d.Limits.Max, 'g', -1, 64))
	if d.Colormap != "" {
		h.Set(headerColormap, d.Colormap)
	}
}

// setPictureTag sends a picture's tag, if it has one, with the advice to
// revalidate: cheap with the tag. (Never on a refusal.)
func setPictureTag(w http.ResponseWriter, tag string) {
	if tag != "" {
		w.Header().Set("ETag", tag)
		w.Header().Set("Cache-Control", "no-cache")
	}
}

// openPicture opens the array at path and reads the picture's selection
// and options; block means are streamed within the budget's share.
func (g *Pages) openPicture(r *http.Request, ds *server.Dataset, path string) (*array.Array, grid.Selection, picture.Options, error) {
	q := r.URL.Query()
	a, err := ds.OpenArray(r.Context(), path)
	if err != nil {
		return nil, nil, picture.Options{}, err
	}
	sel, err := grid.Parse(q.Get("slice"), a.Shape())
	if err != nil {
		return nil, nil, picture.Options{}, server.BadRequest(err.Error())
	}
	opts, err := pictureOptions(q)
	opts.Stream = array.StreamOptions{MemoryBudget: g.ExpensiveBudget.ReadStreamBudget()}
	return a, sel, opts, err
}

// pictureCost is what drawing a picture holds, and what it reads.
type pictureCost struct {
	bytes int64
	read  grid.Selection
}

// fitPicture estimates the memory a picture holds (every stage's bytes
// per pixel, the chunks read) and, when that is more than the whole
// budget of expensive requests, lowers max_pixels until it fits: a
// picture is already a downsampled view, and a coarser one serves better
// than a refusal. Only when even one pixel does not fit (huge chunks) is
// the request refused (413).
func (g *Pages) fitPicture(ds *server.Dataset, a *array.Array, sel grid.Selection, opts picture.Options) (picture.Options, pictureCost, error) {
	limit := g.ExpensiveBudget.Limit()
	var n int64
	// Lowering max_pixels never makes the rest cost more (fewer or as
	// many chunks are read), so one lowering fits; the third pass is a
	// guard.
	for range 3 {
		c, err := picture.Estimate(a, sel, opts)
		if err != nil {
			return opts, pictureCost{}, err
		}
		read, err := arraycost.ReadCost(a, c.Read, arraycost.Concurrency(ds.Opts), opts.Stream.MemoryBudget, c.Streamed)
		if err != nil {
			return opts, pictureCost{}, err
		}
		var sum checked.Calc
		n = sum.Add(c.Bytes(), read)
		if sum.Overflowed() {
			return opts, pictureCost{}, arraycost.Overflowed(a, &sum)
		}
		if limit == 0 || n <= limit {
			return opts, pictureCost{bytes: n, read: c.Read}, nil
		}
		fit := (limit - (n - c.Pixels*c.PerPixel)) / c.PerPixel
		if fit < 1 {
			break
		}
		opts.MaxPixels = int(min(fit, c.Pixels-1))
	}
	return opts, pictureCost{}, g.ExpensiveBudget.TooExpensive(n)
}

// drawPicture renders sel of a and encodes it as a PNG into buf.
func drawPicture(ctx context.Context, buf *bytes.Buffer, a *array.Array, sel grid.Selection, opts picture.Options) (picture.Drawn, error) {
	d, err := picture.Draw(ctx, a, sel, opts)
	if err != nil {
		return d, pictureError(err)
	}
	if err := picture.EncodePNG(buf, d.Image); err != nil {
		return d, fmt.Errorf("encoding the picture of %s: %w", a.Name(), err)
	}
	d.Image = nil // encoded: let it go
	return d, nil
}

func pictureError(err error) error {
	if errors.Is(err, picture.ErrUnsupported) {
		return server.BadRequest(err.Error())
	}
	return err
}

// pictureOptions reads cmap, vmin and vmax (both or neither), max_pixels,
// plot=line (a 1-D selection as a line plot) and downsample=stride|mean
// (and for plots minmax, their default: every value read, each pixel
// column from its least to its greatest).
func pictureOptions(q url.Values) (picture.Options, error) {
	opts := picture.Options{Colormap: q.Get("cmap")}
	if opts.Colormap != "" {
		if _, err := picture.Colorize(emptyGrid{}, opts.Colormap, picture.Limits{}); err != nil {
			return opts, server.BadRequest(err.Error())
		}
	}
	if q.Has("vmin") || q.Has("vmax") {
		lo, err1 := strconv.ParseFloat(q.Get("vmin"), 64)
		hi, err2 := strconv.ParseFloat(q.Get("vmax"), 64)
		if err1 != nil || err2 != nil || !(hi > lo) {
			return opts, server.BadRequest("vmin and vmax must both be numbers, vmin below vmax")
		}
		opts.Limits = &picture.Limits{Min: lo, Max: hi}
	}
	if s := q.Get("max_pixels"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 64<<20 {
			return opts, server.BadRequest("max_pixels must be a whole number from 1 to 67108864")
		}
		opts.MaxPixels = n
	}
	switch q.Get("plot") {
	case "":
	case "line":
		opts.Plot = true
	default:
		return opts, server.BadRequest("plot must be line (a 1-D selection drawn as a line plot)")
	}
	switch q.Get("downsample") {
	case "":
	case "stride":
		opts.Stride = true
	case "mean":
		opts.Mean = true
	case "minmax":
		if !opts.Plot {
			return opts, server.BadRequest("downsample=minmax is for line plots (plot=line); a picture downsamples by stride or mean")
		}
	default:
		return opts, server.BadRequest("downsample must be stride or mean (or, for a line plot, minmax)")
	}
	return opts, nil
}

// emptyGrid checks colormap names.
type emptyGrid struct{}

func (emptyGrid) Size() (int, int)          { return 0, 0 }
func (emptyGrid) Value(int) (float64, bool) { return 0, false }

// pictureTag hashes the query with the versions of the array's metadata
// and of every chunk the picture reads ("" when there are too many to
// ask for, or a store gives no versions).
func (g *Pages) pictureTag(ctx context.Context, ds *server.Dataset, a *array.Array, read grid.Selection, query string) (string, error) {
	// counted before they are projected: a projection per chunk of a
	// huge picture would itself take hundreds of megabytes
	if n, ok := checked.Product(a.Grid().ChunksCrossed(read)); !ok || n > maxTaggedChunks {
		return "", nil
	}
	projections := a.Grid().Project(read)
	h := sha256.New()
	fmt.Fprintf(h, "%s\n", query)
	keys := server.MetaKeys(hierarchy.Node{Path: a.Path(), Array: a.Meta()})
	for _, p := range projections {
		keys = append(keys, a.ChunkKey(p.Chunk))
	}
	for _, k := range keys {
		info, err := ds.Stat(ctx, k)
		switch {
		case err == nil && info.Version == "":
			return "", nil
		case err == nil:
			fmt.Fprintf(h, "%s %s\n", k, info.Version)
		case server.IsNotFound(err):
			fmt.Fprintf(h, "%s -\n", k)
		default:
			return "", err
		}
	}
	return `W/"png-` + hex.EncodeToString(h.Sum(nil)[:16]) + `"`, nil
}
