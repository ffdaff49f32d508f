package main

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/host/app/location"
	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
)

func newValidate(set registry.Set) *cobra.Command {
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
			// Pinned plugins present on this machine are started once to ask
			// what they serve, so their blocks are checked against their schemas.
			logger := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn}))
			opts, err := location.ConfigOptions(cmd.Context(), set, file, logger)
			if err != nil {
				return err
			}
			if asJSON {
				cfg, diags := config.CheckDiagnostics(file, opts)
				report := config.NewReport(cfg, diags)
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
			cfg, err := config.Check(file, opts, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: valid: %d datasets, %d stores, %d plugins\n",
				file, len(cfg.Datasets), len(cfg.Stores), len(cfg.Plugins))
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
