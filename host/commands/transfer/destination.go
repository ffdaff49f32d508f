package transfer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"reflect"
	"sort"
	"strings"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/commands/transfer/layout"
	"github.com/zarrgw/zarrgw/host/commands/transfer/report"
)

// ForeignError refuses a destination that holds data the copy would not
// write: keys that are not the copy's, or metadata documents it writes
// that say something else there (another hierarchy). Nothing was
// written when it is returned.
type ForeignError struct {
	Destination string
	// Keys counts the keys the copy would not write; Examples names one
	// or two of them.
	Keys     int64
	Examples []string
	// Differing counts the metadata documents that hold other metadata;
	// DifferingExamples names one or two.
	Differing         int64
	DifferingExamples []string
}

func (e *ForeignError) Error() string {
	var what []string
	if e.Keys > 0 {
		what = append(what, fmt.Sprintf("%d %s this copy would not write (%s)", e.Keys, plural(e.Keys, "key", "keys"), quoteAll(e.Examples)))
	}
	if e.Differing > 0 {
		what = append(what, fmt.Sprintf("other metadata in %s", quoteAll(e.DifferingExamples)))
	}
	return fmt.Sprintf("%s holds data that is not this copy's: %s; nothing was written. "+
		"--overwrite replaces what is there, --merge adds the copy to it", e.Destination, strings.Join(what, ", and "))
}

// MergeError refuses a merge of two nodes that cannot be one: an array
// and a group, two formats, or two arrays of other shapes, types, chunks
// or codecs (their chunks would mix).
type MergeError struct {
	Destination, Node, Reason string
}

func (e *MergeError) Error() string {
	return fmt.Sprintf("--merge: %s holds /%s, which cannot be merged with the copy's: %s; nothing was written", e.Destination, e.Node, e.Reason)
}

// survey is what the destination holds below the copied node.
type survey struct {
	keys, foreign, differing int64
	foreignKeys, docKeys     []string        // the first few of each
	nodes                    map[string]bool // the nodes whose metadata the destination holds
}

// maxExamples bounds the keys a refusal names.
const maxExamples = 2

// checkDestination examines what dst holds below the copied node, and
// decides, as opts.Existing says, whether and how the copy goes on: into
// a destination that holds nothing, or only what this copy writes (an
// earlier run of it: a rerun resumes), it simply goes; other data is
// refused, erased first (Overwrite) or kept (Merge). It only reads.
func (p *Plan) checkDestination(ctx context.Context, dst Endpoint) error {
	if dst.Store == nil {
		p.Target.State = report.StateNew
		return p.planAncestors(ctx, dst)
	}
	switch caps := dst.Store.Capabilities(); {
	case !caps.Write:
		return fmt.Errorf("%s is read-only: nothing can be copied into it", dst.Name)
	case !caps.List:
		return fmt.Errorf("%s cannot be listed, so cp cannot tell what it holds: copy into a store that lists its keys", dst.Name)
	}
	sv, err := p.survey(ctx, dst)
	if err != nil {
		return err
	}
	p.Target.Keys, p.Target.Foreign, p.Target.Differing = sv.keys, sv.foreign, sv.differing
	switch {
	case sv.foreign == 0 && sv.differing == 0 && sv.keys == 0:
		p.Target.State = report.StateEmpty
	case sv.foreign == 0 && sv.differing == 0:
		p.Target.State = report.StateSameCopy
	case p.opts.Existing == Overwrite:
		p.Target.State, p.Target.Erase, p.erase = report.StateOverwrite, sv.keys, true
	case p.opts.Existing == Merge:
		p.Target.State = report.StateMerge
		if err := p.mergeNodes(ctx, dst, sv.nodes); err != nil {
			return err
		}
	default:
		return &ForeignError{Destination: dst.Name, Keys: sv.foreign, Examples: sv.foreignKeys,
			Differing: sv.differing, DifferingExamples: sv.docKeys}
	}
	return p.planAncestors(ctx, dst)
}

// survey lists dst below the copied node and sorts its keys into the
// copy's own, the others, and metadata that differs from the copy's. A
// listing that fails (no such bucket, an invalid name, access denied) is
// the copy's first and only error.
func (p *Plan) survey(ctx context.Context, dst Endpoint) (*survey, error) {
	sv := &survey{nodes: map[string]bool{}}
	chunks := p.chunkIndex()
	for key, err := range store.ListSorted(ctx, dst.Store, p.scope, "") {
		if err != nil {
			return nil, fmt.Errorf("%s: list: %w", dst.Name, err)
		}
		sv.keys++
		if isMetadataKey(key) {
			sv.nodes[nodeOfDoc(key)] = true
		}
		mine, doc, err := p.classify(ctx, dst, chunks, key)
		if err != nil {
			return nil, err
		}
		switch {
		case !mine:
			sv.foreign++
			if len(sv.foreignKeys) < maxExamples {
				sv.foreignKeys = append(sv.foreignKeys, key)
			}
		case doc:
			sv.differing++
			if len(sv.docKeys) < maxExamples {
				sv.docKeys = append(sv.docKeys, key)
			}
		}
	}
	return sv, nil
}

