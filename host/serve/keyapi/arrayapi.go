package keyapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/host/commands/render"
	"github.com/zarrgw/zarrgw/host/serve/server"
	"github.com/zarrgw/zarrgw/host/serve/server/arraycost"
)

// openSlice opens the array at path and parses the request's slice and
// format (json unless asked).
func (g *API) openSlice(r *http.Request, ds *server.Dataset, path string) (*array.Array, grid.Selection, render.Format, error) {
	q := r.URL.Query()
	name := q.Get("format")
	if name == "" {
		name = string(render.FormatJSON)
	}
	f, err := render.ParseFormat(name)
	if err != nil {
		return nil, nil, "", server.BadRequest(err.Error())
	}
	a, err := ds.OpenArray(r.Context(), path)
	if err != nil {
		return nil, nil, "", err
	}
	sel, err := grid.Parse(q.Get("slice"), a.Shape())
	if err != nil {
		return nil, nil, "", server.BadRequest(err.Error())
	}
	return a, sel, f, nil
}

// slicePlan is a slice read or written, as its cost's estimate opened it.
type slicePlan struct {
	a      *array.Array
	sel    grid.Selection
	f      render.Format
	stream array.StreamOptions
}

// planSlice opens the slice a request asks for, streamed within budget
// (its budget's share for one read or write).
func (g *API) planSlice(c *server.Call, budget int64) (*slicePlan, error) {
	a, sel, f, err := g.openSlice(c.R, c.DS, c.Key)
	if err != nil {
		return nil, err
	}
	p := &slicePlan{a: a, sel: sel, f: f, stream: array.StreamOptions{MemoryBudget: budget}}
	c.Plan = p
	return p, nil
}

// estimateSlice is what streaming a slice holds (costSlice): taken before
// any header, since a refusal must not carry the slice's length. A HEAD
// reads no chunk and takes nothing.
func estimateSlice(g *API, c *server.Call) (int64, error) {
	p, err := g.planSlice(c, g.ExpensiveBudget.ReadStreamBudget())
	if err != nil || c.R.Method == http.MethodHead {
		return server.TakesNothing, err
	}
	return arraycost.SliceCost(p.a, p.sel, arraycost.Concurrency(c.DS.Opts), p.stream.MemoryBudget)
}

// estimateSliceWrite is what writing a slice holds (costSliceWrite): its
// stream (slabs, the chunks in flight), taken from the budget of request
// bodies before the body is read.
func estimateSliceWrite(g *API, c *server.Call) (int64, error) {
	p, err := g.planSlice(c, g.BodyBudget.StreamBudget())
	if err != nil {
		return 0, err
	}
	if limit := g.Cfg.Server.MaxRequestSize; c.R.ContentLength > limit {
		return 0, server.TooLarge(limit)
	}
	return arraycost.WriteCost(p.a, p.sel, arraycost.Concurrency(c.DS.Opts), p.stream.MemoryBudget)
}

// getSlice streams a selection of an array: the response starts as soon
// as the first slab is read, and memory stays within the streaming budget
// however large the selection. That budget is held for the whole stream:
// the row's cost (costSlice) waited for room in the budget of expensive
// requests before it began. A failure after the first byte cuts the
// connection (the length, when sent, no longer adds up either).
func (g *API) getSlice(c *server.Call) error {
	w, r := c.W, c.R
	p := c.Plan.(*slicePlan)
	a, sel, f, so := p.a, p.sel, p.f, p.stream
	h := w.Header()
	h.Set("Content-Type", sliceContentType(f))
	h.Set("Zarr-Shape", joinInts(sel.Shape()))
	h.Set("Zarr-Data-Type", render.DataTypeName(a.Meta()))
	if n, ok := render.Size(a, sel, f); ok {
		h.Set("Content-Length", strconv.FormatInt(n, 10))
	}
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusOK)
		return nil
	}
	out := &firstWrite{w: w}
	err := render.Stream(r.Context(), out, a, sel, f, so)
	if err != nil && !out.started {
		// answered with the error's status: the slice's headers would
		// describe a body that is not sent (a length that is not its own)
		for _, k := range []string{"Content-Length", "Zarr-Shape", "Zarr-Data-Type"} {
			h.Del(k)
		}
		return err
	}
	if err != nil {
		g.Abort(w, err)
	}
	return nil
}

