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
	Detail  string // for the gateway's log only, beside Message
	// Fields are the elements S3 adds to some errors' documents (Region
	// of a malformed authorization, which SDKs follow to the right region;
	// AWSAccessKeyId; Method and ResourceType), in order.
	Fields []Field
}

// Field is an element of an error document beyond Code and Message.
type Field struct {
	XMLName xml.Name
	Value   string `xml:",chardata"`
}

// With returns e with the element name=value added.
func (e *Error) With(name, value string) *Error {
	out := *e
	out.Fields = append(append([]Field(nil), e.Fields...), Field{XMLName: xml.Name{Local: name}, Value: value})
	return &out
}

func (e *Error) Error() string {
	if e.Detail != "" {
		return e.Code + ": " + e.Message + " (" + e.Detail + ")"
	}
	return e.Code + ": " + e.Message
}

// The S3 error codes the gateway answers with.
const (
	AccessDenied                 = "AccessDenied"
	AuthorizationHeaderMalformed = "AuthorizationHeaderMalformed"
	// AuthorizationQueryParametersError is a malformed presigned URL.
	AuthorizationQueryParametersError = "AuthorizationQueryParametersError"
	BadDigest                         = "BadDigest"
	BucketAlreadyExists               = "BucketAlreadyExists"
	BucketAlreadyOwnedByYou           = "BucketAlreadyOwnedByYou"
	BucketNotEmpty                    = "BucketNotEmpty"
	EntityTooLarge                    = "EntityTooLarge"
	EntityTooSmall                    = "EntityTooSmall"
	ExpiredToken                      = "ExpiredToken"
	InternalError                     = "InternalError"
	InvalidAccessKeyID                = "InvalidAccessKeyId"
	InvalidArgument                   = "InvalidArgument"
	InvalidBucketName                 = "InvalidBucketName"
	InvalidDigest                     = "InvalidDigest"
	InvalidPart                       = "InvalidPart"
	InvalidPartOrder                  = "InvalidPartOrder"
	InvalidRange                      = "InvalidRange"
	InvalidRequest                    = "InvalidRequest"
	InvalidToken                      = "InvalidToken"
	KeyTooLongError                   = "KeyTooLongError"
	MalformedXML                      = "MalformedXML"
	MethodNotAllowed                  = "MethodNotAllowed"
	MissingContentLength              = "MissingContentLength"
	NoSuchBucket                      = "NoSuchBucket"
	NoSuchKey                         = "NoSuchKey"
	NoSuchUpload                      = "NoSuchUpload"
	NotImplemented                    = "NotImplemented"
	PreconditionFailed                = "PreconditionFailed"
	RequestTimeTooSkewed              = "RequestTimeTooSkewed"
	RequestTimeout                    = "RequestTimeout"
	ServiceUnavailable                = "ServiceUnavailable"
	SignatureDoesNotMatch             = "SignatureDoesNotMatch"
	SlowDown                          = "SlowDown"
	XAmzContentSHA256Mismatch         = "XAmzContentSHA256Mismatch"
)

// statuses are the HTTP statuses of the codes.
var statuses = map[string]int{
	AccessDenied: 403, AuthorizationHeaderMalformed: 400, AuthorizationQueryParametersError: 400, BadDigest: 400, BucketAlreadyExists: 409, BucketAlreadyOwnedByYou: 409,
	BucketNotEmpty: 409, EntityTooLarge: 400, EntityTooSmall: 400, InternalError: 500, InvalidAccessKeyID: 403,
	InvalidArgument: 400, InvalidBucketName: 400, InvalidDigest: 400, InvalidPart: 400, InvalidPartOrder: 400,
	InvalidRange: 416, InvalidRequest: 400, KeyTooLongError: 400, MalformedXML: 400, MethodNotAllowed: 405, MissingContentLength: 411,
	NoSuchBucket: 404, NoSuchKey: 404, NoSuchUpload: 404, NotImplemented: 501, PreconditionFailed: 412,
	RequestTimeTooSkewed: 403, RequestTimeout: 400, ServiceUnavailable: 503, SignatureDoesNotMatch: 403, SlowDown: 503,
	XAmzContentSHA256Mismatch: 400, ExpiredToken: 400, InvalidToken: 400,
}

