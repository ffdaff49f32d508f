package store

import (
	"context"
	"errors"
	"net/netip"
	"strings"
)

// WithheldError is an error whose detail is for the operator (the
// server's log, the CLI) and not for a gateway's clients: a store wraps
// an error in it when the detail names what the client did not choose and
// must not learn, such as a reference set's target file or URL. Error
// gives the whole story; Public is what clients are told in its place.
type WithheldError struct {
	Public string
	Err    error
}

// Withhold wraps err so that clients read public instead of its text.
func Withhold(public string, err error) error {
	return &WithheldError{Public: public, Err: err}
}

func (e *WithheldError) Error() string { return e.Err.Error() }
func (e *WithheldError) Unwrap() error { return e.Err }

// PublicText is err's text with the detail of every WithheldError in it
// replaced by its public text: what a server may show its clients. The
// errors wrapping a withheld one keep their words (which array, which
// key) as long as they wrap it with %w.
func PublicText(err error) string {
	text := err.Error()
	for _, w := range withheld(err) {
		text = strings.ReplaceAll(text, w.Err.Error(), w.Public)
	}
	return text
}

// withheld lists the outermost WithheldErrors in err's tree (an inner one
// is replaced along with the outer one holding it).
func withheld(err error) []*WithheldError {
	switch u := err.(type) {
	case *WithheldError:
		return []*WithheldError{u}
	case interface{ Unwrap() error }:
		if inner := u.Unwrap(); inner != nil {
			return withheld(inner)
		}
	case interface{ Unwrap() []error }:
		var out []*WithheldError
		for _, inner := range u.Unwrap() {
			if inner != nil {
				out = append(out, withheld(inner)...)
			}
		}
		return out
	}
	return nil
}

// ErrAddressRefused means a store opened by URL was about to connect to
// a network address its opener does not allow (a loopback, private or
// link-local address a host name resolved to). It is not transient:
// retrying reaches the same address.
var ErrAddressRefused = errors.New("network address refused")

// AddressCheck vets each network address a store opened by URL is about
// to connect to, after its host name is resolved, so that a name whose
// answers change between a check and the connection cannot reach what a
// check of the name would have refused. An error refuses the connection;
// it wraps ErrAddressRefused.
type AddressCheck func(netip.Addr) error

type addressCheckKey struct{}

// WithAddressCheck returns ctx carrying check, for the stores opened with
// it that make network connections (the http store): a references store
// opens its targets' stores with one.
func WithAddressCheck(ctx context.Context, check AddressCheck) context.Context {
	return context.WithValue(ctx, addressCheckKey{}, check)
}

// AddressCheckFrom returns the check ctx carries.
func AddressCheckFrom(ctx context.Context) (AddressCheck, bool) {
	c, ok := ctx.Value(addressCheckKey{}).(AddressCheck)
	return c, ok && c != nil
}
