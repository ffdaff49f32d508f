//go:build tools

// Package dex pins the Dex release that scripts/setup.sh builds for the
// tests (tests/support/servers/dex.go). Dex cannot be `go install`ed at a
// version (its go.mod has a replace directive), so it is built as a
// dependency of this module, which is a module of its own: the main
// module's `go build ./...` and `go vet ./...` do not enter it, and the
// build tag keeps this file out of any ordinary build. The pseudo-version
// is Dex v2.45.1, the form in which the module proxy serves it.
package dex

import _ "github.com/dexidp/dex/cmd/dex"
