// Package hclread reads HCL that zarrgw does not trust: configuration
// files, lock files, values of environment variables. It bounds how deeply
// a source may nest before the parser sees it, evaluates constants and
// expressions (in a Scope: var.NAME, store.TYPE.NAME,
// identity_provider.NAME, path.config, references to anything else
// refused with what is declared), decodes an extension's block against
// the configuration schema of its manifest, renders values as JSON for
// extensions, reads sizes, and makes the diagnostics of all of these
// (with suggestions for misspelt names).
//
// It knows what a configuration's expressions may name, not its blocks:
// host/runtime/config and the packages below it build on it.
package hclread
