// Package config reads the gateway's HCL configuration: variables,
// plugins, stores, datasets (each a stack of storage transformers over a
// store, with codec overrides and access rules) and the server.
//
// Decoding has two phases. Variables come first, each taking its value
// from its environment variable when set, else from its default. The rest
// is then evaluated with var.NAME and store.TYPE.NAME in scope. Every
// store, transformer and codec block names an extension; its body is
// checked against the configuration schema in that extension's manifest
// (from the catalog of Options.Catalog, to which the probed plugins add
// theirs, a plugin winning over a bundled extension of the same name) and
// handed on as JSON. Problems are HCL diagnostics
// with file, line and source range, printed with a snippet by
// WriteDiagnostics.
//
// Secrets come from variables or the environment, never from the file:
// schema properties marked writeOnly must be set from a variable.
//
// config holds the decoding's order, the variables, plugins, stores and
// datasets, the checks across blocks and what is verified after loading;
// its parts live below it, none importing it: hclread (reading HCL
// safely, the evaluation scope), redact (sensitive values hidden),
// lockfile (the lock file), access (principals, identity providers,
// access lists) and server (the server block). config names their types
// as it always has.
package config
