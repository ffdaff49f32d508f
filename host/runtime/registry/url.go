package registry

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/zarrgw/zarrgw/core/store"
)

// OpenURL opens the store loc names: a URL whose scheme one of the set's
// stores declares (s3://bucket/prefix, https://host/dir/), or, without a
// scheme, a directory (a "file" URL). It is the store.URLOpener every
// store opened by these parts gets in its context (a references store
// reaches its target files through it).
func (p *Parts) OpenURL(ctx context.Context, loc string) (store.Store, error) {
	u := &url.URL{Scheme: "file", Path: loc}
	if strings.Contains(loc, "://") {
		var err error
		if u, err = url.Parse(loc); err != nil {
			return nil, fmt.Errorf("location %q: %w", loc, err)
		}
	}
	for _, r := range p.set.Stores {
		if !slices.Contains(r.Schemes, u.Scheme) {
			continue
		}
		config, err := r.FromURL(u)
		if err != nil {
			return nil, fmt.Errorf("location %q: %w", loc, err)
		}
		s, err := p.OpenStore(ctx, r.Manifest.Name, config)
		if err != nil {
			return nil, fmt.Errorf("location %q: %w", loc, err)
		}
		return s, nil
	}
	return nil, fmt.Errorf("location %q: unsupported scheme %q (known: %s)", loc, u.Scheme, strings.Join(Schemes(p.set), ", "))
}

// Schemes lists the LOCATION URL schemes the set's stores declare, as
// "s3://", sorted.
func Schemes(set Set) []string {
	var out []string
	for _, r := range set.Stores {
		for _, s := range r.Schemes {
			out = append(out, s+"://")
		}
	}
	sort.Strings(out)
	return out
}
