package gateway

import (
	"context"
	"encoding/base64"
	"net/url"
	"strconv"
	"strings"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/s3wire"
)

// listQuery is what a ListObjects request asks for.
type listQuery struct {
	prefix, delimiter string
	after             string // keys and common prefixes up to it were listed before
	max               int
}

// listResult is one page of a listing.
type listResult struct {
	objects   []store.Entry
	prefixes  []string
	truncated bool
	last      string // the last key or common prefix of the page
}

func (p *listResult) count() int { return len(p.objects) + len(p.prefixes) }

// listBucket lists one page. It reads the store in key order from where
// the page starts (never the keys before it), and skips past the keys
// of each common prefix with a new listing instead of reading them all.
func listBucket(ctx context.Context, s store.Store, q listQuery) (listResult, error) {
	var out listResult
	if q.max == 0 {
		return out, nil
	}
	dir := q.prefix[:strings.LastIndex(q.prefix, "/")+1]
	from := max(q.after, justBefore(q.prefix))
	for {
		next, done, err := listRun(ctx, s, q, dir, from, &out)
		if err != nil || done {
			return out, err
		}
		from = next
	}
}

// listRun adds to the page from the keys after from, until the page is
// full or the keys run out (done), or it meets a common prefix or the
// gateway's own keys: then it reports the key to list on from.
func listRun(ctx context.Context, s store.Store, q listQuery, dir, from string, out *listResult) (string, bool, error) {
	for e, err := range store.ListInfo(ctx, s, dir, from) {
		if err != nil {
			return "", true, err
		}
		k := e.Key
		if !strings.HasPrefix(k, q.prefix) {
			if k > q.prefix {
				return "", true, nil // sorted: nothing further can match
			}
			continue
		}
		if reserved(k) {
			return reservedPrefix + store.SkipPast, false, nil
		}
		common, isPrefix := commonPrefix(k, q.prefix, q.delimiter)
		if isPrefix && (common <= q.after || common == out.last) {
			return common + store.SkipPast, false, nil // listed on the page before, or just now
		}
		if out.count() == q.max {
			out.truncated = true
			return "", true, nil
		}
		if isPrefix {
			out.prefixes = append(out.prefixes, common)
			out.last = common
			return common + store.SkipPast, false, nil
		}
		out.objects = append(out.objects, e)
		out.last = k
	}
	return "", true, nil
}

// commonPrefix returns the common prefix a key rolls up into: the key up
// to the first delimiter after the prefix, delimiter included.
func commonPrefix(key, prefix, delimiter string) (string, bool) {
	if delimiter == "" {
		return "", false
	}
	i := strings.Index(key[len(prefix):], delimiter)
	if i < 0 {
		return "", false
	}
	return key[:len(prefix)+i+len(delimiter)], true
}

// justBefore returns a string that sorts before p but after as few keys
// as it can that do not start with p, so a listing of p's keys starts
// close to them.
func justBefore(p string) string {
	if p == "" {
		return ""
	}
	last := p[len(p)-1]
	if last > ' ' && last < 0x80 {
		return p[:len(p)-1] + string(rune(last-1)) + store.SkipPast
	}
	return p[:len(p)-1]
}

// listObjects answers ListObjects (V1) and ListObjectsV2 (list-type=2).
func (api *s3API) listObjects(req *s3Request, ds *dataset) error {
	q := req.query()
	v2 := q.Get("list-type") == "2"
	lq := listQuery{prefix: q.Get("prefix"), delimiter: q.Get("delimiter")}
	var err error
	if lq.max, err = s3MaxKeys(q.Get("max-keys")); err != nil {
		return err
	}
	encoding := q.Get("encoding-type")
	if encoding != "" && encoding != "url" {
		return s3wire.Errorf(s3wire.InvalidArgument, "encoding-type may only be url")
	}
	token := q.Get("continuation-token")
	switch {
	case !v2:
		lq.after = q.Get("marker")
	case q.Has("continuation-token"):
		b, err := base64.RawURLEncoding.DecodeString(token)
		if err != nil || token == "" {
			return s3wire.Errorf(s3wire.InvalidArgument, "the continuation token is not one this gateway gave")
		}
		lq.after = string(b)
	default:
		lq.after = q.Get("start-after")
	}
	page, err := listBucket(req.r.Context(), ds.store, lq)
	if err != nil {
		return err
	}
	enc := func(s string) string { return s }
	if encoding == "url" {
		enc = s3URLEncode
	}
	out := s3wire.ListBucketResult{Xmlns: s3wire.Namespace, Name: ds.name, Prefix: enc(lq.prefix),
		Delimiter: enc(lq.delimiter), MaxKeys: lq.max, EncodingType: encoding, IsTruncated: page.truncated}
	for _, e := range page.objects {
		out.Contents = append(out.Contents, s3wire.Object{Key: enc(e.Key), LastModified: s3wire.Time(e.Info.ModTime),
			ETag: ds.etag(e.Info.Version), Size: e.Info.Size, StorageClass: "STANDARD"})
	}
	for _, p := range page.prefixes {
		out.CommonPrefixes = append(out.CommonPrefixes, s3wire.CommonPrefix{Prefix: enc(p)})
	}
	if v2 {
		n := page.count()
		out.KeyCount, out.ContinuationToken, out.StartAfter = &n, token, enc(q.Get("start-after"))
		if page.truncated {
			out.NextContinuationToken = base64.RawURLEncoding.EncodeToString([]byte(page.last))
		}
	} else {
		marker := enc(lq.after)
		out.Marker = &marker
		if page.truncated {
			out.NextMarker = enc(page.last)
		}
	}
	s3wire.WriteXML(req.w, out)
	return nil
}

// s3MaxKeys reads max-keys: 1000 when absent, and never more (as S3).
func s3MaxKeys(s string) (int, error) {
	if s == "" {
		return 1000, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, s3wire.Errorf(s3wire.InvalidArgument, "max-keys must be a whole number of 0 or more")
	}
	return min(n, 1000), nil
}

// s3URLEncode encodes a key as S3 does for encoding-type=url: form
// encoding, slashes left as they are.
func s3URLEncode(s string) string {
	return strings.ReplaceAll(url.QueryEscape(s), "%2F", "/")
}
