package s3api

import (
	"encoding/base64"
	"net/url"
	"strconv"
	"strings"

	"github.com/zarrgw/zarrgw/host/serve/s3api/s3wire"
	"github.com/zarrgw/zarrgw/host/serve/server"
)

// listObjects answers ListObjects (V1) and ListObjectsV2 (list-type=2).
func (api *API) listObjects(req *s3Request, ds *server.Dataset) error {
	q := req.query()
	v2 := q.Get("list-type") == "2"
	lq := server.ListQuery{Prefix: q.Get("prefix"), Delimiter: q.Get("delimiter"), Sizes: true}
	var err error
	if lq.Max, err = s3MaxKeys(q.Get("max-keys")); err != nil {
		return err
	}
	encoding := q.Get("encoding-type")
	if encoding != "" && encoding != "url" {
		return s3wire.Errorf(s3wire.InvalidArgument, "encoding-type may only be url")
	}
	token := q.Get("continuation-token")
	switch {
	case !v2:
		lq.After = q.Get("marker")
	case q.Has("continuation-token"):
		b, err := base64.RawURLEncoding.DecodeString(token)
		if err != nil || token == "" {
			return s3wire.Errorf(s3wire.InvalidArgument, "the continuation token is not one this gateway gave")
		}
		lq.After = string(b)
	default:
		lq.After = q.Get("start-after")
	}
	for _, p := range []string{lq.Prefix, lq.Delimiter, lq.After, q.Get("start-after")} {
		if hasControl(p) {
			// no key holds one, and an XML answer cannot carry it back
			return s3wire.Errorf(s3wire.InvalidArgument, "prefix, delimiter, marker and start-after hold no control characters")
		}
	}
	page, err := server.ListBucket(req.r.Context(), ds, lq)
	if err != nil {
		return err
	}
	enc := func(s string) string { return s }
	if encoding == "url" {
		enc = s3URLEncode
	}
	out := s3wire.ListBucketResult{Xmlns: s3wire.Namespace, Name: ds.Name, Prefix: enc(lq.Prefix),
		Delimiter: enc(lq.Delimiter), MaxKeys: lq.Max, EncodingType: encoding, IsTruncated: page.Truncated}
	for _, e := range page.Objects {
		out.Contents = append(out.Contents, s3wire.Object{Key: enc(e.Key), LastModified: s3wire.Time(e.Info.ModTime),
			ETag: ds.ETag(e.Info.Version), Size: e.Info.Size, StorageClass: "STANDARD"})
	}
	for _, p := range page.Prefixes {
		out.CommonPrefixes = append(out.CommonPrefixes, s3wire.CommonPrefix{Prefix: enc(p)})
	}
	if v2 {
		n := page.Count()
		out.KeyCount, out.ContinuationToken, out.StartAfter = &n, token, enc(q.Get("start-after"))
		if page.Truncated {
			out.NextContinuationToken = base64.RawURLEncoding.EncodeToString([]byte(page.Last))
		}
	} else {
		marker := enc(lq.After)
		out.Marker = &marker
		if page.Truncated {
			out.NextMarker = enc(page.Last)
		}
	}
	s3wire.WriteXML(req.w, out)
	return nil
}

// s3MaxKeys reads max-keys: a page of S3's size when absent, and never
// more (as S3).
func s3MaxKeys(s string) (int, error) {
	if s == "" {
		return s3wire.MaxPage, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, s3wire.Errorf(s3wire.InvalidArgument, "max-keys must be a whole number of 0 or more")
	}
	return min(n, s3wire.MaxPage), nil
}

// s3URLEncode encodes a key as S3 does for encoding-type=url: form
// encoding, slashes left as they are.
func s3URLEncode(s string) string {
	return strings.ReplaceAll(url.QueryEscape(s), "%2F", "/")
}

// hasControl reports a control character (C0 or DEL) in s.
func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f })
}
