package sts

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Namespace is the XML namespace of STS's documents.
const Namespace = "https://sts.amazonaws.com/doc/2011-06-15/"

// STS error codes: those AssumeRoleWithWebIdentity answers (in botocore's
// and aws-sdk-go-v2's models, so SDKs raise their typed exceptions), the
// common ones of AWS's query APIs, and two HTTP-level ones of ours.
const (
	CodeInvalidIdentityToken  = "InvalidIdentityToken"  // 400: the web identity token does not verify
	CodeExpiredToken          = "ExpiredTokenException" // 400: the web identity token has expired
	CodeIDPRejectedClaim      = "IDPRejectedClaim"      // 403: the token verifies, but a claim is refused
	CodeIDPCommunicationError = "IDPCommunicationError" // 400: the provider's keys could not be fetched
	CodeAccessDenied          = "AccessDenied"          // 403: the role's principal does not accept the token
	CodeValidationError       = "ValidationError"       // 400
	CodeInvalidParameterValue = "InvalidParameterValue" // 400
	CodeMissingParameter      = "MissingParameter"      // 400
	CodeMissingAction         = "MissingAction"         // 400
	CodeInvalidAction         = "InvalidAction"         // 400
	CodeMalformedQueryString  = "MalformedQueryString"  // 400 (AWS documents 404; a bad form is a bad request)
	CodeRequestEntityTooLarge = "RequestEntityTooLarge" // 413: the body is over MaxBody
	CodeMethodNotAllowed      = "MethodNotAllowed"      // 405
	CodeInternalFailure       = "InternalFailure"       // 500
	CodeServiceUnavailable    = "ServiceUnavailable"    // 503
)

// Who is at fault, STS's Type element.
const (
	Sender   = "Sender"
	Receiver = "Receiver"
)

// statuses are the HTTP statuses of the codes above; other codes are 400.
var statuses = map[string]int{
	CodeIDPRejectedClaim:      http.StatusForbidden,
	CodeAccessDenied:          http.StatusForbidden,
	CodeRequestEntityTooLarge: http.StatusRequestEntityTooLarge,
	CodeMethodNotAllowed:      http.StatusMethodNotAllowed,
	CodeInternalFailure:       http.StatusInternalServerError,
	CodeServiceUnavailable:    http.StatusServiceUnavailable,
}

// Error is an STS error, answered as STS's ErrorResponse by WriteError.
type Error struct {
	Code    string
	Message string // sent to the client: never a token or secret
	Status  int
	Type    string // Sender or Receiver
	// Err is the cause, for the gateway's log only (never sent).
	Err error
}

// NewError is an error with code's HTTP status and fault (Receiver for
// 5xx statuses).
func NewError(code, message string) *Error {
	status, ok := statuses[code]
	if !ok {
		status = http.StatusBadRequest
	}
	e := &Error{Code: code, Message: message, Status: status, Type: Sender}
	if status >= 500 {
		e.Type = Receiver
	}
	return e
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Code + ": " + e.Message + " (" + e.Err.Error() + ")"
	}
	return e.Code + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// validation is a ValidationError in STS's words: "1 validation error
// detected: ...", several joined by "; ".
func validation(problems ...string) *Error {
	head := "1 validation error detected: "
	if len(problems) > 1 {
		head = strconv.Itoa(len(problems)) + " validation errors detected: "
	}
	return NewError(CodeValidationError, head+strings.Join(problems, "; "))
}

// invalidArn is STS's answer to a RoleArn it cannot read, with the reason.
func invalidArn(err error) *Error {
	return NewError(CodeValidationError, "Request ARN is invalid: "+err.Error()+".")
}

// internal is a failure of ours; the cause goes to the log, not the client.
func internal(err error) *Error {
	e := NewError(CodeInternalFailure, "The request processing has failed because of an unknown error.")
	e.Err = err
	return e
}

type assumeRoleResponse struct {
	XMLName   xml.Name         `xml:"https://sts.amazonaws.com/doc/2011-06-15/ AssumeRoleWithWebIdentityResponse"`
	Result    assumeRoleResult `xml:"AssumeRoleWithWebIdentityResult"`
	RequestID string           `xml:"ResponseMetadata>RequestId"`
}

