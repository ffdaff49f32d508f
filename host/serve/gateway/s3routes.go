package gateway

import (
	"net/http"
	"strings"

	"github.com/zarrgw/zarrgw/host/serve/identity"

	"github.com/zarrgw/zarrgw/host/serve/s3api/s3wire"
)

// s3Target is what an S3 request addresses.
type s3Target int

const (
	targetService   s3Target = iota // the endpoint itself (ListBuckets)
	targetBucket                    // a bucket
	targetObject                    // a key in a bucket
	targetDirectory                 // a key ending in "/": a directory marker
)

func (t s3Target) String() string {
	return [...]string{"SERVICE", "BUCKET", "OBJECT", "DIRECTORY"}[t]
}

// resource is the target as S3 names it in errors: a directory marker is
// an object.
func (t s3Target) resource() string {
	if t == targetDirectory {
		return targetObject.String()
	}
	return t.String()
}

// s3Handler answers a request whose access its route has checked; ds is
// the bucket's dataset (nil for the service and for CreateBucket).
type s3Handler func(api *s3API, req *s3Request, ds *dataset) error

// s3Row is a row of the S3 API: its target, method, subresource (a query
// parameter, or "name=value") and header, S3's name of the operation.
func s3Row(op string, t s3Target, method, query, header string, a access, f s3Handler) route {
	return route{op: op, method: method, match: match{target: t.String(), query: query, header: header}, access: a,
		handle: func(g *Gateway, c *call) error { return f(g.s3, c.s3, c.ds) }}
}

// s3Routes is the S3 API's table. Rows are tried in order: those that
// ask for more come before those that ask for less. Keys ending in "/"
// (directory markers, which S3 tools read, write and erase) have rows of
// their own: no store holds such a key, so it is missing to reads, erased
// already, and refused to writes (its name, not its access, is wrong).
var s3Routes = []route{
	s3Row("s3:ListBuckets", targetService, http.MethodGet, "", "", accessAny, (*s3API).listBuckets),

	s3Row("s3:HeadBucket", targetBucket, http.MethodHead, "", "", accessRead, (*s3API).headBucket),
	s3Row("s3:PutBucketVersioning", targetBucket, http.MethodPut, "versioning", "", accessWrite,
		notImplemented("the gateway's buckets are not versioned")),
	uploading(s3Row("s3:CreateBucket", targetBucket, http.MethodPut, "", "", accessCreate, (*s3API).createBucket)),
	s3Row("s3:DeleteBucket", targetBucket, http.MethodDelete, "", "", accessWrite, (*s3API).deleteBucket),
	uploading(s3Row("s3:DeleteObjects", targetBucket, http.MethodPost, "delete", "", accessWrite, (*s3API).deleteObjects)),
	s3Row("s3:GetBucketLocation", targetBucket, http.MethodGet, "location", "", accessRead, (*s3API).bucketLocation),
	s3Row("s3:GetBucketVersioning", targetBucket, http.MethodGet, "versioning", "", accessRead, (*s3API).bucketVersioning),
	s3Row("s3:ListMultipartUploads", targetBucket, http.MethodGet, "uploads", "", accessRead, (*s3API).listUploads),
	s3Row("s3:ListObjectsV2", targetBucket, http.MethodGet, "list-type=2", "", accessRead, (*s3API).listObjects),
	s3Row("s3:ListObjects", targetBucket, http.MethodGet, "", "", accessRead, (*s3API).listObjects),

	s3Row("s3:CreateMultipartUpload", targetDirectory, http.MethodPost, "uploads", "", accessWrite, notADirectory),
	s3Row("s3:UploadPart", targetDirectory, http.MethodPut, "uploadId", "", accessWrite, notADirectory),
	s3Row("s3:CompleteMultipartUpload", targetDirectory, http.MethodPost, "uploadId", "", accessWrite, notADirectory),
	s3Row("s3:GetObject", targetDirectory, http.MethodGet, "", "", accessRead, noDirectory),
	s3Row("s3:HeadObject", targetDirectory, http.MethodHead, "", "", accessRead, noDirectory),
	s3Row("s3:PutObject", targetDirectory, http.MethodPut, "", "", accessWrite, notADirectory),
	s3Row("s3:DeleteObject", targetDirectory, http.MethodDelete, "", "", accessWrite, directoryErased),

	s3Row("s3:CreateMultipartUpload", targetObject, http.MethodPost, "uploads", "", accessWrite, (*s3API).createUpload),
	s3Row("s3:UploadPartCopy", targetObject, http.MethodPut, "uploadId", "X-Amz-Copy-Source", accessWrite, (*s3API).uploadPartCopy).costs(costPartCopy),
	uploading(s3Row("s3:UploadPart", targetObject, http.MethodPut, "uploadId", "", accessWrite, onUpload((*s3API).uploadPart))),
	s3Row("s3:ListParts", targetObject, http.MethodGet, "uploadId", "", accessRead, onUpload((*s3API).listParts)),
	s3Row("s3:CompleteMultipartUpload", targetObject, http.MethodPost, "uploadId", "", accessWrite, (*s3API).completeUpload).costs(costCompletion),
	s3Row("s3:AbortMultipartUpload", targetObject, http.MethodDelete, "uploadId", "", accessWrite,
		onUpload((*s3API).abortUpload)),
	s3Row("s3:GetObject", targetObject, http.MethodGet, "", "", accessRead, (*s3API).getObject),
	s3Row("s3:HeadObject", targetObject, http.MethodHead, "", "", accessRead, (*s3API).getObject),
	s3Row("s3:CopyObject", targetObject, http.MethodPut, "", "X-Amz-Copy-Source", accessWrite, (*s3API).copyObject).costs(costCopy),
	uploading(s3Row("s3:PutObject", targetObject, http.MethodPut, "", "", accessWrite, (*s3API).putObject)),
	s3Row("s3:DeleteObject", targetObject, http.MethodDelete, "", "", accessWrite, (*s3API).deleteObject),
}

