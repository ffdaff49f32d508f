package main

import (
	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/host/app"
)

// addLocationFlags adds --config to a command whose LOCATION is a
// directory, or with --config, a dataset of that configuration.
func addLocationFlags(cmd *cobra.Command, path *string) {
	cmd.Flags().StringVarP(path, "config", "c", "", "configuration file (HCL); LOCATION is then one of its datasets")
}

// onLocation is the RunE of a command on LOCATION: it opens it (with
// --config, as a dataset of that configuration), runs fn, and closes it,
// ending any plugin processes.
func onLocation(set app.Set, configFile *string, fn func(*cobra.Command, *app.Target) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		t, err := app.Open(cmd.Context(), set, *configFile, args[0], cmd.ErrOrStderr())
		if err != nil {
			return err
		}
		defer t.Close()
		return t.Redact(fn(cmd, t))
	}
}
