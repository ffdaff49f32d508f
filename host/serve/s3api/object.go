package s3api

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/serve/s3api/s3wire"
	"github.com/zarrgw/zarrgw/host/serve/server"
)

// unsupportedObject are object subresources the gateway does not keep.
var unsupportedObject = []string{"acl", "tagging", "retention", "legal-hold", "attributes", "torrent", "restore", "select", "partNumber"}

// getObject answers GetObject and HeadObject through the shared read of
// a value (ranges, conditions, ETags), with S3's response overrides.
func (api *API) getObject(req *s3Request, ds *server.Dataset) error {
	return api.g.ServeValue(overrides(req.w, req.query()), req.r, ds, req.key)
}

// deleteObject answers DeleteObject through the shared erase of a value.
func (api *API) deleteObject(req *s3Request, ds *server.Dataset) error {
	return api.g.EraseValue(req.w, req.r, ds, req.key)
}

// noDirectory answers a read of a directory marker: no store holds one.
func noDirectory(*API, *s3Request, *server.Dataset) error {
	return s3wire.Errorf(s3wire.NoSuchKey, "no key ends in /: the gateway's stores hold none (directories exist as the keys below them)")
}

// directoryErased answers an erase of a directory marker: erased already.
func directoryErased(_ *API, req *s3Request, _ *server.Dataset) error {
	req.w.WriteHeader(http.StatusNoContent)
	return nil
}

// notADirectory refuses a write of a directory marker.
func notADirectory(*API, *s3Request, *server.Dataset) error {
	return s3wire.Errorf(s3wire.InvalidArgument, "keys ending in / (directory markers) are not stored: directories exist as the keys below them")
}

// putObject stores the body under the request's conditions (If-Match,
// If-None-Match: *), through the key API's own write: conditions first,
// then the body, streamed where the store takes streams.
func (api *API) putObject(req *s3Request, ds *server.Dataset) error {
	cond, err := api.g.Condition(req.r, ds, req.key)
	if err != nil {
		return err
	}
	u, err := api.receive(req)
	if err != nil {
		return err
	}
	defer u.Release()
	version, err := api.g.StoreBody(req.r, ds, req.key, cond, u)
	if err != nil {
		return s3BodyFailure(err)
	}
	if tag := ds.ETag(version); tag != "" {
		req.w.Header().Set("ETag", tag)
	}
	// S3 sends the size for directory buckets only; clients (versitygw's
	// suite among them) read it regardless
	req.w.Header().Set("X-Amz-Object-Size", strconv.FormatInt(u.Size(), 10))
	req.w.WriteHeader(http.StatusOK)
	return nil
}

// copyObject copies a value within a dataset or across datasets: read
// access to the source, write access to the destination, the source's
// x-amz-copy-source-if-* conditions and the destination's If-Match and
// If-None-Match.
func (api *API) copyObject(req *s3Request, dst *server.Dataset) error {
	p := req.c.Plan.(*copyPlan)
	cond, src := p.cond, p.src
	data, err := p.read(req.r.Context())
	if err != nil {
		return err
	}
	if src.ds == dst && src.key == req.key && !strings.EqualFold(req.r.Header.Get("X-Amz-Metadata-Directive"), "REPLACE") {
		return s3wire.Errorf(s3wire.InvalidRequest, "This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata, storage class, website redirect location or encryption attributes.")
	}
	version, err := api.g.StoreValue(req.r, dst, req.key, cond, data)
	if err != nil {
		return err
	}
	s3wire.WriteXML(req.w, s3wire.CopyObjectResult{Xmlns: s3wire.Namespace, ETag: dst.ETag(version), LastModified: s3wire.Time(time.Now())})
	return nil
}

// copiedFrom is the source of a copy.
type copiedFrom struct {
	ds      *server.Dataset
	key     string
	version string // the version copied from
}

// read reads the bytes of the copy's source, into the memory its row's
// cost reserved: the version the conditions were checked against, or
// errChanged.
func (p *copyPlan) read(ctx context.Context) ([]byte, error) {
	v, err := p.src.ds.Read(ctx, p.src.key, store.Range(p.start, p.end-p.start))
	if err == nil && (int64(len(v.Data)) != p.end-p.start || p.src.version != "" && v.Version != p.src.version) {
		err = server.ErrChanged
	}
	return v.Data, err
}

