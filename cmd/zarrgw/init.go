package main

import (
	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/host/app"
)

// newInit is "zarrgw init": install the plugins a configuration gives by
// version, as "terraform init" installs providers, and record them in the
// lock file.
func newInit(set app.Set) *cobra.Command {
	var path string
	var upgrade bool
	cmd := &cobra.Command{
		Use:   "init -c FILE [-upgrade]",
		Short: "Install the plugins a configuration gives by version, and record them in its lock file (NAME.lock.hcl)",
		Long: `Installs each plugin whose block gives a version constraint: the version the lock file
pins, or with -upgrade (or when it pins none) the newest that meets the constraint, from the
installation sources of the CLI configuration ($` + app.CLIConfigEnv + `), through its plugin
cache. Each package is checked against the hashes its source states and the lock file records,
unpacked into .zarrgw/plugins beside the configuration, and started once to ask what it serves.
A plugin the CLI configuration's dev_overrides names is skipped: its development build runs as it is.

Each configuration file has a lock file of its own beside it: NAME.hcl's is NAME.lock.hcl
(zarrgw.hcl's, zarrgw.lock.hcl), so configurations sharing a directory lock independently. A
configuration without one yet reads the directory's zarrgw.lock.hcl, which earlier versions
shared, and init then writes its own, leaving that file as it is.`,
		Example: `  zarrgw init -c zarrgw.hcl
  zarrgw init -c zarrgw.hcl -upgrade
  ZARRGW_CLI_CONFIG_FILE=$PWD/cli.hcl zarrgw init -c prefix.hcl   # writes prefix.lock.hcl`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			file, err := configPath(path, args)
			if err != nil {
				return err
			}
			return app.Init(cmd.Context(), set, app.InitOptions{File: file, Upgrade: upgrade, Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr()})
		},
	}
	addConfigFlag(cmd, &path)
	cmd.Flags().BoolVar(&upgrade, "upgrade", false, "move each plugin to the newest version its constraint allows, whatever the lock file pins")
	return cmd
}
