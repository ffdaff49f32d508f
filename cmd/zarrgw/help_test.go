package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/host/app"
)

// Every command's --help ends with examples, each line of which runs
// zarrgw or is a comment (cp's, written with cp, are its own business).
func TestEveryCommandHasExamples(t *testing.T) {
	root := newRoot(app.Bundled())
	var walk func(*cobra.Command)
	n := 0
	walk = func(c *cobra.Command) {
		n++
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%s has no examples", c.CommandPath())
		}
		for _, line := range strings.Split(c.Example, "\n") {
			if c.Name() == "cp" {
				break
			}
			line = strings.TrimSpace(line)
			if line != "" && !strings.Contains(line, "zarrgw") && !strings.HasPrefix(line, "#") {
				t.Errorf("%s: example %q does not run zarrgw", c.CommandPath(), line)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if n < 15 {
		t.Errorf("only %d commands", n)
	}
}
