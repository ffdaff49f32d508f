// Package location opens the place a command names (a directory today;
// cloud and HTTP URLs as their stores arrive) as a store.
package location

import (
	"fmt"
	"os"
	"strings"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/stores/fs"
)

// Open returns a store for loc: a directory path or a file:// URL.
func Open(loc string) (store.Store, error) {
	path := strings.TrimPrefix(loc, "file://")
	if strings.Contains(path, "://") {
		return nil, fmt.Errorf("location %q: unsupported scheme (use a directory path)", loc)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("location %q: %w", loc, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("location %q: not a directory", loc)
	}
	return fs.New(path)
}
