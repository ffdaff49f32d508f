package gateway

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
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/host/picture"
)

// maxTaggedChunks bounds the chunks whose versions tag a picture: a
// picture over more is sent without an ETag rather than after thousands
// of Stat calls.
const maxTaggedChunks = 4096

// getPicture answers ?format=png: the 2-D selection drawn through a
// colormap, tagged with the versions of the metadata and chunks it reads,
// so that a browser's revalidation costs no decoding.
func (g *Gateway) getPicture(w http.ResponseWriter, r *http.Request, ds *dataset, path string) error {
	q := r.URL.Query()
	a, err := hierarchy.OpenArray(r.Context(), ds.store, path, ds.opts)
	if err != nil {
		return err
	}
	sel, err := grid.Parse(q.Get("slice"), a.Shape())
	if err != nil {
		return badRequest(err.Error())
	}
	opts, err := pictureOptions(q)
	if err != nil {
		return err
	}
	read, err := picture.ReadSelection(a, sel, opts)
	if err != nil {
		return pictureError(err)
	}
	tag, err := g.pictureTag(r.Context(), ds, a, read, r.URL.RawQuery)
	if err != nil {
		return err
	}
	if tag != "" {
		w.Header().Set("ETag", tag)
		w.Header().Set("Cache-Control", "no-cache") // revalidate: cheap with the tag
		if h := r.Header.Get("If-None-Match"); h != "" && matchWeak(h, tag) {
			w.WriteHeader(http.StatusNotModified)
			return nil
		}
	}
	img, err := picture.Render(r.Context(), a, sel, opts)
	if err != nil {
		return pictureError(err)
	}
	var buf bytes.Buffer
	if err := picture.EncodePNG(&buf, img); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(buf.Bytes())
	}
	return nil
}

func pictureError(err error) error {
	if errors.Is(err, picture.ErrUnsupported) {
		return badRequest(err.Error())
	}
	return err
}

// pictureOptions reads cmap, vmin and vmax (both or neither), max_pixels
// and downsample=stride|mean.
func pictureOptions(q url.Values) (picture.Options, error) {
	opts := picture.Options{Colormap: q.Get("cmap")}
	if opts.Colormap != "" {
		if _, err := picture.Colorize(emptyGrid{}, opts.Colormap, picture.Limits{}); err != nil {
			return opts, badRequest(err.Error())
		}
	}
	if q.Has("vmin") || q.Has("vmax") {
		lo, err1 := strconv.ParseFloat(q.Get("vmin"), 64)
		hi, err2 := strconv.ParseFloat(q.Get("vmax"), 64)
		if err1 != nil || err2 != nil || !(hi > lo) {
			return opts, badRequest("vmin and vmax must both be numbers, vmin below vmax")
		}
		opts.Limits = &picture.Limits{Min: lo, Max: hi}
	}
	if s := q.Get("max_pixels"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 64<<20 {
			return opts, badRequest("max_pixels must be a whole number from 1 to 67108864")
		}
		opts.MaxPixels = n
	}
	switch q.Get("downsample") {
	case "", "stride":
	case "mean":
		opts.Mean = true
	default:
		return opts, badRequest("downsample must be stride or mean")
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
func (g *Gateway) pictureTag(ctx context.Context, ds *dataset, a *array.Array, read grid.Selection, query string) (string, error) {
	projections := a.Grid().Project(read)
	if len(projections) > maxTaggedChunks {
		return "", nil
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\n", query)
	keys := metaKeys(hierarchy.Node{Path: a.Path(), Array: a.Meta()})
	for _, p := range projections {
		keys = append(keys, a.ChunkKey(p.Chunk))
	}
	for _, k := range keys {
		info, err := ds.stat(ctx, k)
		switch {
		case err == nil && info.Version == "":
			return "", nil
		case err == nil:
			fmt.Fprintf(h, "%s %s\n", k, info.Version)
		case isNotFound(err):
			fmt.Fprintf(h, "%s -\n", k)
		default:
			return "", err
		}
	}
	return `W/"png-` + hex.EncodeToString(h.Sum(nil)[:16]) + `"`, nil
}