// copyRange finds the part of the value x-amz-copy-source names to copy,
// checking access, the copy-source conditions and max_object_size.
func (api *API) copyRange(req *s3Request, rangeHeader string) (copiedFrom, int64, int64, error) {
	bucket, key, err := parseCopySource(req.r.Header.Get("X-Amz-Copy-Source"))
	if err != nil {
		return copiedFrom{}, 0, 0, err
	}
	ds, ok := api.g.Dataset(bucket)
	if !ok {
		return copiedFrom{}, 0, 0, s3wire.Errorf(s3wire.NoSuchBucket, "the copy source's bucket "+bucket+" does not exist")
	}
	if err := api.g.Authorize(ds, req.caller, false); err != nil {
		return copiedFrom{}, 0, 0, s3wire.Errorf(s3wire.AccessDenied, err.Error())
	}
	info, err := ds.Stat(req.r.Context(), key)
	if err != nil {
		return copiedFrom{}, 0, 0, err
	}
	if err := copyConditions(req.r, ds.ETag(info.Version), info.ModTime); err != nil {
		return copiedFrom{}, 0, 0, err
	}
	start, end := int64(0), info.Size
	if rangeHeader != "" {
		if start, end, ok = parseCopyRange(rangeHeader, info.Size); !ok {
			return copiedFrom{}, 0, 0, s3wire.Errorf(s3wire.InvalidRange, "x-amz-copy-source-range must be bytes=FIRST-LAST within the source's "+strconv.FormatInt(info.Size, 10)+" bytes")
		}
	}
	if end-start > api.listener.MaxObjectSize {
		return copiedFrom{}, 0, 0, s3wire.Errorf(s3wire.EntityTooLarge, "the copy is larger than max_object_size ("+strconv.FormatInt(api.listener.MaxObjectSize, 10)+" bytes)")
	}
	return copiedFrom{ds: ds, key: key, version: info.Version}, start, end, nil
}

// parseCopyRange reads x-amz-copy-source-range: "bytes=FIRST-LAST",
// both given, within the value.
func parseCopyRange(h string, size int64) (start, end int64, ok bool) {
	spec, found := strings.CutPrefix(h, "bytes=")
	a, b, dash := strings.Cut(spec, "-")
	first, err1 := strconv.ParseInt(a, 10, 64)
	last, err2 := strconv.ParseInt(b, 10, 64)
	if !found || !dash || err1 != nil || err2 != nil || first < 0 || first > last || last >= size {
		return 0, 0, false
	}
	return first, last + 1, true
}

// parseCopySource splits x-amz-copy-source, "BUCKET/KEY" percent-encoded
// with or without a leading slash, checking the key as a path.
func parseCopySource(h string) (string, string, error) {
	h, version, _ := strings.Cut(h, "?")
	if version != "" && version != "versionId=null" {
		return "", "", s3wire.Errorf(s3wire.NotImplemented, "the gateway's buckets are not versioned")
	}
	bucket, escaped, ok := strings.Cut(strings.TrimPrefix(h, "/"), "/")
	if b, err := url.PathUnescape(bucket); err == nil {
		bucket = b
	}
	if !ok || bucket == "" || escaped == "" {
		return "", "", s3wire.Errorf(s3wire.InvalidArgument, "x-amz-copy-source must be BUCKET/KEY")
	}
	key, err := routeKey(escaped)
	if err == nil && strings.HasSuffix(key, "/") {
		err = s3wire.Errorf(s3wire.NoSuchKey, "no key ends in /: the copy source "+key+" does not exist")
	}
	return bucket, key, err
}

// copyConditions evaluates x-amz-copy-source-if-match, -if-none-match,
// -if-unmodified-since and -if-modified-since against the source: any
// that fails is PreconditionFailed (S3 answers 412 for all four).
func copyConditions(r *http.Request, tag string, mod time.Time) error {
	const prefix = "X-Amz-Copy-Source-"
	failed, notModified := server.EvalConditions(func(name string) string { return r.Header.Get(prefix + name) }, tag, mod)
	if h := failed + notModified; h != "" {
		// a copy has no 304: either outcome is S3's 412
		return s3wire.Errorf(s3wire.PreconditionFailed, strings.ToLower(prefix+h)+" does not hold for the source")
	}
	return nil
}

// overrides applies GetObject's response-* query parameters (content
// type, disposition, ...) to the headers of the answer.
func overrides(w http.ResponseWriter, q url.Values) http.ResponseWriter {
	var set map[string]string // made for the few requests that override
	for _, o := range responseOverrides {
		if q.Has(o.param) {
			if set == nil {
				set = map[string]string{}
			}
			set[o.header] = q.Get(o.param)
		}
	}
	if len(set) == 0 {
		return w
	}
	return &overriding{ResponseWriter: w, set: set}
}

// responseOverrides are the parameters of a GET that set a header of
// its response.
var responseOverrides = [...]struct{ param, header string }{
	{"response-content-type", "Content-Type"}, {"response-content-language", "Content-Language"},
	{"response-expires", "Expires"}, {"response-cache-control", "Cache-Control"},
	{"response-content-disposition", "Content-Disposition"}, {"response-content-encoding", "Content-Encoding"},
}

// overriding sets headers just before the status is written.
type overriding struct {
	http.ResponseWriter
	set map[string]string
}

func (o *overriding) WriteHeader(status int) {
	if status < 300 {
		for k, v := range o.set {
			o.Header().Set(k, v)
		}
	}
	o.ResponseWriter.WriteHeader(status)
}

// Unwrap lets http.ResponseController reach the connection.
func (o *overriding) Unwrap() http.ResponseWriter { return o.ResponseWriter }
