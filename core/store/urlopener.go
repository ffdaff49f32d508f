package store

import "context"

// URLOpener opens the store a location URL names (a directory, a bucket
// and prefix, a web directory: "s3://bucket/nc/", "/data/nc/"), for
// stores whose values live in other stores (a references store's target
// files). The host implements it over the store types whose URL schemes
// it knows; a store that needs one takes it from the context it is
// opened with (URLOpenerFrom) and never opens stores of its own.
type URLOpener interface {
	OpenURL(ctx context.Context, url string) (Store, error)
}

type urlOpenerKey struct{}

// WithURLOpener returns ctx carrying o, for the stores opened with it.
func WithURLOpener(ctx context.Context, o URLOpener) context.Context {
	return context.WithValue(ctx, urlOpenerKey{}, o)
}

// URLOpenerFrom returns the opener ctx carries.
func URLOpenerFrom(ctx context.Context) (URLOpener, bool) {
	o, ok := ctx.Value(urlOpenerKey{}).(URLOpener)
	return o, ok
}
