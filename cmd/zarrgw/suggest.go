package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// oneLocation is the Args of a command on one LOCATION with a --path: a
// second argument is taken for the node path it probably is.
func oneLocation(cmd *cobra.Command, args []string) error {
	switch {
	case len(args) == 1:
		return nil
	case len(args) == 0:
		return fmt.Errorf("give a LOCATION: %s (see zarrgw %s --help)", cmd.UseLine(), cmd.Name())
	case len(args) == 2 && cmd.Flags().Lookup("path") != nil && !cmd.Flags().Changed("path"):
		return fmt.Errorf("%s takes one LOCATION, and %q is a second: did you mean: %s", cmd.CommandPath(), args[1], suggestPath(cmd, args))
	}
	return fmt.Errorf("%s takes one LOCATION, not %d arguments (%s)", cmd.CommandPath(), len(args), strings.Join(args, " "))
}

// suggestPath is the command line with its second argument given as
// --path, and the flags that were given.
func suggestPath(cmd *cobra.Command, args []string) string {
	parts := []string{cmd.CommandPath()}
	if f := cmd.Flags().Lookup("config"); f != nil && f.Changed {
		parts = append(parts, "-c", shellWord(f.Value.String()))
	}
	parts = append(parts, shellWord(args[0]), "--path", shellWord(args[1]))
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if f.Name != "config" {
			parts = append(parts, "--"+f.Name, shellWord(f.Value.String()))
		}
	})
	return strings.Join(parts, " ")
}

// shellWord quotes s for a shell when it needs it.
func shellWord(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:,=@+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
