package s3api

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/serve/s3api/s3wire"
	"github.com/zarrgw/zarrgw/host/serve/server"
	"github.com/zarrgw/zarrgw/host/serve/server/keypath"
)

// bucketMarker is the key that makes a directory of the buckets_from
// store a bucket: CreateBucket writes it, DeleteBucket erases it, and the
// gateway serves the directories that hold one when it starts.
const bucketMarker = keypath.ReservedPrefix + "bucket"

// unsupportedBucket are bucket subresources the gateway does not keep
// (ACLs, policies, lifecycle, ...): asked for, they are NotImplemented
// rather than answered as a listing.
var unsupportedBucket = []string{"acl", "policy", "policyStatus", "cors", "lifecycle", "tagging", "encryption",
	"object-lock", "ownershipControls", "website", "logging", "notification", "replication", "accelerate",
	"requestPayment", "analytics", "metrics", "inventory", "intelligent-tiering", "publicAccessBlock",
	"versions", "torrent"}

// bucketLocation answers GetBucketLocation: the gateway's region.
func (api *API) bucketLocation(req *s3Request, _ *server.Dataset) error {
	region := api.listener.Region
	if region == "us-east-1" {
		region = "" // as S3 answers for us-east-1
	}
	s3wire.WriteXML(req.w, s3wire.LocationConstraint{Xmlns: s3wire.Namespace, Region: region})
	return nil
}

// bucketVersioning answers GetBucketVersioning: never enabled.
func (api *API) bucketVersioning(req *s3Request, _ *server.Dataset) error {
	s3wire.WriteXML(req.w, s3wire.VersioningConfiguration{Xmlns: s3wire.Namespace})
	return nil
}

// headBucket answers that the bucket exists and may be read (the region
// went out with the headers already).
func (api *API) headBucket(req *s3Request, _ *server.Dataset) error {
	req.w.WriteHeader(http.StatusOK)
	return nil
}

// listBuckets answers ListBuckets: the datasets the principal may read.
func (api *API) listBuckets(req *s3Request, _ *server.Dataset) error {
	out := s3wire.ListAllMyBucketsResult{Xmlns: s3wire.Namespace,
		Owner: s3wire.Owner{ID: req.caller.Name(), DisplayName: req.caller.Name()}}
	for _, ds := range api.g.All() {
		if api.g.Authorize(ds, req.caller, false) != nil {
			continue
		}
		created := ds.Created
		if created.IsZero() {
			created = api.g.Started
		}
		out.Buckets = append(out.Buckets, s3wire.Bucket{Name: ds.Name, CreationDate: s3wire.Time(created)})
	}
	s3wire.WriteXML(req.w, out)
	return nil
}

// createBucket makes a dataset below the buckets_from store (its route
// checked that there is one and that the principal may make buckets).
func (api *API) createBucket(req *s3Request, _ *server.Dataset) error {
	if !config.ValidBucketName(req.bucket) {
		return s3wire.Errorf(s3wire.InvalidBucketName, "bucket names are 3 to 63 lower-case letters, digits, dots and dashes")
	}
	if err := api.drainBody(req); err != nil {
		return err
	}
	if name, ok := api.g.Cfg.BucketOverlaps(req.bucket); ok {
		// validation refuses such layouts; this holds should one slip by
		return s3wire.Errorf(s3wire.BucketAlreadyExists, "the bucket "+req.bucket+" would share keys with the dataset "+name)
	}
	if ds, ok := api.g.Dataset(req.bucket); ok {
		if ds.Created.IsZero() || !req.caller.Allowed(ds.Cfg.Access.Write) {
			return s3wire.Errorf(s3wire.BucketAlreadyExists, "the bucket "+req.bucket+" exists")
		}
		return s3wire.Errorf(s3wire.BucketAlreadyOwnedByYou, "you made the bucket "+req.bucket+" already")
	}
	ctx := req.r.Context()
	ds, err := api.g.Open(ctx, api.bucketDataset(req.bucket))
	if err != nil {
		return err
	}
	cond := store.Condition{IfNoneMatch: ds.Store.Capabilities().ConditionalWrite}
	if _, err := ds.Store.Set(ctx, bucketMarker, []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), cond); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return s3wire.Errorf(s3wire.BucketAlreadyOwnedByYou, "the bucket "+req.bucket+" was made at the same time")
		}
		return err
	}
	ds.Created = time.Now()
	api.g.Add(ds)
	req.w.Header().Set("Location", "/"+req.bucket)
	req.w.WriteHeader(http.StatusOK)
	return nil
}

// drainBody reads a small request body (CreateBucket's configuration),
// checking its signature; its content is not used.
func (api *API) drainBody(req *s3Request) error {
	if req.r.ContentLength == 0 {
		return nil
	}
	_, release, err := api.body(req)
	if err == nil {
		release()
	}
	return err
}

