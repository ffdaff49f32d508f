// Package s3wire is the wire format of the S3 API: the XML documents of
// requests and responses, and S3's error codes with their HTTP statuses.
// It knows nothing of datasets or stores; the gateway maps its requests
// onto them.
package s3wire

import (
	"encoding/xml"
	"net/http"
)

// Error is an S3 error: a code from S3's list, with the HTTP status that
// code is answered with.
type Error struct {
	Code    string
	Message string
	Status  int
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// The S3 error codes the gateway answers with.
const (
	AccessDenied                 = "AccessDenied"
	AuthorizationHeaderMalformed = "AuthorizationHeaderMalformed"
	BadDigest                    = "BadDigest"
	BucketAlreadyExists          = "BucketAlreadyExists"
	BucketAlreadyOwnedByYou      = "BucketAlreadyOwnedByYou"
	BucketNotEmpty               = "BucketNotEmpty"
	EntityTooLarge               = "EntityTooLarge"
	EntityTooSmall               = "EntityTooSmall"
	InternalError                = "InternalError"
	InvalidAccessKeyID           = "InvalidAccessKeyId"
	InvalidArgument              = "InvalidArgument"
	InvalidBucketName            = "InvalidBucketName"
	InvalidDigest                = "InvalidDigest"
	InvalidPart                  = "InvalidPart"
	InvalidPartOrder             = "InvalidPartOrder"
	InvalidRange                 = "InvalidRange"
	InvalidRequest               = "InvalidRequest"
	MalformedXML                 = "MalformedXML"
	MethodNotAllowed             = "MethodNotAllowed"
	MissingContentLength         = "MissingContentLength"
	NoSuchBucket                 = "NoSuchBucket"
	NoSuchKey                    = "NoSuchKey"
	NoSuchUpload                 = "NoSuchUpload"
	NotImplemented               = "NotImplemented"
	PreconditionFailed           = "PreconditionFailed"
	RequestTimeTooSkewed         = "RequestTimeTooSkewed"
	ServiceUnavailable           = "ServiceUnavailable"
	SignatureDoesNotMatch        = "SignatureDoesNotMatch"
	SlowDown                     = "SlowDown"
	XAmzContentSHA256Mismatch    = "XAmzContentSHA256Mismatch"
)

// statuses are the HTTP statuses of the codes.
var statuses = map[string]int{
	AccessDenied: 403, AuthorizationHeaderMalformed: 400, BadDigest: 400, BucketAlreadyExists: 409, BucketAlreadyOwnedByYou: 409,
	BucketNotEmpty: 409, EntityTooLarge: 400, EntityTooSmall: 400, InternalError: 500, InvalidAccessKeyID: 403,
	InvalidArgument: 400, InvalidBucketName: 400, InvalidDigest: 400, InvalidPart: 400, InvalidPartOrder: 400,
	InvalidRange: 416, InvalidRequest: 400, MalformedXML: 400, MethodNotAllowed: 405, MissingContentLength: 411,
	NoSuchBucket: 404, NoSuchKey: 404, NoSuchUpload: 404, NotImplemented: 501, PreconditionFailed: 412,
	RequestTimeTooSkewed: 403, ServiceUnavailable: 503, SignatureDoesNotMatch: 403, SlowDown: 503,
	XAmzContentSHA256Mismatch: 400,
}

// messages are S3's own texts for the codes whose details the client
// has no business with (a store's paths, a backend's failure): the
// gateway answers these and logs the detail.
var messages = map[string]string{
	NoSuchKey:          "The specified key does not exist.",
	PreconditionFailed: "At least one of the pre-conditions you specified did not hold",
	InvalidRange:       "The requested range is not satisfiable",
	EntityTooLarge:     "Your proposed upload exceeds the maximum allowed size",
	AccessDenied:       "Access Denied",
	InternalError:      "We encountered an internal error. Please try again.",
	InvalidRequest:     "Invalid Request",
}

// Message returns S3's text for code, or "" for codes without one here.
func Message(code string) string { return messages[code] }

// Errorf is an error of code with a message.
func Errorf(code, message string) *Error {
	status, ok := statuses[code]
	if !ok {
		status = http.StatusInternalServerError
	}
	return &Error{Code: code, Message: message, Status: status}
}

// errorDoc is S3's error document.
type errorDoc struct {
	XMLName   xml.Name `xml:"Error"`
	Code      string
	Message   string
	Resource  string `xml:",omitempty"`
	RequestID string `xml:"RequestId"`
}

// WriteError answers with e as S3 does: its status and an XML document
// (HEAD answers carry no body, the code goes in a header only).
func WriteError(w http.ResponseWriter, r *http.Request, e *Error, resource, requestID string) {
	h := w.Header()
	h.Set("Content-Type", "application/xml")
	h.Set("X-Amz-Request-Id", requestID)
	h.Set("X-Amz-Error-Code", e.Code)
	w.WriteHeader(e.Status)
	if r.Method == http.MethodHead {
		return
	}
	writeXML(w, errorDoc{Code: e.Code, Message: e.Message, Resource: resource, RequestID: requestID})
}

// WriteXML answers 200 with doc.
func WriteXML(w http.ResponseWriter, doc any) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(http.StatusOK)
	writeXML(w, doc)
}

func writeXML(w http.ResponseWriter, doc any) {
	w.Write([]byte(xml.Header))
	xml.NewEncoder(w).Encode(doc)
}
