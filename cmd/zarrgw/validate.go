package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/host/app"
)

func newValidate(set app.Set) *cobra.Command {
	var path string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "validate --config FILE [--json]",
		Short: "Check a configuration file without serving: syntax, references, extension names and their configuration",
		Long: `Check a configuration file without serving: syntax, references, extension names and their
configuration (pinned plugins present here are started once to ask them), plugin binaries against
their pins, and the roots of fs stores (a root that does not exist is an error unless the store
block says create_root = true).

With --json, one JSON document on standard output instead of diagnostics on standard error:
format_version, file, valid, error_count, warning_count, diagnostics (severity, summary, detail,
range), lock_file, datasets, stores and plugins; the exit status is 1 when it is not valid.`,
		Example: `  zarrgw validate -c zarrgw.hcl
  zarrgw validate -c zarrgw.hcl --json | jq -r '.diagnostics[] | "\(.range.filename):\(.range.start.line): \(.summary)"'`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			file, err := configPath(path, args)
			if err != nil {
				return err
			}
			o := app.ValidateOptions{File: file, Stderr: cmd.ErrOrStderr()}
			if asJSON {
				report, err := app.ValidateReport(cmd.Context(), set, o)
				if err != nil {
					return err
				}
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				if err := enc.Encode(report); err != nil {
					return err
				}
				if !report.Valid {
					return exitCode{}
				}
				return nil
			}
			v, err := app.Validate(cmd.Context(), set, o)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: valid: %d datasets, %d stores, %d plugins\n",
				file, v.Datasets, v.Stores, v.Plugins)
			return nil
		},
	}
	addConfigFlag(cmd, &path)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as one JSON document (see above)")
	return cmd
}

func addConfigFlag(cmd *cobra.Command, path *string) {
	cmd.Flags().StringVarP(path, "config", "c", "", "configuration file (HCL)")
}

// configPath returns the configuration file named by --config. The
// Go-style "-config FILE" reaches the flag parser as the shorthand -c with
// the value "onfig" and FILE left over as an argument; it is taken to mean
// what its writer meant.
func configPath(flag string, args []string) (string, error) {
	if rest, ok := strings.CutPrefix(flag, "onfig="); ok && len(args) == 0 {
		return rest, nil
	}
	if flag == "onfig" && len(args) == 1 {
		return args[0], nil
	}
	if len(args) > 0 {
		return "", fmt.Errorf("unexpected argument %q (name the file with --config)", args[0])
	}
	if flag == "" {
		return "", fmt.Errorf("no configuration file: give --config FILE")
	}
	return flag, nil
}
