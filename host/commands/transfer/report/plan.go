// Package report is what a copy (zarrgw cp) tells a person: the report
// of its plan, printed by a dry run as text or JSON, and its progress as
// it goes.
package report

import (
	"encoding/json"

	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/host/commands/transfer/layout"
)

// Plan is the report of a copy's plan: what a dry run prints (zarrgw cp
// --dry-run --json prints it as it is; its schema is these tags).
type Plan struct {
	Source      string `json:"source"`
	Destination string `json:"destination"`
	// Path is the node copied, "" for the whole hierarchy.
	Path   string      `json:"path"`
	Mode   Mode        `json:"mode"`
	Target Target      `json:"destination_state"`
	Arrays []ArrayPlan `json:"arrays"`
	Groups []GroupPlan `json:"groups"`
	// Other counts the keys below no node (a byte copy copies them too).
	Other KeyCount `json:"other_keys"`
	// Notes say what the plan could not describe (unreadable metadata
	// copied as it is, sizes a store does not give).
	Notes  []string `json:"notes,omitempty"`
	Totals Totals   `json:"totals"`
	// Partition is what this partition writes (--partition), its keys
	// listed in a dry run; nil for the whole copy.
	Partition *PartitionPlan `json:"partition,omitempty"`
}

// Mode is how a copy writes: keys byte for byte, or arrays through the
// engine.
type Mode string

const (
	ModeCopy    Mode = "copy"
	ModeRewrite Mode = "rewrite"
)

// State is what the destination held when the copy was planned, and so
// what the copy does with it.
type State string

const (
	// StateNew: no such directory yet; it is made once the plan stands.
	StateNew State = "new"
	// StateEmpty: nothing below the copied node.
	StateEmpty State = "empty"
	// StateSameCopy: only keys this copy writes, with the same metadata:
	// an earlier run of it, which a rerun resumes.
	StateSameCopy State = "same_copy"
	// StateOverwrite: other data, erased first (--overwrite).
	StateOverwrite State = "overwrite"
	// StateMerge: other data, kept and merged with (--merge).
	StateMerge State = "merge"
)

// Target is what the destination held, and what the copy does about it.
type Target struct {
	State State `json:"state"`
	// Keys counts the keys found below the copied node.
	Keys int64 `json:"keys"`
	// Foreign counts those this copy would not write, and Differing the
	// metadata documents it would write with other content.
	Foreign   int64 `json:"foreign_keys"`
	Differing int64 `json:"differing_metadata"`
	// Erase counts the keys --overwrite removes first.
	Erase int64 `json:"erase_keys"`
	// Ancestors are the groups created above the copied node.
	Ancestors []string `json:"created_groups_above"`
	// Merged are the nodes whose metadata --merge merges.
	Merged []string `json:"merged_nodes,omitempty"`
}

// ArrayPlan is one array of a plan.
type ArrayPlan struct {
	Path   string `json:"path"`
	Before Layout `json:"before"`
	After  Layout `json:"after"`
	// Keys counts the keys written: metadata and chunks (or shards).
	Keys int64 `json:"keys"`
	// Bytes is the stored size of the source values below the array
	// (metadata and chunks), what the copy reads; nil when the source
	// cannot list its keys with sizes.
	Bytes *int64 `json:"bytes"`
}

// Layout is how an array is stored.
type Layout struct {
	Format   string `json:"format"`
	DataType string `json:"data_type"`
	Shape    []int  `json:"shape"`
	// ChunkShape is the shape of the chunks (of a sharded array: of its
	// inner chunks); ShardShape is nil when the array is not sharded.
	ChunkShape []int           `json:"chunk_shape"`
	ShardShape []int           `json:"shard_shape"`
	Codecs     json.RawMessage `json:"codecs"`
	// ChunkShapes are a rectilinear grid's edges as zarr.json writes
	// them (its chunks, or its shards when sharded: ChunkShape or
	// ShardShape then holds the longest); nil for a regular grid.
	ChunkShapes json.RawMessage `json:"chunk_shapes,omitempty"`
}

// gridText prints the grid of shape (the chunks or shards l's grid is
// made of): the edges of a rectilinear one.
func (l Layout) gridText(shape []int, ofGrid bool) string {
	if ofGrid && l.ChunkShapes != nil {
		return "rectilinear " + string(l.ChunkShapes)
	}
	return shapeText(shape)
}

// GroupPlan is one group of a plan.
type GroupPlan struct {
	Path   string `json:"path"`
	Format string `json:"format"`
	Keys   int64  `json:"keys"`
	Bytes  *int64 `json:"bytes"`
	// Created: a group above the copied node that the destination lacks.
	Created bool `json:"created,omitempty"`
}

// KeyCount is a number of keys and their stored size.
type KeyCount struct {
	Keys  int64  `json:"keys"`
	Bytes *int64 `json:"bytes"`
}

// Totals sum a plan: Keys is every key the copy writes (the arrays',
// the groups', the other keys and the consolidated metadata); Bytes the
// stored size of what it reads, nil when unknown.
type Totals struct {
	Arrays int    `json:"arrays"`
	Groups int    `json:"groups"`
	Keys   int64  `json:"keys"`
	Bytes  *int64 `json:"bytes"`
}

// PartitionPlan is what one partition of a copy writes.
type PartitionPlan struct {
	Index int `json:"index"`
	Count int `json:"count"`
	// Metadata: this partition writes the metadata documents, the groups
	// above --path and the consolidated metadata (partition 0).
	Metadata bool `json:"metadata"`
	// Objects counts the objects it writes; Bytes is their estimated
	// share of the bytes the copy reads (see Partition).
	Objects int64 `json:"objects"`
	Bytes   int64 `json:"estimated_bytes"`
	// CopyObjects and CopyBytes are the same for the whole copy.
	CopyObjects int64 `json:"copy_objects"`
	CopyBytes   int64 `json:"copy_estimated_bytes"`
	// Keys are its objects' keys, sorted (in a dry run's report and from
	// Split).
	Keys []string `json:"keys,omitempty"`
}

// LayoutOf describes how an array is stored.
func LayoutOf(m *meta.ArrayMeta) Layout {
	l := Layout{Format: m.Format.String(), DataType: m.DataType.Name, Shape: m.Shape, ChunkShape: m.ChunkShape}
	if len(m.Codecs) == 1 && m.Codecs[0].Name == "sharding_indexed" {
		if inner, _, err := layout.Inner(m); err == nil {
			l.ChunkShape, l.ShardShape = inner, m.ChunkShape
		}
	}
	l.Codecs, _ = meta.MarshalExtensions(m.Codecs)
	if m.Rectilinear() {
		l.ChunkShapes = meta.MarshalChunkShapes(m.ChunkEdges)
	}
	return l
}