// classify says whether the copy writes key (mine), and if it does,
// whether key is a metadata document whose content differs from what
// the copy writes there (doc): what decides that two hierarchies differ.
func (p *Plan) classify(ctx context.Context, dst Endpoint, chunks map[string]chunkKeys, key string) (mine, doc bool, err error) {
	if p.Mode == report.ModeCopy {
		if !p.writes(key) {
			return false, false, nil
		}
		if !isMetadataKey(key) {
			return true, false, nil
		}
		want, err := readValue(ctx, p.src, key, p.docs)
		if err != nil {
			return false, false, err
		}
		same, err := sameAsStored(ctx, dst, key, want.Data)
		return true, !same, err
	}
	if want, ok := p.docs[key]; ok {
		same, err := sameAsStored(ctx, dst, key, want)
		return true, !same, err
	}
	// v2 consolidated metadata is rebuilt at the end, whatever it holds now
	mine = isChunk(chunks, key) || (p.opts.Consolidate && key == array.V2ConsolidatedKey(p.Path))
	return mine, false, nil
}

// writes reports whether a byte copy writes key.
func (p *Plan) writes(key string) bool {
	i := sort.SearchStrings(p.keys, key)
	return i < len(p.keys) && p.keys[i] == key
}

// sameAsStored compares what dst holds at key with want, as metadata:
// the same JSON value, consolidated metadata aside (a finished copy with
// --consolidate adds it).
func sameAsStored(ctx context.Context, dst Endpoint, key string, want []byte) (bool, error) {
	v, err := dst.Store.Get(ctx, key, store.ByteRange{})
	if err != nil {
		return false, fmt.Errorf("%s: read %s: %w", dst.Name, key, err)
	}
	return sameDoc(v.Data, want), nil
}

// sameDoc compares two metadata documents as JSON values, leaving out
// consolidated_metadata; documents that are not JSON compare as bytes.
func sameDoc(a, b []byte) bool {
	va, errA := decodeDoc(a)
	vb, errB := decodeDoc(b)
	if errA != nil || errB != nil {
		return bytes.Equal(a, b)
	}
	return reflect.DeepEqual(va, vb)
}

func decodeDoc(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // exact: 2^63-1 and 2^63-2 are two fill values
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if m, ok := v.(map[string]any); ok {
		delete(m, "consolidated_metadata")
	}
	return v, nil
}

// metadataNames are the base names of the metadata documents of v2 and v3.
var metadataNames = map[string]bool{"zarr.json": true, ".zarray": true, ".zgroup": true, ".zattrs": true, ".zmetadata": true}

// isMetadataKey reports a metadata document of any format (draft v3's
// under meta/).
func isMetadataKey(key string) bool {
	if metadataNames[path.Base(key)] {
		return true
	}
	return strings.HasPrefix(key, "meta/") && (strings.HasSuffix(key, ".array.json") || strings.HasSuffix(key, ".group.json"))
}

// nodeOfDoc is the path of the node a metadata document describes.
func nodeOfDoc(key string) string {
	if rest, ok := strings.CutPrefix(key, "meta/root"); ok && !metadataNames[path.Base(key)] {
		rest = strings.TrimSuffix(strings.TrimSuffix(rest, ".array.json"), ".group.json")
		return strings.TrimPrefix(rest, "/")
	}
	if dir := path.Dir(key); dir != "." {
		return dir
	}
	return ""
}

// chunkKeys recognise the chunk keys of one array as a rewrite writes it.
type chunkKeys struct {
	enc    grid.KeyEncoder
	counts []int // chunks along each dimension
}

// chunkIndex maps each array a rewrite writes to its chunk keys.
func (p *Plan) chunkIndex() map[string]chunkKeys {
	out := map[string]chunkKeys{}
	for _, n := range p.nodes {
		if m := n.out.Array; m != nil {
			if enc, err := grid.NewKeyEncoder(m.ChunkKey); err == nil {
				out[n.out.Path] = chunkKeys{enc: enc, counts: layout.GridCounts(m)}
			}
		}
	}
	return out
}

// isChunk reports whether key is a chunk key, inside its grid, of an
// array of arrays: the array is the key's nearest ancestor (arrays hold
// no nodes).
func isChunk(arrays map[string]chunkKeys, key string) bool {
	if len(arrays) == 0 {
		return false
	}
	dir := key
	for dir != "" {
		dir = parentDir(dir)
		a, ok := arrays[dir]
		if !ok {
			continue
		}
		coords, ok := a.enc.Parse(strings.TrimPrefix(key, grid.NodePrefix(dir)), len(a.counts))
		for i := range coords {
			ok = ok && coords[i] < a.counts[i]
		}
		return ok
	}
	return false
}

// parentDir is the directory above a key or prefix ("" at the top).
func parentDir(key string) string {
	if i := strings.LastIndexByte(key, '/'); i >= 0 {
		return key[:i]
	}
	return ""
}

// planAncestors finds the groups above Path the copy creates: those the
// destination lacks. An array there is an error now rather than after
// the copy: nothing can be placed below an array.
func (p *Plan) planAncestors(ctx context.Context, dst Endpoint) error {
	for _, a := range ancestorsOf(p.Path) {
		if dst.Store != nil {
			n, err := openNode(ctx, dst, a)
			if err != nil {
				return err
			}
			if n != nil && n.Array != nil {
				return fmt.Errorf("%s: /%s is an array: /%s cannot be copied below it; nothing was written", dst.Name, a, p.Path)
			}
			if n != nil {
				continue
			}
		}
		g := &meta.GroupMeta{Format: p.rootFormat(), Attributes: json.RawMessage("{}")}
		docs, err := hierarchy.GroupDocs(g, a)
		if err != nil {
			return fmt.Errorf("%s: the group /%s above /%s: %w", dst.Name, a, p.Path, err)
		}
		p.ancestors = append(p.ancestors, docs...)
		p.Target.Ancestors = append(p.Target.Ancestors, "/"+a)
	}
	return nil
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func quoteAll(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = fmt.Sprintf("%q", k)
	}
	return strings.Join(q, ", ")
}
