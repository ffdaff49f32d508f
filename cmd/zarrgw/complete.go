package main

import (
	"context"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/host/app"
)

// Shell completion (cobra's "zarrgw completion SHELL" scripts call the
// hidden "zarrgw __complete ARGS..."): LOCATION is a dataset of the
// configuration given with -c, or a directory without one; --path is a
// node of that location; enumerated flags complete their values.

// completeTimeout bounds what completing a --path may spend reading a
// location (a slow bucket must not hang the shell).
const completeTimeout = 5 * time.Second

// configFlag is the configuration file given with -c, if any.
func configFlag(cmd *cobra.Command) string {
	if f := cmd.Flags().Lookup("config"); f != nil {
		return f.Value.String()
	}
	return ""
}

// completeLocations completes the first max positional arguments: the
// datasets of the configuration given with -c, else directories.
func completeLocations(max int) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) >= max {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		file := configFlag(cmd)
		if file == "" {
			return nil, cobra.ShellCompDirectiveFilterDirs
		}
		names, err := app.DatasetNames(file)
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		return withPrefix(names, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// completeNodes completes --path with the node paths (arrays only, when
// arrays) of the LOCATION already given.
func completeNodes(set app.Set, arrays bool) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) == 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ctx, cancel := context.WithTimeout(cmd.Context(), completeTimeout)
		defer cancel()
		paths, err := app.NodesAt(ctx, set, configFlag(cmd), args[0], arrays)
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		return withPrefix(paths, strings.TrimPrefix(toComplete, "/")), cobra.ShellCompDirectiveNoFileComp
	}
}

// completeValues completes a flag with fixed values, each "VALUE\tWHAT".
func completeValues(values ...string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return withPrefix(values, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// completeConfigFiles completes -c with HCL files.
func completeConfigFiles(_ *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return []cobra.Completion{"hcl"}, cobra.ShellCompDirectiveFilterFileExt
}

// platforms are the platforms offered for -platform (any OS_ARCH Go
// builds for is accepted).
var platforms = []string{"linux_amd64", "linux_arm64", "darwin_amd64", "darwin_arm64", "windows_amd64", "windows_arm64", "freebsd_amd64"}

// withPrefix keeps the values (or "VALUE\tDESCRIPTION") starting with prefix.
func withPrefix(values []string, prefix string) []cobra.Completion {
	var out []cobra.Completion
	for _, v := range values {
		if strings.HasPrefix(v, prefix) {
			out = append(out, v)
		}
	}
	return out
}

// registerCompletions gives every command of root its completions.
func registerCompletions(root *cobra.Command, set app.Set) {
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if f := c.Flags().Lookup("config"); f != nil {
			c.RegisterFlagCompletionFunc("config", completeConfigFiles)
		}
		if f := c.Flags().Lookup("platform"); f != nil {
			c.RegisterFlagCompletionFunc("platform", completeValues(platforms...))
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for _, c := range root.Commands() {
		switch c.Name() {
		case "inspect":
			c.ValidArgsFunction = completeLocations(1)
			c.RegisterFlagCompletionFunc("path", completeNodes(set, false))
		case "cat":
			c.ValidArgsFunction = completeLocations(1)
			c.RegisterFlagCompletionFunc("path", completeNodes(set, true))
			c.RegisterFlagCompletionFunc("format", completeValues(catFormats...))
		case "write":
			c.ValidArgsFunction = completeLocations(1)
			c.RegisterFlagCompletionFunc("path", completeNodes(set, true))
			c.RegisterFlagCompletionFunc("format", completeValues(writeFormats...))
		case "create":
			c.ValidArgsFunction = completeLocations(1)
			c.RegisterFlagCompletionFunc("dtype", completeValues(app.CreateTypes...))
		case "cp":
			// cp.go is written elsewhere: its completions are given here,
			// unless it gives its own.
			if c.ValidArgsFunction == nil {
				c.ValidArgsFunction = completeLocations(2)
			}
			if f := c.Flags().Lookup("to-format"); f != nil {
				c.RegisterFlagCompletionFunc("to-format", completeValues("3\tZarr v3"))
			}
			if f := c.Flags().Lookup("path"); f != nil {
				c.RegisterFlagCompletionFunc("path", completeNodes(set, false))
			}
		case "validate", "serve", "init", "version":
			c.ValidArgsFunction = cobra.NoFileCompletions // their file is -c's
		}
	}
}

// The formats of cat and write, for --format's completion and help.
var (
	catFormats   = []string{"json\tone JSON document: zarr_format, shape, data_type, data", "npy\tnumpy's .npy", "raw\tlittle-endian elements in C order"}
	writeFormats = []string{"npy\tnumpy's .npy", "raw\tthe selection's little-endian elements in C order"}
)
