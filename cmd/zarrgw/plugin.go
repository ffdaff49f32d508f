package main

import (
	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/host/app"
)

// newPluginServe is "zarrgw plugin serve NAME": zarrgw run by itself (or
// another host) as the plugin of one of its extensions. It is hidden:
// people run plugins through a host, never by hand.
func newPluginServe(set app.Set) *cobra.Command {
	var kind string
	cmd := &cobra.Command{Use: "plugin", Short: "Run as a plugin (used by zarrgw itself)", Hidden: true,
		Example: "  zarrgw plugin serve zstd   # what a plugin block's args run; never by hand"}
	serve := &cobra.Command{
		Use:   "serve [--kind KIND] NAME",
		Short: "Serve one bundled codec, store or transformer as a plugin over stdin/stdout handshake",
		Example: `  # in a configuration, a bundled codec run out of process:
  #   plugin "zarrgw.dev/builtin/zstd" { path = "/usr/local/bin/zarrgw", args = ["plugin", "serve", "zstd"] }`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return app.ServePlugin(set, kind, args[0])
		},
	}
	serve.Flags().StringVar(&kind, "kind", "", "codec, store or transformer (default: whichever has the name)")
	cmd.AddCommand(serve)
	return cmd
}

// newPluginsList is "zarrgw plugins list": every bundled extension, and
// the extensions of the plugins a configuration declares and of the
// plugin binaries given with --plugin, which are started to ask them.
func newPluginsList(set app.Set) *cobra.Command {
	var binaries []string
	var file string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list [--config FILE] [--plugin PATH[@SHA256]]... [--json]",
		Short: "List bundled extensions and what a configuration's plugins and the given plugin binaries serve",
		Long: `List bundled extensions and what a configuration's plugins and the given plugin binaries serve,
starting each plugin to ask it. A plugin that cannot say makes the exit status 1.

With --json, one JSON document: format_version, extensions (name, kind, version, aliases, uris,
bundled, plugin, state, pid, restarts, error, overridden_by) and resolution.`,
		Example: `  zarrgw plugins list
  zarrgw plugins list -c zarrgw.hcl
  zarrgw plugins list --plugin ./bin/zarrgw-codec-xor
  zarrgw plugins list --json | jq -r '.extensions[] | select(.kind == "codec") | .name'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return app.ListPlugins(cmd.Context(), set, app.ListOptions{File: file, Binaries: binaries, JSON: asJSON,
				Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr()})
		},
	}
	cmd.Flags().StringArrayVar(&binaries, "plugin", nil, "a plugin binary to start and list, pinned as PATH@SHA256 (without a checksum, the file's current one is used)")
	addConfigFlag(cmd, &file)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON document (see above)")
	return cmd
}
