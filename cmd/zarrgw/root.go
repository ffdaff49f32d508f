package main

import (
	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/host/app"
)

// newRoot is the command line of a zarrgw binary whose extensions are set:
// every command opens, checks, lists and serves extensions through it.
func newRoot(set app.Set) *cobra.Command {
	root := &cobra.Command{
		Use:   "zarrgw",
		Short: "Zarr engine and gateway",
		Example: `  zarrgw inspect data.zarr
  zarrgw cat data.zarr --path t2m --slice 0:10,0:5
  zarrgw serve -c zarrgw.hcl
  zarrgw completion bash > /etc/bash_completion.d/zarrgw`,
		Version:       currentBuild().Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("{{printf \"%s\" .Annotations.versionText}}")
	root.Annotations = map[string]string{"versionText": currentBuild().text()}
	plugins := newPlugins(set)
	plugins.AddCommand(newPluginsList(set))
	serve := newServe(set)
	serve.Example = `  zarrgw serve -c zarrgw.hcl
  zarrgw serve -c zarrgw.hcl --listen 0.0.0.0:8080
  zarrgw serve -c zarrgw.hcl --s3-listen 127.0.0.1:9000`
	root.AddCommand(newInspect(set), newCat(set), newCreate(set), newWrite(set), newCp(set), newValidate(set), serve, newInit(set), plugins, newPluginServe(set), newVersion())
	// Made now rather than when the command runs, so that goStyleFlags
	// knows -version and the completion command has its examples.
	root.InitDefaultVersionFlag()
	root.Flags().Lookup("version").Usage = "print the version, commit, Go version, plugin protocol versions and zstd library (as zarrgw version)"
	root.InitDefaultHelpFlag()
	root.InitDefaultCompletionCmd()
	root.InitDefaultHelpCmd()
	for _, c := range root.Commands() {
		if c.Name() == "help" {
			c.Example = "  zarrgw help cat\n  zarrgw help plugins lock"
		}
		if c.Name() == "completion" {
			c.Example = `  source <(zarrgw completion bash)
  zarrgw completion zsh > "${fpath[1]}/_zarrgw"
  zarrgw completion fish > ~/.config/fish/completions/zarrgw.fish`
			for _, sh := range c.Commands() {
				sh.Example = "  zarrgw completion " + sh.Name() + " --help"
			}
		}
	}
	registerCompletions(root, set)
	return root
}
