// Package access reads who may call the gateway from a configuration:
// principals and their credentials (token hashes, S3 keys, claims of an
// identity provider's tokens), identity providers, rate limits, and the
// access lists of datasets and of the server's metrics and buckets.
//
// Credentials are checked as they are read: none may be empty, one that
// zarrgw's documentation prints is refused, and no two principals share
// one.
package access

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/zarrgw/zarrgw/host/runtime/config/hclread"
)

// Decoder reads the blocks of one configuration. It remembers the
// principals declared, which access lists may name, and the credentials
// claimed, which no second principal may have.
type Decoder struct {
	ev *hclread.Evaluator
	// providers maps every valid identity_provider name to its block
	// (IndexProviders).
	providers map[string]*hcl.Block
	vars      VariableSource
	// names holds every principal declared, its block valid or not, so
	// that access lists naming one that failed add no error to its own.
	names map[string]bool
	// credentials holds the principals' access key IDs and token hashes,
	// which must differ (secrets.go).
	credentials map[string]holder
}

// VariableSource says where variable name's value comes from, for
// messages saying how to set a credential: env is the environment
// variable its block names ("" for none), set whether the value came
// from it.
type VariableSource func(name string) (env string, set bool)

// NewDecoder reads blocks with ev, in which identity_provider.NAME
// refers to providers (IndexProviders).
func NewDecoder(ev *hclread.Evaluator, providers map[string]*hcl.Block, vars VariableSource) *Decoder {
	return &Decoder{ev: ev, providers: providers, vars: vars, names: map[string]bool{}, credentials: map[string]holder{}}
}