// uploading is a row whose request carries a body (costUpload).
func uploading(rt route) route { return rt.costs(costUpload) }

// stsRoute is STS's one operation: its request carries the web identity
// token it is checked by, so it is charged to the client address's
// anonymous bucket of the rate limits (a signature check each).
var stsRoute = route{op: "sts:AssumeRoleWithWebIdentity", access: accessAnonymous,
	handle: func(g *Gateway, c *call) error { return g.s3.issueSession(c.s3) }}

// target is what a request addresses.
func (req *s3Request) target() s3Target {
	switch {
	case req.bucket == "":
		return targetService
	case req.key == "":
		return targetBucket
	case strings.HasSuffix(req.key, "/"):
		return targetDirectory
	}
	return targetObject
}

// findS3Route is the row for a request: subresources the gateway does not
// keep are NotImplemented, a method its target does not take 405, both
// once the caller is identified.
func findS3Route(req *s3Request) *route {
	t := req.target()
	req.c.target = t.String()
	if err := unsupported(req, t); err != nil {
		return refusal(accessAny, err)
	}
	if rt, _ := lookup(s3Routes, req.c); rt != nil {
		return rt
	}
	return refusal(accessAny, methodNotAllowed(req, t.resource()))
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
	case targetObject, targetDirectory:
		for _, sub := range unsupportedObject {
			if q.Has(sub) && !(sub == "partNumber" && q.Has("uploadId")) {
				return s3wire.Errorf(s3wire.NotImplemented, "the gateway does not keep object "+sub)
			}
		}
	}
	return nil
}

// mayCreate checks the right to make buckets (CreateBucket's access).
func (api *s3API) mayCreate(caller identity.Caller) error {
	if api.listener.BucketsFrom == nil {
		return s3wire.Errorf(s3wire.AccessDenied, "this gateway makes no buckets: its datasets are declared in its configuration (s3 buckets_from is not set)")
	}
	if !caller.Allowed(api.listener.BucketAccess.Write) {
		return s3wire.Errorf(s3wire.AccessDenied, "no write access to the buckets this gateway makes")
	}
	return nil
}

// notImplemented answers a row the gateway names but does not serve.
func notImplemented(msg string) s3Handler {
	return func(*s3API, *s3Request, *dataset) error {
		return s3wire.Errorf(s3wire.NotImplemented, msg)
	}
}