// messages are S3's texts for the codes it always answers with one text.
// Clients show them and their tests compare them, so the gateway answers
// them too and keeps its own detail (a store's paths among it) for its
// log. Codes whose text says what was wrong (InvalidArgument,
// InvalidRequest, AccessDenied's several, the malformed authorizations)
// are not here: their messages are written where they arise.
var messages = map[string]string{
	BadDigest:                 "The Content-MD5 you specified did not match what was received.",
	BucketAlreadyExists:       "The requested bucket name is not available. The bucket namespace is shared by all users of the system. Please select a different name and try again.",
	BucketAlreadyOwnedByYou:   "Your previous request to create the named bucket succeeded and you already own it.",
	BucketNotEmpty:            "The bucket you tried to delete is not empty.",
	EntityTooLarge:            "Your proposed upload exceeds the maximum allowed size",
	EntityTooSmall:            "Your proposed upload is smaller than the minimum allowed size",
	ExpiredToken:              "The provided token has expired.",
	InvalidToken:              "The provided token is malformed or otherwise invalid.",
	InternalError:             "We encountered an internal error. Please try again.",
	InvalidAccessKeyID:        "The AWS Access Key Id you provided does not exist in our records.",
	InvalidBucketName:         "The specified bucket is not valid.",
	InvalidDigest:             "The Content-Md5 you specified is not valid.",
	InvalidPart:               "One or more of the specified parts could not be found.  The part may not have been uploaded, or the specified entity tag may not match the part's entity tag.",
	InvalidPartOrder:          "The list of parts was not in ascending order. Parts must be ordered by part number.",
	InvalidRange:              "The requested range is not satisfiable",
	KeyTooLongError:           "Your key is too long",
	MalformedXML:              "The XML you provided was not well-formed or did not validate against our published schema.",
	MethodNotAllowed:          "The specified method is not allowed against this resource.",
	MissingContentLength:      "You must provide the Content-Length HTTP header.",
	NoSuchBucket:              "The specified bucket does not exist.",
	NoSuchKey:                 "The specified key does not exist.",
	NoSuchUpload:              "The specified multipart upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.",
	PreconditionFailed:        "At least one of the pre-conditions you specified did not hold.",
	RequestTimeTooSkewed:      "The difference between the request time and the server's time is too large.",
	RequestTimeout:            "Your socket connection to the server was not read from or written to within the timeout period.",
	ServiceUnavailable:        "Please reduce your request rate.",
	SignatureDoesNotMatch:     "The request signature we calculated does not match the signature you provided. Check your key and signing method.",
	SlowDown:                  "Please reduce your request rate.",
	XAmzContentSHA256Mismatch: "The provided 'x-amz-content-sha256' header does not match what was computed.",
}

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
	Fields    []Field
	Resource  string `xml:",omitempty"`
	RequestID string `xml:"RequestId"`
}

// WriteError answers with e as S3 does: its status and an XML document
// with S3's text for the code where S3 has one (HEAD answers carry no
// body, the code goes in a header only).
func WriteError(w http.ResponseWriter, r *http.Request, e *Error, resource, requestID string) {
	h := w.Header()
	h.Del("Content-Length") // a value's, set before its first read failed: not this answer's
	h.Set("Content-Type", "application/xml")
	h.Set("X-Amz-Request-Id", requestID)
	h.Set("X-Amz-Error-Code", e.Code)
	w.WriteHeader(e.Status)
	if r.Method == http.MethodHead {
		return
	}
	msg := e.Message
	if text := messages[e.Code]; text != "" {
		msg = text // S3's one text for the code; e's own stays in the caller's log
	}
	writeXML(w, errorDoc{Code: e.Code, Message: msg, Fields: e.Fields, Resource: resource, RequestID: requestID})
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
