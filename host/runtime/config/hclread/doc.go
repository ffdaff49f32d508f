// Package hclread reads HCL that zarrgw does not trust: configuration
// files, lock files, values of environment variables. It bounds how deeply
// a source may nest before the parser sees it, evaluates constants,
// renders values as JSON for extensions, and makes the diagnostics the
// readers of those files return (with suggestions for misspelt names).
//
// It knows nothing of the configuration's blocks: host/runtime/config and
// the packages below it build on it.
package hclread