// firstWrite sends the status with the first byte, so that an error
// before it can still be answered with an error status.
type firstWrite struct {
	w       http.ResponseWriter
	started bool
}

func (f *firstWrite) Write(b []byte) (int, error) {
	if !f.started {
		f.started = true
		f.w.WriteHeader(http.StatusOK)
	}
	return f.w.Write(b)
}

func sliceContentType(f render.Format) string {
	if f == render.FormatJSON {
		return "application/json"
	}
	return "application/octet-stream"
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// putSlice writes a selection from the request body (.npy or raw
// little-endian elements in C order), streamed slab by slab. What the
// stream holds (its slabs, the chunks in flight) the row's cost
// (costSliceWrite) reserved from the budget of request bodies, before
// anything was read.
func (g *API) putSlice(c *server.Call) error {
	w, r := c.W, c.R
	p := c.Plan.(*slicePlan)
	a, sel, f, so := p.a, p.sel, p.f, p.stream
	in := http.MaxBytesReader(w, r.Body, g.Cfg.Server.MaxRequestSize)
	var body *render.Body
	var err error
	switch f {
	case render.FormatNPY:
		body, err = render.NPYBody(in, "request body", a.Meta().DataType, sel.Counts())
	case render.FormatRaw:
		body, err = render.RawBody(in, "request body", a.Meta().DataType, sel.Counts())
	default:
		return server.BadRequest("write a slice as format=npy or format=raw")
	}
	if err != nil {
		return server.BadRequest(err.Error())
	}
	if r.ContentLength >= 0 && r.ContentLength != body.Size() {
		return server.BadRequest(fmt.Sprintf("request body holds %d bytes, but a selection of %v %s elements needs %d",
			r.ContentLength, sel.Shape(), a.Meta().DataType.Name, body.Size()))
	}
	if err := a.WriteStream(r.Context(), sel, so, body.Fill); err != nil {
		return inputError(err)
	}
	if err := body.Finish(); err != nil {
		return server.BadRequest(err.Error())
	}
	server.WriteJSON(w, http.StatusOK, map[string]any{"written": ndarray.NumElements(sel.Counts()), "shape": sel.Shape()})
	return nil
}

// inputError turns a failure to read the request body into a client
// error; store and codec failures keep their own status.
func inputError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return server.TooLarge(mbe.Limit)
	}
	var ie *render.InputError
	if errors.As(err, &ie) {
		return server.BadRequest(err.Error())
	}
	return err
}

// nodeMeta answers GET ?meta: the node's type and format, its metadata
// documents as stored, and for a group its children.
func (g *API) nodeMeta(w http.ResponseWriter, r *http.Request, ds *server.Dataset, path string) error {
	ctx := r.Context()
	n, err := hierarchy.Open(ctx, ds.Store, path)
	if err != nil {
		return err
	}
	type child struct {
		Name     string `json:"name"`
		Path     string `json:"path"`
		NodeType string `json:"node_type"`
	}
	out := struct {
		Path       string                     `json:"path"`
		NodeType   string                     `json:"node_type"`
		ZarrFormat string                     `json:"zarr_format"`
		Documents  map[string]json.RawMessage `json:"documents"`
		Children   []child                    `json:"children,omitempty"`
	}{Path: n.Name(), NodeType: server.NodeType(n), ZarrFormat: n.Format().String(), Documents: map[string]json.RawMessage{}}
	for _, key := range server.MetaKeys(n) {
		v, err := ds.Read(ctx, key, server.StoreWhole)
		if err == nil && json.Valid(v.Data) {
			out.Documents[key] = v.Data
		}
	}
	if n.Group != nil {
		kids, err := hierarchy.Children(ctx, ds.Store, n)
		if err != nil {
			return err
		}
		for _, k := range kids {
			out.Children = append(out.Children, child{Name: k.Path[strings.LastIndex(k.Path, "/")+1:], Path: k.Name(), NodeType: server.NodeType(k)})
		}
	}
	server.WriteJSON(w, http.StatusOK, out)
	return nil
}
