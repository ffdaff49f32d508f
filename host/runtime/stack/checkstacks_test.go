package stack_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/host/runtime/stack"
)

// CheckStacks refuses a cache over the sharding transformer at the
// cache's block, as opening the dataset does, takes the cache below it,
// and opens nothing: the disk tier's directory is not made.
func TestCheckStacks(t *testing.T) {
	disk := filepath.Join(t.TempDir(), "cache")
	cache := fmt.Sprintf(`transformer "cache" {
    memory = "1MiB"
    disk { 
      path = %q
      size = "1MiB"
    }
  }
`, disk)
	sharding := `transformer "sharding" {
    chunks_per_shard = [2, 2]
  }
`
	for _, c := range []struct {
		name, stack string
		refused     bool
	}{
		{"cache over sharding", cache + "  " + sharding, true},
		{"sharding over cache", sharding + "  " + cache, false},
	} {
		src := `store "fs" "local" {
  root = "/tmp"
}
dataset "d" {
  store = store.fs.local
  ` + c.stack + `}
`
		cfg, diags := config.Parse([]byte(src), "/etc/zarrgw/check.hcl", registry.Bundled().Catalog())
		if diags.HasErrors() {
			t.Fatalf("%s: %s", c.name, diags.Error())
		}
		diags = stack.CheckStacks(context.Background(), cfg, registry.Bundled())
		switch {
		case !c.refused && len(diags) > 0:
			t.Errorf("%s: %s", c.name, diags.Error())
		case c.refused && (len(diags) != 1 || !strings.Contains(diags[0].Detail, "over the sharding transformer") ||
			diags[0].Subject == nil || diags[0].Subject.Start.Line != 6):
			t.Errorf("%s: %v, want one error at the cache's block (line 6)", c.name, diags)
		}
		if _, err := os.Stat(disk); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%s: the check made the disk tier's directory: %v", c.name, err)
		}
	}
}
