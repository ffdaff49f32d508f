package s3api

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/serve/identity"
	"github.com/zarrgw/zarrgw/host/serve/identity/sts"
	"github.com/zarrgw/zarrgw/host/serve/s3api/s3wire"
	"github.com/zarrgw/zarrgw/host/serve/server"
)

// newIssuer makes the S3 listener's session issuer; nil without an sts
// block.
func newIssuer(c *config.STS) (*sts.Issuer, error) {
	if c == nil {
		return nil, nil
	}
	is, err := sts.New(sts.Config{SealKeys: c.SealKeys, DefaultDuration: c.DefaultDuration, MaxDuration: c.MaxDuration})
	if err != nil {
		return nil, fmt.Errorf("s3 sts (%s): %w", config.At(c.DeclRange), err)
	}
	return is, nil
}

// sessionKey holds, in the context of a request being verified, where the
// verifier's Sessions hook leaves the session a security token opened.
type sessionKey struct{}

// sessionSlot is that place.
type sessionSlot struct{ s *sts.Session }

// withSessionSlot returns r with an empty slot, and the slot.
func withSessionSlot(r *http.Request) (*http.Request, *sessionSlot) {
	slot := &sessionSlot{}
	return r.WithContext(context.WithValue(r.Context(), sessionKey{}, slot)), slot
}

// openSession is the verifier's Sessions hook: a request carrying a
// security token is signed with that session's secret, which the token
// holds sealed. Without an sts block every security token is refused.
func (api *API) openSession(r *http.Request, accessKeyID string) (string, bool, error) {
	token, err := sts.SecurityToken(r, r.URL.Query())
	if err == nil && token == "" {
		return "", false, nil
	}
	if err == nil && api.issuer == nil {
		err = sts.ErrInvalid
	}
	var s sts.Session
	if err == nil {
		s, err = api.issuer.Open(accessKeyID, token)
	}
	if err != nil {
		code, msg, _ := sts.S3Error(err)
		return "", true, &sessionError{s3wire.Errorf(code, msg)}
	}
	if slot, ok := r.Context().Value(sessionKey{}).(*sessionSlot); ok {
		slot.s = &s
	}
	return s.SecretAccessKey, true, nil
}

// sessionError carries a session's S3 error through the verifier.
type sessionError struct{ e *s3wire.Error }

func (e *sessionError) Error() string { return e.e.Error() }

// s3FailureReason labels a failed S3 authentication for the metrics.
func s3FailureReason(err error) string {
	var e *s3wire.Error
	if !errors.As(err, &e) {
		return "error"
	}
	switch e.Code {
	case s3wire.ExpiredToken:
		return "session_expired"
	case s3wire.InvalidToken:
		return "session_invalid"
	case s3wire.InvalidAccessKeyID:
		return "unknown_access_key"
	case s3wire.SignatureDoesNotMatch:
		return "signature"
	case s3wire.RequestTimeTooSkewed:
		return "skewed"
	case s3wire.AccessDenied:
		return "expired_url"
	}
	return "malformed"
}

// failSTS answers a failed AssumeRoleWithWebIdentity in STS's form.
func (api *API) failSTS(req *s3Request, err error) {
	if over := (*server.RateError)(nil); errors.As(err, &over) {
		err = &sts.Error{Code: "Throttling", Message: "Rate exceeded", Status: http.StatusBadRequest, Type: sts.Sender}
	}
	req.info.Err = err
	if f := (*identity.Failure)(nil); errors.As(err, &f) && f.Err != nil {
		req.info.Err = fmt.Errorf("%v (%v)", err, f.Err) // the cause for the log, never for the client
	}
	api.g.Metrics.AuthFailure(stsReason(err))
	if werr := sts.WriteError(req.w, req.id, err); werr != nil {
		api.g.Log.Warn("writing an STS error", "error", werr)
	}
}

// issueSession answers STS's AssumeRoleWithWebIdentity: the role names a
// principal defined by claims, the web identity token must be one of its
// identity provider's and match them, and the session lasts what was
// asked within the bounds, never past the token's own expiry.
func (api *API) issueSession(req *s3Request) error {
	if api.issuer == nil {
		return sts.NewError(sts.CodeInvalidAction, "this gateway issues no temporary credentials: its s3 block has no sts block")
	}
	ar, err := sts.ParseAssumeRole(req.r)
	if err != nil {
		return err
	}
	if err := api.issuer.Validate(ar); err != nil {
		return err
	}
	principal := ar.Principal()
	id, err := api.g.IDs.WebIdentity(req.r.Context(), principal, ar.WebIdentityToken)
	if err != nil {
		return webIdentityError(err)
	}
	req.caller = identity.Caller{Principals: []string{principal}, Method: identity.JWT, Subject: id.Subject, Provider: id.Provider}
	req.info.Caller = req.caller
	web := sts.WebIdentity{Subject: id.Subject, Provider: id.Provider, Audience: firstAudience(id.Claims), Expiry: id.Expiry}
	creds, err := api.issuer.Issue(ar, web)
	if err != nil {
		return err
	}
	return sts.WriteResponse(req.w, req.id, ar, web, creds)
}

// webIdentityError maps a failed web identity onto STS's codes.
func webIdentityError(err error) error {
	var f *identity.Failure
	if !errors.As(err, &f) {
		return err
	}
	switch {
	case f.Reason == "provider_unavailable":
		return &sts.Error{Code: sts.CodeIDPCommunicationError, Message: f.Msg, Status: http.StatusBadRequest, Type: sts.Sender, Err: err}
	case f.Reason == "expired":
		return &sts.Error{Code: sts.CodeExpiredToken, Message: "Token has expired.", Status: http.StatusBadRequest, Type: sts.Sender, Err: err}
	case f.Reason == "role" || f.Reason == "claims":
		return &sts.Error{Code: sts.CodeAccessDenied, Message: f.Msg, Status: http.StatusForbidden, Type: sts.Sender, Err: err}
	}
	return &sts.Error{Code: sts.CodeInvalidIdentityToken, Message: f.Msg, Status: http.StatusBadRequest, Type: sts.Sender, Err: err}
}

// stsReason labels a refused AssumeRoleWithWebIdentity for the metrics.
func stsReason(err error) string {
	var f *identity.Failure
	if errors.As(err, &f) {
		return "sts_" + f.Reason
	}
	var e *sts.Error
	if errors.As(err, &e) {
		return "sts_request"
	}
	return "sts_error"
}

// firstAudience is the token's audience as STS's answer names it.
func firstAudience(claims map[string]any) string {
	switch aud := claims["aud"].(type) {
	case string:
		return aud
	case []any:
		if len(aud) > 0 {
			s, _ := aud[0].(string)
			return s
		}
	}
	return ""
}

// sessionIn is the session a slot holds; nil without a slot or session.
func sessionIn(slot *sessionSlot) *sts.Session {
	if slot == nil {
		return nil
	}
	return slot.s
}