// bucketDataset declares a bucket made by CreateBucket.
func (api *API) bucketDataset(name string) *config.Dataset {
	return &config.Dataset{Name: name, Store: *api.listener.BucketsFrom, Prefix: path.Join(api.listener.BucketsPrefix, name), Access: api.listener.BucketAccess,
		DeclRange: api.listener.DeclRange, AccessRange: api.listener.DeclRange}
}

// deleteBucket erases an empty bucket that CreateBucket made; declared
// datasets are never erased through the API.
func (api *API) deleteBucket(req *s3Request, ds *server.Dataset) error {
	if ds.Created.IsZero() {
		return s3wire.Errorf(s3wire.AccessDenied, "the bucket "+ds.Name+" is a dataset of the configuration; only buckets made by CreateBucket are deleted")
	}
	ctx := req.r.Context()
	for k, err := range store.ListSorted(ctx, ds.Store, "", "") {
		if err != nil {
			return err
		}
		if !keypath.Reserved(k) {
			return s3wire.Errorf(s3wire.BucketNotEmpty, "the bucket "+ds.Name+" holds keys ("+k+")")
		}
	}
	if err := ds.Store.ErasePrefix(ctx, multipartDir); err != nil {
		return err
	}
	if err := ds.Store.Erase(ctx, bucketMarker); err != nil {
		return err
	}
	api.g.Remove(ds.Name)
	req.w.WriteHeader(http.StatusNoContent)
	return nil
}

// loadBuckets serves the buckets CreateBucket made before: the
// directories of the buckets_from store that hold a marker, except those
// named as a declared dataset.
func (api *API) loadBuckets(ctx context.Context) error {
	if api.listener.BucketsFrom == nil {
		return nil
	}
	whole, err := api.g.Open(ctx, &config.Dataset{Name: "(buckets)", Store: *api.listener.BucketsFrom, Prefix: api.listener.BucketsPrefix})
	if err != nil {
		return fmt.Errorf("s3 buckets_from: %w", err)
	}
	dir, err := whole.Store.ListDir(ctx, "")
	if err != nil {
		return fmt.Errorf("s3 buckets_from %s: listing its buckets: %w", api.listener.BucketsFrom, err)
	}
	for _, p := range dir.Prefixes {
		name := p[:len(p)-1]
		if _, declared := api.g.Dataset(name); declared || !config.ValidBucketName(name) {
			continue
		}
		if _, overlaps := api.g.Cfg.BucketOverlaps(name); overlaps {
			continue // a dataset's keys, never a bucket, whatever marker is there
		}
		info, err := whole.Store.Stat(ctx, p+bucketMarker)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("s3 buckets_from %s: bucket %s: %w", api.listener.BucketsFrom, name, err)
		}
		ds, err := api.g.Open(ctx, api.bucketDataset(name))
		if err != nil {
			return err
		}
		ds.Created = info.ModTime
		if ds.Created.IsZero() {
			ds.Created = time.Now()
		}
		api.g.Add(ds)
	}
	return nil
}

// deleteObjects answers DeleteObjects: up to s3wire.MaxPage keys erased in one
// request, each reported as deleted or failed.
func (api *API) deleteObjects(req *s3Request, ds *server.Dataset) error {
	data, release, err := api.body(req)
	if err != nil {
		return err
	}
	var doc s3wire.Delete
	err = xml.Unmarshal(data, &doc)
	release()
	if err != nil {
		return s3wire.Errorf(s3wire.MalformedXML, "the Delete document is not valid XML: "+err.Error())
	}
	if len(doc.Objects) == 0 || len(doc.Objects) > s3wire.MaxPage {
		return s3wire.Errorf(s3wire.MalformedXML, fmt.Sprintf("a Delete document names 1 to %d keys", s3wire.MaxPage))
	}
	out := s3wire.DeleteResult{Xmlns: s3wire.Namespace}
	for _, o := range doc.Objects {
		if err := api.eraseKey(req, ds, o.Key); err != nil {
			se := s3Error(err)
			if errors.Is(err, keypath.ErrBadPath) || errors.Is(err, keypath.ErrReserved) {
				se = s3wire.Errorf(s3wire.InvalidArgument, keypath.KeyProblem(err))
			}
			out.Errors = append(out.Errors, s3wire.DeleteFailed{Key: o.Key, Code: se.Code, Message: se.Message})
			continue
		}
		if !doc.Quiet {
			out.Deleted = append(out.Deleted, s3wire.DeletedKey{Key: o.Key})
		}
	}
	s3wire.WriteXML(req.w, out)
	return nil
}

// eraseKey erases one key named in a request body, checked as a path (a
// directory marker, "name/", is erased already: no store holds one).
func (api *API) eraseKey(req *s3Request, ds *server.Dataset, key string) error {
	if dir, ok := strings.CutSuffix(key, "/"); ok && keypath.CheckKey(dir) == nil {
		return nil
	}
	if err := keypath.CheckKey(key); err != nil {
		return err
	}
	if err := ds.Store.Erase(req.r.Context(), key); err != nil {
		return err
	}
	ds.Changed(key)
	return nil
}
