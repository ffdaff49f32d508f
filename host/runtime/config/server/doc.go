// Package server reads a configuration's server block: the HTTP
// listener and its timeouts, TLS and CORS, caches, the safeguards that
// bound what clients can make the gateway spend, the bounds on what array
// metadata may ask of a reader, and the S3 listener with its buckets and
// STS.
package server

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/zarrgw/zarrgw/host/runtime/config/access"
	"github.com/zarrgw/zarrgw/host/runtime/config/hclread"
)

// Decoder reads the server block of one configuration.
type Decoder struct {
	ev     *hclread.Evaluator
	access *access.Decoder
	// bucketsFromAt is the s3 block's buckets_from once it and
	// buckets_prefix are valid (buckets.go).
	bucketsFromAt *hcl.Range
}

// NewDecoder reads with ev; access lists and rate limits are read by
// acc, which knows the principals they may name.
func NewDecoder(ev *hclread.Evaluator, acc *access.Decoder) *Decoder {
	return &Decoder{ev: ev, access: acc}
}
