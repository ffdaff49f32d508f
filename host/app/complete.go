package app

import (
	"context"
	"io"

	"github.com/zarrgw/zarrgw/host/app/location"
	"github.com/zarrgw/zarrgw/host/runtime/config"
)

// What shell completion offers: the datasets of a configuration, the
// nodes of a location.

// DatasetNames are the names of the datasets file declares, read without
// evaluating the rest of it (a completion must not start plugins).
func DatasetNames(file string) ([]string, error) { return config.DatasetNames(file) }

// NodesAt lists the node paths (arrays only, when arrays) of loc: a
// dataset of configFile when one is given, else a directory or URL. What
// it reads is bounded (maxWalk); ctx bounds how long.
func NodesAt(ctx context.Context, set Set, configFile, loc string, arrays bool) ([]string, error) {
	t, err := location.Resolve(ctx, set, configFile, loc, io.Discard)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	return NodePaths(ctx, t.Store, arrays), nil
}
