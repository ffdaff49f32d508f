package gateway

import (
	"net/http"
	"strings"

	"github.com/zarrgw/zarrgw/host/serve/s3api/s3wire"
)

// s3Target is what an S3 request addresses.
type s3Target int

const (
	targetService s3Target = iota // the endpoint itself (ListBuckets)
	targetBucket                  // a bucket
	targetObject                  // a key in a bucket
)

func (t s3Target) String() string {
	return [...]string{"SERVICE", "BUCKET", "OBJECT"}[t]
}

// s3Handler answers a request whose access its route has checked; ds is
// the bucket's dataset (nil for the service and for CreateBucket).
type s3Handler func(api *s3API, req *s3Request, ds *dataset) error

// s3Route is one row of the S3 API's table: the requests of one target,
// method, subresource (a query parameter, or "name=value") and header,
// the operation they are (S3's own name), the access they need, and what
// answers them. Rows are tried in order: those that ask for more come
// before those that ask for less.
type s3Route struct {
	op     string
	target s3Target
	method string
	query  string
	header string
	access access
	handle s3Handler
}

var s3Routes = []s3Route{
	{op: "s3:ListBuckets", target: targetService, method: http.MethodGet, access: accessNone, handle: (*s3API).listBuckets},

	{op: "s3:HeadBucket", target: targetBucket, method: http.MethodHead, access: accessRead, handle: (*s3API).headBucket},
	{op: "s3:PutBucketVersioning", target: targetBucket, method: http.MethodPut, query: "versioning", access: accessWrite,
		handle: notImplemented("the gateway's buckets are not versioned")},
	{op: "s3:CreateBucket", target: targetBucket, method: http.MethodPut, access: accessCreate, handle: (*s3API).createBucket},
	{op: "s3:DeleteBucket", target: targetBucket, method: http.MethodDelete, access: accessWrite, handle: (*s3API).deleteBucket},
	{op: "s3:DeleteObjects", target: targetBucket, method: http.MethodPost, query: "delete", access: accessWrite, handle: (*s3API).deleteObjects},
	{op: "s3:GetBucketLocation", target: targetBucket, method: http.MethodGet, query: "location", access: accessRead, handle: (*s3API).bucketLocation},
	{op: "s3:GetBucketVersioning", target: targetBucket, method: http.MethodGet, query: "versioning", access: accessRead, handle: (*s3API).bucketVersioning},
	{op: "s3:ListMultipartUploads", target: targetBucket, method: http.MethodGet, query: "uploads", access: accessRead, handle: (*s3API).listUploads},
	{op: "s3:ListObjectsV2", target: targetBucket, method: http.MethodGet, query: "list-type=2", access: accessRead, handle: (*s3API).listObjects},
	{op: "s3:ListObjects", target: targetBucket, method: http.MethodGet, access: accessRead, handle: (*s3API).listObjects},

	{op: "s3:CreateMultipartUpload", target: targetObject, method: http.MethodPost, query: "uploads", access: accessWrite, handle: (*s3API).createUpload},
	{op: "s3:UploadPartCopy", target: targetObject, method: http.MethodPut, query: "uploadId", header: "X-Amz-Copy-Source", access: accessWrite,
		handle: onUpload((*s3API).uploadPart)},
	{op: "s3:UploadPart", target: targetObject, method: http.MethodPut, query: "uploadId", access: accessWrite, handle: onUpload((*s3API).uploadPart)},
	{op: "s3:ListParts", target: targetObject, method: http.MethodGet, query: "uploadId", access: accessRead, handle: onUpload((*s3API).listParts)},
	{op: "s3:CompleteMultipartUpload", target: targetObject, method: http.MethodPost, query: "uploadId", access: accessWrite,
		handle: onUpload((*s3API).completeUpload)},
	{op: "s3:AbortMultipartUpload", target: targetObject, method: http.MethodDelete, query: "uploadId", access: accessWrite,
		handle: onUpload((*s3API).abortUpload)},
	{op: "s3:GetObject", target: targetObject, method: http.MethodGet, access: accessRead, handle: (*s3API).getObject},
	{op: "s3:HeadObject", target: targetObject, method: http.MethodHead, access: accessRead, handle: (*s3API).getObject},
	{op: "s3:CopyObject", target: targetObject, method: http.MethodPut, header: "X-Amz-Copy-Source", access: accessWrite, handle: (*s3API).copyObject},
	{op: "s3:PutObject", target: targetObject, method: http.MethodPut, access: accessWrite, handle: (*s3API).putObject},
	{op: "s3:DeleteObject", target: targetObject, method: http.MethodDelete, access: accessWrite, handle: (*s3API).deleteObject},
}