// assumeRoleResult is in the order of AWS's own example response.
type assumeRoleResult struct {
	SubjectFromWebIdentityToken string
	Audience                    string `xml:",omitempty"`
	AssumedRoleUser             struct {
		Arn           string
		AssumedRoleID string `xml:"AssumedRoleId"`
	}
	Credentials struct {
		SessionToken    string
		SecretAccessKey string
		Expiration      string
		AccessKeyID     string `xml:"AccessKeyId"`
	}
	Provider string `xml:",omitempty"`
}

type errorResponse struct {
	XMLName xml.Name `xml:"https://sts.amazonaws.com/doc/2011-06-15/ ErrorResponse"`
	Error   struct {
		Type    string
		Code    string
		Message string
	}
	RequestID string `xml:"RequestId"`
}

// ExpirationFormat is how STS writes an expiry: RFC 3339 in UTC, whole
// seconds ("2026-05-04T13:00:00Z").
const ExpirationFormat = "2006-01-02T15:04:05Z"

// AssumedRoleArn is the ARN of a session, as STS forms it from the role's
// ARN: arn:PARTITION:sts::ACCOUNT:assumed-role/NAME/SESSION. A role ARN
// that does not parse gives "".
func AssumedRoleArn(roleArn, sessionName string) string {
	parts := strings.SplitN(roleArn, ":", 6)
	name, err := PrincipalFromRoleArn(roleArn)
	if err != nil {
		return ""
	}
	return "arn:" + parts[1] + ":sts::" + parts[4] + ":assumed-role/" + name + "/" + sessionName
}

// WriteResponse answers an AssumeRoleWithWebIdentity request with the
// credentials Issue made, as STS does (text/xml). The response holds a
// secret: it is marked not to be stored by caches.
func WriteResponse(w http.ResponseWriter, requestID string, req AssumeRoleRequest, id WebIdentity, c Credentials) error {
	var doc assumeRoleResponse
	res := &doc.Result
	res.SubjectFromWebIdentityToken = id.Subject
	res.Audience = id.Audience
	res.Provider = id.Provider
	res.AssumedRoleUser.Arn = AssumedRoleArn(req.RoleArn, req.RoleSessionName)
	// STS's is ROLEID:SESSION; a principal's name is its role's id here
	res.AssumedRoleUser.AssumedRoleID = req.Principal() + ":" + req.RoleSessionName
	res.Credentials.AccessKeyID = c.AccessKeyID
	res.Credentials.SecretAccessKey = c.SecretAccessKey
	res.Credentials.SessionToken = c.SessionToken
	res.Credentials.Expiration = c.Expiration.UTC().Format(ExpirationFormat)
	doc.RequestID = requestID
	w.Header().Set("Cache-Control", "no-store")
	return writeXML(w, requestID, http.StatusOK, doc)
}

// WriteError answers an STS request with STS's ErrorResponse: err's code,
// message and status when it is an *Error (errors.As), else
// InternalFailure (500), whose message never repeats err.
func WriteError(w http.ResponseWriter, requestID string, err error) error {
	var e *Error
	if !errors.As(err, &e) {
		e = internal(err)
	}
	var doc errorResponse
	status := e.Status
	if status < 400 || status > 599 {
		status = http.StatusBadRequest
	}
	doc.Error.Type, doc.Error.Code, doc.Error.Message = e.Type, e.Code, e.Message
	if doc.Error.Type == "" {
		doc.Error.Type = Sender
		if status >= 500 {
			doc.Error.Type = Receiver
		}
	}
	doc.RequestID = requestID
	return writeXML(w, requestID, status, doc)
}

func writeXML(w http.ResponseWriter, requestID string, status int, doc any) error {
	var buf bytes.Buffer
	if err := xml.NewEncoder(&buf).Encode(doc); err != nil {
		http.Error(w, "the response could not be encoded", http.StatusInternalServerError)
		return fmt.Errorf("encoding the STS response: %w", err)
	}
	h := w.Header()
	h.Set("Content-Type", "text/xml")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	if requestID != "" {
		h.Set("X-Amzn-Requestid", requestID) // STS's request id header
	}
	w.WriteHeader(status)
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("writing the STS response: %w", err)
	}
	return nil
}
