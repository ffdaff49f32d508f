package main

import (
	"regexp"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// longFlag is a single-dash flag written Go's (and Terraform's) way:
// -upgrade, -platform=linux_amd64.
var longFlag = regexp.MustCompile(`^-([a-z][a-z0-9-]+)(=.*)?$`)

// goStyleFlags rewrites -name and -name=value as --name and --name=value
// wherever name is the long name of a flag of some command, so that
// "zarrgw init -upgrade" and "zarrgw plugins lock -platform=linux_arm64"
// read as Terraform's do; the flag parser would take -upgrade for -u -p
// -g ... Arguments after "--" are left alone.
func goStyleFlags(root *cobra.Command, args []string) []string {
	names := map[string]bool{}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) { names[f.Name] = true })
		c.PersistentFlags().VisitAll(func(f *pflag.Flag) { names[f.Name] = true })
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if a == "--" {
			copy(out[i:], args[i:])
			break
		}
		if m := longFlag.FindStringSubmatch(a); m != nil && names[m[1]] {
			out[i] = "-" + a
		}
	}
	return out
}