// targetOf is what a request addresses.
func (req *s3Request) target() s3Target {
	switch {
	case req.bucket == "":
		return targetService
	case req.key == "":
		return targetBucket
	}
	return targetObject
}

// matches reports whether the row takes req.
func (rt *s3Route) matches(req *s3Request, t s3Target) bool {
	if rt.target != t || rt.method != req.r.Method {
		return false
	}
	if rt.header != "" && req.r.Header.Get(rt.header) == "" {
		return false
	}
	if rt.query == "" {
		return true
	}
	name, value, hasValue := strings.Cut(rt.query, "=")
	q := req.query()
	return q.Has(name) && (!hasValue || q.Get(name) == value)
}

// findS3Route is the row for a request: subresources the gateway does not
// keep are NotImplemented, a method its target does not take 405.
func findS3Route(req *s3Request) (*s3Route, error) {
	t := req.target()
	if err := unsupported(req, t); err != nil {
		return nil, err
	}
	for i := range s3Routes {
		if s3Routes[i].matches(req, t) {
			return &s3Routes[i], nil
		}
	}
	return nil, methodNotAllowed(req, t.String())
}

// unsupported refuses the subresources of settings the gateway does not
// keep (ACLs, policies, tagging, ...): asked for, they are NotImplemented
// rather than answered as a listing or a read.
func unsupported(req *s3Request, t s3Target) error {
	q := req.query()
	switch t {
	case targetBucket:
		for _, sub := range unsupportedBucket {
			if q.Has(sub) {
				return s3wire.Errorf(s3wire.NotImplemented, "the gateway does not keep bucket "+sub+" settings")
			}
		}
	case targetObject:
		for _, sub := range unsupportedObject {
			if q.Has(sub) && !(sub == "partNumber" && q.Has("uploadId")) {
				return s3wire.Errorf(s3wire.NotImplemented, "the gateway does not keep object "+sub)
			}
		}
	}
	return nil
}

// authorizeRoute checks the access a row names, once, before its handler
// runs, and returns the bucket's dataset.
func (api *s3API) authorizeRoute(req *s3Request, rt *s3Route) (*dataset, error) {
	switch rt.access {
	case accessNone:
		return nil, nil
	case accessCreate:
		if api.listener.BucketsFrom == nil {
			return nil, s3wire.Errorf(s3wire.AccessDenied, "this gateway makes no buckets: its datasets are declared in its configuration (s3 buckets_from is not set)")
		}
		if !req.caller.Allowed(api.listener.BucketAccess.Write) {
			return nil, s3wire.Errorf(s3wire.AccessDenied, "no write access to the buckets this gateway makes")
		}
		return nil, nil
	}
	ds, ok := api.g.dataset(req.bucket)
	if !ok {
		return nil, s3wire.Errorf(s3wire.NoSuchBucket, "the bucket "+req.bucket+" does not exist")
	}
	if err := api.g.authorize(ds, req.caller, rt.access == accessWrite); err != nil {
		return nil, s3wire.Errorf(s3wire.AccessDenied, err.Error())
	}
	return ds, nil
}

// notImplemented answers a row the gateway names but does not serve.
func notImplemented(msg string) s3Handler {
	return func(*s3API, *s3Request, *dataset) error {
		return s3wire.Errorf(s3wire.NotImplemented, msg)
	}
}
