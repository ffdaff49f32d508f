package meta

import "encoding/json"

// Extension is one entry of an extension point (a codec, a storage
// transformer, a chunk grid, ...): its name and its configuration, kept as
// raw JSON so that unknown configuration keys survive a rewrite.
type Extension struct {
	Name          string
	Configuration json.RawMessage // nil when absent
	// MustUnderstand is false only when the document said so explicitly.
	MustUnderstand bool

	// mustUnderstandWritten records that the document spelled out
	// must_understand, so that a rewrite writes it back (and only then: a
	// codec built in code has the zero value, which must not turn into
	// "must_understand": false).
	mustUnderstandWritten bool
}
