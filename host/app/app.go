// Package app holds the operations the command line calls, each over a
// location or a configuration opened into a running stack: serve its
// datasets, copy and verify (cp's destination policy), create, cat,
// write, inspect, init and the plugin commands, validate, and the
// completions and did-you-mean suggestions. The command line parses
// flags and prints; what an operation does, and in what order it starts
// and ends its parts, is here, with typed options and results.
package app

import "github.com/zarrgw/zarrgw/host/runtime/registry"

// Set is the extensions a command runs with: the bundled codecs, stores
// and transformers, each openable in process or in a plugin. The command
// line passes it to every operation without looking inside.
type Set = registry.Set

// Bundled is the set built into this binary.
func Bundled() Set { return registry.Bundled() }
