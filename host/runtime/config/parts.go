package config

import (
	"github.com/zarrgw/zarrgw/host/runtime/config/access"
	"github.com/zarrgw/zarrgw/host/runtime/config/hclread"
	"github.com/zarrgw/zarrgw/host/runtime/config/server"
)

// The configuration's parts read by the packages below config, under
// the names the configuration's users have always called them.
type (
	// StoreRef identifies a store block: store "TYPE" "NAME".
	StoreRef = hclread.StoreRef

	// Server is the HTTP listener (package server).
	Server = server.Server
	// S3Listener is the S3 API of the gateway.
	S3Listener = server.S3Listener
	// STS is the S3 listener's AssumeRoleWithWebIdentity.
	STS = server.STS
	// Safeguards bound what clients can make the gateway spend.
	Safeguards = server.Safeguards

	// Principal is a caller the gateway knows (package access).
	Principal = access.Principal
	// IdentityProvider is an OpenID Connect provider whose ID tokens
	// identify callers.
	IdentityProvider = access.IdentityProvider
	// RateLimit bounds a principal's traffic, or an anonymous client
	// address's.
	RateLimit = access.RateLimit
	// Access lists the principals allowed to read and write.
	Access = access.Access
)

// Anyone is the principal name that grants access without a token.
const Anyone = access.Anyone

// DefaultServer returns the server used without a server block; a block
// starts from it.
func DefaultServer() Server { return server.DefaultServer() }

// ValidBucketName reports whether name can be an S3 bucket's.
func ValidBucketName(name string) bool { return server.ValidBucketName(name) }
