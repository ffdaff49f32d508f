package store

import "context"

// URLOpener opens the store holding the object a URL names, for stores
// whose values live in other stores (a references store's target files):
// the store and the object's key in it. The host implements it over its
// configured stores and LOCATION URLs; a store that needs one is handed
// it, and never opens stores of its own.
type URLOpener interface {
	OpenURL(ctx context.Context, url string) (s Store, key string, err error)
}
