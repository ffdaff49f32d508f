package s3api

import (
	"net/http"
	"strings"

	"github.com/zarrgw/zarrgw/host/serve/identity"
	"github.com/zarrgw/zarrgw/host/serve/server"

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
type s3Handler func(api *API, req *s3Request, ds *server.Dataset) error

// s3Row is a row of the S3 API: its target, method, subresource (a query
// parameter, or "name=value") and header, S3's name of the operation.
func s3Row(op string, t s3Target, method, query, header string, a server.Access, f s3Handler) server.Route {
	return server.Route{Op: op, Method: method, Match: server.Match{Target: t.String(), Query: query, Header: header}, Access: a,
		Handle: func(c *server.Call) error { req := s3Of(c); return f(req.api, req, c.DS) }}
}

// s3Routes is the S3 API's table. Rows are tried in order: those that
// ask for more come before those that ask for less. Keys ending in "/"
// (directory markers, which S3 tools read, write and erase) have rows of
// their own: no store holds such a key, so it is missing to reads, erased
// already, and refused to writes (its name, not its access, is wrong).
var s3Routes = []server.Route{
	s3Row("s3:ListBuckets", targetService, http.MethodGet, "", "", server.AccessAny, (*API).listBuckets),

	s3Row("s3:HeadBucket", targetBucket, http.MethodHead, "", "", server.AccessRead, (*API).headBucket),
	s3Row("s3:PutBucketVersioning", targetBucket, http.MethodPut, "versioning", "", server.AccessWrite,
		notImplemented("the gateway's buckets are not versioned")),
	uploading(s3Row("s3:CreateBucket", targetBucket, http.MethodPut, "", "", server.AccessCreate, (*API).createBucket)),
	s3Row("s3:DeleteBucket", targetBucket, http.MethodDelete, "", "", server.AccessWrite, (*API).deleteBucket),
	uploading(s3Row("s3:DeleteObjects", targetBucket, http.MethodPost, "delete", "", server.AccessWrite, (*API).deleteObjects)),
	s3Row("s3:GetBucketLocation", targetBucket, http.MethodGet, "location", "", server.AccessRead, (*API).bucketLocation),
	s3Row("s3:GetBucketVersioning", targetBucket, http.MethodGet, "versioning", "", server.AccessRead, (*API).bucketVersioning),
	s3Row("s3:ListMultipartUploads", targetBucket, http.MethodGet, "uploads", "", server.AccessRead, (*API).listUploads),
	s3Row("s3:ListObjectsV2", targetBucket, http.MethodGet, "list-type=2", "", server.AccessRead, (*API).listObjects),
	s3Row("s3:ListObjects", targetBucket, http.MethodGet, "", "", server.AccessRead, (*API).listObjects),

	s3Row("s3:CreateMultipartUpload", targetDirectory, http.MethodPost, "uploads", "", server.AccessWrite, notADirectory),
	s3Row("s3:UploadPart", targetDirectory, http.MethodPut, "uploadId", "", server.AccessWrite, notADirectory),
	s3Row("s3:CompleteMultipartUpload", targetDirectory, http.MethodPost, "uploadId", "", server.AccessWrite, notADirectory),
	s3Row("s3:GetObject", targetDirectory, http.MethodGet, "", "", server.AccessRead, noDirectory),
	s3Row("s3:HeadObject", targetDirectory, http.MethodHead, "", "", server.AccessRead, noDirectory),
	s3Row("s3:PutObject", targetDirectory, http.MethodPut, "", "", server.AccessWrite, notADirectory),
	s3Row("s3:DeleteObject", targetDirectory, http.MethodDelete, "", "", server.AccessWrite, directoryErased),

	s3Row("s3:CreateMultipartUpload", targetObject, http.MethodPost, "uploads", "", server.AccessWrite, (*API).createUpload),
	s3Row("s3:UploadPartCopy", targetObject, http.MethodPut, "uploadId", "X-Amz-Copy-Source", server.AccessWrite, (*API).uploadPartCopy).Costs(costPartCopy),
	uploading(s3Row("s3:UploadPart", targetObject, http.MethodPut, "uploadId", "", server.AccessWrite, onUpload((*API).uploadPart))),
	s3Row("s3:ListParts", targetObject, http.MethodGet, "uploadId", "", server.AccessRead, onUpload((*API).listParts)),
	s3Row("s3:CompleteMultipartUpload", targetObject, http.MethodPost, "uploadId", "", server.AccessWrite, (*API).completeUpload).Costs(costCompletion),
	s3Row("s3:AbortMultipartUpload", targetObject, http.MethodDelete, "uploadId", "", server.AccessWrite,
		onUpload((*API).abortUpload)),
	s3Row("s3:GetObject", targetObject, http.MethodGet, "", "", server.AccessRead, (*API).getObject),
	s3Row("s3:HeadObject", targetObject, http.MethodHead, "", "", server.AccessRead, (*API).getObject),
	s3Row("s3:CopyObject", targetObject, http.MethodPut, "", "X-Amz-Copy-Source", server.AccessWrite, (*API).copyObject).Costs(costCopy),
	uploading(s3Row("s3:PutObject", targetObject, http.MethodPut, "", "", server.AccessWrite, (*API).putObject)),
	s3Row("s3:DeleteObject", targetObject, http.MethodDelete, "", "", server.AccessWrite, (*API).deleteObject),
}

// uploading is a row whose request carries a body (CostUpload).
func uploading(rt server.Route) server.Route { return rt.Costs(server.CostUpload) }

// stsRoute is STS's one operation: its request carries the web identity
// token it is checked by, so it is charged to the client address's
// anonymous bucket of the rate limits (a signature check each).
var stsRoute = server.Route{Op: "sts:AssumeRoleWithWebIdentity", Access: server.AccessAnonymous,
	Handle: func(c *server.Call) error { req := s3Of(c); return req.api.issueSession(req) }}

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
func findS3Route(req *s3Request) *server.Route {
	t := req.target()
	req.c.Target = t.String()
	if err := unsupported(req, t); err != nil {
		return server.Refusal(server.AccessAny, err)
	}
	if rt, _ := server.Lookup(s3Routes, req.c); rt != nil {
		return rt
	}
	return server.Refusal(server.AccessAny, methodNotAllowed(req, t.resource()))
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

// MayCreate checks the right to make buckets (CreateBucket's access).
func (api *API) MayCreate(caller identity.Caller) error {
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
	return func(*API, *s3Request, *server.Dataset) error {
		return s3wire.Errorf(s3wire.NotImplemented, msg)
	}
}

// Routes are the rows of the S3 API's table, for the tests that hold
// them against the operations the gateway documents.
func Routes() []server.Route { return s3Routes }
