package app

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/host/app/location"
	"github.com/zarrgw/zarrgw/host/commands/render"
)

// The operations of the commands on one LOCATION (cat, write, inspect):
// each takes the location opened (Open) and the path of a node in it.

// Target is a LOCATION opened: a store, how arrays open in it, and what
// to call it in messages.
type Target = location.Target

// Open opens loc with the extensions of set: a directory or a store's
// URL, or with a configuration file, a dataset of it (its diagnostics
// and plugins' warnings go to diag). Close the target to end its plugins.
func Open(ctx context.Context, set Set, configFile, loc string, diag io.Writer) (*Target, error) {
	return location.Resolve(ctx, set, configFile, loc, diag)
}

// CatOptions are what `zarrgw cat` prints of an array.
type CatOptions struct {
	Path   string // the array's node path
	Slice  string // the selection, numpy notation; "" for all
	Format string // json, npy or raw
	Memory int64  // bytes of elements in flight; 0 for the default
}

// Cat prints the elements of the array at o.Path in t, or a selection of
// them, to w, streamed slab by slab.
func Cat(ctx context.Context, t *Target, o CatOptions, w io.Writer) error {
	f, err := render.ParseFormat(o.Format)
	if err != nil {
		return err
	}
	a, sel, err := openSelection(ctx, t, o.Path, o.Slice)
	if err != nil {
		return err
	}
	defer limitHeap(cmp.Or(o.Memory, defaultReadMemory))()
	out := bufio.NewWriterSize(w, 1<<16)
	if err := render.Stream(ctx, out, a, sel, f, streamOptions(o.Memory)); err != nil {
		out.Flush()
		return err
	}
	return out.Flush()
}

// openSelection opens the array at path in t, and reads slice against its
// shape.
func openSelection(ctx context.Context, t *Target, path, slice string) (*array.Array, grid.Selection, error) {
	n, err := OpenNode(ctx, t, path, true)
	if err != nil {
		return nil, nil, err
	}
	a, err := array.New(ctx, t.Store, n.Path, n.Array, t.Options)
	if err != nil {
		return nil, nil, err
	}
	sel, err := grid.Parse(slice, a.Shape())
	if err != nil {
		return nil, nil, err
	}
	return a, sel, nil
}

// WriteOptions are what `zarrgw write` writes into an array.
type WriteOptions struct {
	Path   string // the array's node path
	Slice  string // the selection written, numpy notation; "" for all
	From   string // the file written; "-" for Stdin
	Stdin  io.Reader
	Format string // of the input: npy, or raw (little-endian elements, C order)
	Memory int64  // bytes of elements in flight; 0 for the default
}

// Written says what Write wrote.
type Written struct {
	Elements int64
	Array    string // the array's name
}

// Write writes a .npy document or raw elements into the array at o.Path
// in t, or a selection of it, streamed. A read-only dataset is refused
// first; the input's header and, for a regular file, its size are checked
// against the selection before anything is written, so a short file
// changes nothing.
func Write(ctx context.Context, t *Target, o WriteOptions) (Written, error) {
	if err := ReadOnly(t); err != nil {
		return Written{}, err
	}
	a, sel, err := openSelection(ctx, t, o.Path, o.Slice)
	if err != nil {
		return Written{}, err
	}
	in, name, err := openInput(o.From, o.Stdin)
	if err != nil {
		return Written{}, err
	}
	defer in.Close()
	body, err := openBody(in, name, o.Format, a, sel)
	if err != nil {
		return Written{}, err
	}
	if err := a.WriteStream(ctx, sel, streamOptions(o.Memory), body.Fill); err != nil {
		return Written{}, WriteError(t, err)
	}
	if err := body.Finish(); err != nil {
		return Written{}, err
	}
	return Written{Elements: int64(ndarray.NumElements(sel.Counts())), Array: a.Name()}, nil
}

// openInput opens the file from names, or stdin for "-".
func openInput(from string, stdin io.Reader) (io.ReadCloser, string, error) {
	if from == "-" {
		if f, ok := stdin.(*os.File); ok {
			return f, "standard input", nil // a regular file's size is checked
		}
		return io.NopCloser(stdin), "standard input", nil
	}
	f, err := os.Open(from)
	if err != nil {
		return nil, "", err
	}
	return f, from, nil
}

// openBody reads the input's header, if any, and checks it against the
// array and selection. A regular file must hold exactly what it promises,
// checked before anything is written, so a short file changes nothing.
func openBody(in io.Reader, name, format string, a *array.Array, sel grid.Selection) (*render.Body, error) {
	dt := a.Meta().DataType
	var body *render.Body
	var err error
	switch format {
	case "npy":
		body, err = render.NPYBody(in, name, dt, sel.Counts())
	case "raw":
		body, err = render.RawBody(in, name, dt, sel.Counts())
	default:
		return nil, fmt.Errorf("--format %q: use npy or raw", format)
	}
	if err != nil {
		return nil, err
	}
	if f, ok := in.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() != body.Size() {
			return nil, fmt.Errorf("%s: holds %d bytes, but a selection of %v %s elements needs %d", name, fi.Size(), sel.Shape(), dt.Name, body.Size())
		}
	}
	return body, nil
}

// inspectJSON is what "zarrgw inspect --json" prints. Field names are
// stable; new fields may be added.
type inspectJSON struct {
	FormatVersion string `json:"format_version"` // "1"
	// Location is what was opened: a directory (absolute), a URL, or a
	// dataset with its declaration.
	Location string `json:"location"`
	// Nodes are the node --path names and everything below it, each
	// group before its children.
	Nodes []render.NodeJSON `json:"nodes"`
}

// Inspect prints the tree below the node at path in t to w: as text, or
// as one JSON document (format_version, location, nodes).
func Inspect(ctx context.Context, t *Target, path string, asJSON bool, w io.Writer) error {
	n, err := OpenNode(ctx, t, path, false)
	if err != nil {
		return err
	}
	if !asJSON {
		return render.Tree(ctx, w, t.Store, n, t.Options)
	}
	nodes, err := render.Nodes(ctx, t.Store, n, t.Options)
	if err != nil {
		return err
	}
	return writeJSON(w, inspectJSON{FormatVersion: "1", Location: t.Where, Nodes: nodes})
}
