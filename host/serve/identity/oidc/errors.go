package oidc

import (
	"errors"
	"fmt"
)

// Why Verify refused a token: the values of Error.Reason, stable so that
// failures can be counted by reason.
const (
	// ReasonMalformed: not a JWT, or claims that are not what OpenID
	// Connect says (no exp, no sub, a time that is not a number).
	ReasonMalformed = "malformed"
	// ReasonAlgorithm: signed with an algorithm not allowed (none and
	// HS256 among them).
	ReasonAlgorithm = "algorithm"
	// ReasonUnknownKey: signed with a key ID the provider does not
	// publish, even after fetching its keys again (or within
	// MinRefetch of the last fetch).
	ReasonUnknownKey = "unknown_key"
	// ReasonSignature: the signature does not verify with the
	// provider's key of that ID (or, without a key ID, with any of its
	// keys).
	ReasonSignature = "signature"
	// ReasonIssuer: "iss" is not the provider's issuer.
	ReasonIssuer = "issuer"
	// ReasonAudience: "aud" contains none of the configured audiences.
	ReasonAudience = "audience"
	// ReasonExpired: "exp" passed more than the leeway ago.
	ReasonExpired = "expired"
	// ReasonNotYetValid: "nbf" or "iat" is later than now plus the
	// leeway.
	ReasonNotYetValid = "not_yet_valid"
	// ReasonProviderUnavailable: the discovery document or the keys
	// could not be fetched (or were unusable), so the token could not be
	// checked; this is the provider's failure, or the configuration's,
	// not the token's.
	ReasonProviderUnavailable = "provider_unavailable"
)

// Error is why Verify refused a token. Its message names the provider and
// the reason and says what failed, but never quotes the token: it holds
// nothing taken from it.
type Error struct {
	// Provider is the provider's Config.Name.
	Provider string
	// Reason is one of the Reason constants.
	Reason string
	detail string
	// err is the cause of a failed fetch (ReasonProviderUnavailable),
	// or the context's error when the wait for one ended.
	err error
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("identity provider %q: %s: %s", e.Provider, e.Reason, e.detail)
	if e.err != nil {
		msg += ": " + e.err.Error()
	}
	return msg
}

// Unwrap returns the cause of a fetch that failed, if any.
func (e *Error) Unwrap() error { return e.err }

// Reason returns the reason of an error from Verify (one of the Reason
// constants), or "" for nil or an error that is not from this package.
func Reason(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ""
}
