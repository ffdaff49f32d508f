package main

import (
	"slices"
	"testing"

	"github.com/zarrgw/zarrgw/host/app"
)

// Flags written Go's way, with one dash, read as Terraform users write
// them; short flags, values and what follows "--" are left alone.
func TestGoStyleFlags(t *testing.T) {
	root := newRoot(app.Set{})
	in := []string{"plugins", "lock", "-c", "x.hcl", "-platform=linux_arm64", "-platform", "darwin_arm64", "-upgrade", "-nosuchflag", "--slice", "-1:", "--", "-config"}
	want := []string{"plugins", "lock", "-c", "x.hcl", "--platform=linux_arm64", "--platform", "darwin_arm64", "--upgrade", "-nosuchflag", "--slice", "-1:", "--", "-config"}
	if got := goStyleFlags(root, in); !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
