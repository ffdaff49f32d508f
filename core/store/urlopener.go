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

// DeclaredOpener opens a store declared in the host's configuration by
// its identity, "store.TYPE.NAME" (what a reference to it evaluates to in
// a configuration), for a store whose configuration names others (a
// references store's targets, each with its own credentials). The store
// returned is the host's, shared with the datasets over it: the caller
// must not close it. A store calls it when it first reads a target, never
// while it is being opened (the host opens one store at a time).
type DeclaredOpener interface {
	OpenDeclared(ctx context.Context, ref string) (Store, error)
}

type declaredOpenerKey struct{}

// WithDeclaredOpener returns ctx carrying o, for the stores opened with it.
func WithDeclaredOpener(ctx context.Context, o DeclaredOpener) context.Context {
	return context.WithValue(ctx, declaredOpenerKey{}, o)
}

// DeclaredOpenerFrom returns the opener ctx carries.
func DeclaredOpenerFrom(ctx context.Context) (DeclaredOpener, bool) {
	o, ok := ctx.Value(declaredOpenerKey{}).(DeclaredOpener)
	return o, ok
}
