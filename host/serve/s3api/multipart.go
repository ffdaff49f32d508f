package s3api

import (
	"context"
	"crypto/md5"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/serve/s3api/s3wire"
	"github.com/zarrgw/zarrgw/host/serve/server"
	"github.com/zarrgw/zarrgw/host/serve/server/keypath"
)

// Multipart uploads are staged in the dataset's own store, below
// multipartDir: UPLOAD_ID/upload holds the upload's key and start, and
// each part is UPLOAD_ID/pNNNNN-MD5, so that listing the upload's
// directory tells each part's number, ETag and size without reading it.
// CompleteMultipartUpload streams the parts into a store of files, or
// assembles them in memory within body_memory (stores that take values
// whole), and writes the key under the request's conditions;
// replicas share nothing but the store, so any of them can take any step.
const multipartDir = keypath.ReservedPrefix + "multipart/"

// minPartSize is S3's smallest part but the last.
const minPartSize = 5 << 20

// maxParts is S3's largest part number.
const maxParts = 10000

// uploadDoc is an upload's record.
type uploadDoc struct {
	Key       string    `json:"key"`
	Initiated time.Time `json:"initiated"`
}

// stagedPart is a part as its key describes it.
type stagedPart struct {
	number int
	md5    string
	size   int64
	mod    time.Time
	key    string
}

// createUpload answers CreateMultipartUpload.
func (api *API) createUpload(req *s3Request, ds *server.Dataset) error {
	if limit := api.g.Cfg.Server.MaxRequestSize; limit > 0 && limit < minPartSize {
		// every part but the last must be 5 MiB: the parts would stage
		// until multipart_max_age and the upload never complete
		return s3wire.Errorf(s3wire.InvalidRequest, fmt.Sprintf("multipart uploads need parts of 5 MiB, and this gateway takes requests of at most %d bytes (max_request_size): send the object in one PUT", limit))
	}
	var b [16]byte
	rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	doc, _ := json.Marshal(uploadDoc{Key: req.key, Initiated: time.Now().UTC()})
	if _, err := ds.Store.Set(req.r.Context(), multipartDir+id+"/upload", doc, store.Condition{}); err != nil {
		return err
	}
	s3wire.WriteXML(req.w, s3wire.InitiateMultipartUploadResult{Xmlns: s3wire.Namespace, Bucket: ds.Name, Key: req.key, UploadID: id})
	return nil
}

// onUpload answers a request on an upload in progress: its record is
// read (and its key checked) before handle runs.
func onUpload(handle func(api *API, req *s3Request, ds *server.Dataset, id string, doc uploadDoc) error) s3Handler {
	return func(api *API, req *s3Request, ds *server.Dataset) error {
		id := req.query().Get("uploadId")
		doc, err := api.upload(req.r.Context(), ds, id, req.key)
		if err != nil {
			return err
		}
		return handle(api, req, ds, id, doc)
	}
}

// abortUpload answers AbortMultipartUpload: the upload's parts go.
func (api *API) abortUpload(req *s3Request, ds *server.Dataset, id string, _ uploadDoc) error {
	if err := ds.Store.ErasePrefix(req.r.Context(), multipartDir+id+"/"); err != nil {
		return err
	}
	req.w.WriteHeader(http.StatusNoContent)
	return nil
}

// upload reads an upload's record; an ID that is not one of ours, or an
// upload of another key, is NoSuchUpload.
func (api *API) upload(ctx context.Context, ds *server.Dataset, id, key string) (uploadDoc, error) {
	var doc uploadDoc
	if b, err := hex.DecodeString(id); err != nil || len(b) != 16 {
		return doc, s3wire.Errorf(s3wire.NoSuchUpload, "no upload "+strconv.Quote(id))
	}
	v, err := ds.Store.Get(ctx, multipartDir+id+"/upload", store.ByteRange{})
	if errors.Is(err, store.ErrNotFound) {
		return doc, s3wire.Errorf(s3wire.NoSuchUpload, "no upload "+id+": it was completed, aborted or never begun")
	}
	if err != nil {
		return doc, err
	}
	if err := json.Unmarshal(v.Data, &doc); err != nil {
		return doc, fmt.Errorf("upload %s: its record is damaged: %w", id, err)
	}
	if doc.Key != key {
		return doc, s3wire.Errorf(s3wire.NoSuchUpload, "upload "+id+" is not of key "+key)
	}
	return doc, nil
}

// uploadPart stores a part (from the body, or copied from another key
// with UploadPartCopy) and erases what an earlier upload of the same part
// number left.
func (api *API) uploadPart(req *s3Request, ds *server.Dataset, id string, _ uploadDoc) error {
	n, err := partNumber(req)
	if err != nil {
		return err
	}
	// in memory: the part's key is named by its MD5, known at its end
	data, release, err := api.body(req)
	if err != nil {
		return err
	}
	defer release()
	tag, err := api.storePart(req, ds, id, n, data)
	if err != nil {
		return err
	}
	req.w.Header().Set("ETag", tag)
	req.w.WriteHeader(http.StatusOK)
	return nil
}

// uploadPartCopy stores a part copied from another key (UploadPartCopy),
// read into the memory its row's cost reserved.
func (api *API) uploadPartCopy(req *s3Request, ds *server.Dataset) error {
	p := req.c.Plan.(*copyPlan)
	data, err := p.read(req.r.Context())
	if err != nil {
		return err
	}
	tag, err := api.storePart(req, ds, p.upload, p.part, data)
	if err != nil {
		return err
	}
	s3wire.WriteXML(req.w, s3wire.CopyPartResult{Xmlns: s3wire.Namespace, ETag: tag, LastModified: s3wire.Time(time.Now())})
	return nil
}

// partNumber reads the partNumber of an upload's part.
func partNumber(req *s3Request) (int, error) {
	n, err := strconv.Atoi(req.query().Get("partNumber"))
	if err != nil || n < 1 || n > maxParts {
		return 0, s3wire.Errorf(s3wire.InvalidArgument, fmt.Sprintf("partNumber must be a whole number from 1 to %d", maxParts))
	}
	return n, nil
}

// storePart stores part n of upload id, named by its MD5, and erases what
// an earlier upload of the same part number left; it returns the part's
// ETag.
func (api *API) storePart(req *s3Request, ds *server.Dataset, id string, n int, data []byte) (string, error) {
	sum := md5.Sum(data)
	digest := hex.EncodeToString(sum[:])
	ctx := req.r.Context()
	key := fmt.Sprintf("%s%s/p%05d-%s", multipartDir, id, n, digest)
	if _, err := ds.Store.Set(ctx, key, data, store.Condition{}); err != nil {
		return "", err
	}
	if err := api.dropOtherParts(ctx, ds, id, n, key); err != nil {
		return "", err
	}
	return `"` + digest + `"`, nil
}

// dropOtherParts erases the parts numbered n other than keep. It lists
// from that number on, in order, and stops past it: each part costs a
// short listing, not one of the whole upload (which, on a store without
// sizes in its listing, is a Stat per part staged).
func (api *API) dropOtherParts(ctx context.Context, ds *server.Dataset, id string, n int, keep string) error {
	number := fmt.Sprintf("%s%s/p%05d", multipartDir, id, n)
	var others []string
	for key, err := range store.ListSorted(ctx, ds.Store, multipartDir+id+"/", number) {
		if err != nil {
			return err
		}
		if !strings.HasPrefix(key, number+"-") {
			break
		}
		if key != keep {
			others = append(others, key)
		}
	}
	for _, key := range others {
		if err := ds.Store.Erase(ctx, key); err != nil {
			return err
		}
	}
	return nil
}

// stagedParts lists an upload's parts by number (the latest of a number
// last, should two be staged at once).
func stagedParts(ctx context.Context, ds *server.Dataset, id string) ([]stagedPart, error) {
	dir := multipartDir + id + "/"
	var out []stagedPart
	for e, err := range store.ListInfo(ctx, ds.Store, dir, "") {
		if err != nil {
			return nil, err
		}
		name := strings.TrimPrefix(e.Key, dir)
		num, digest, ok := strings.Cut(strings.TrimPrefix(name, "p"), "-")
		n, err := strconv.Atoi(num)
		if !strings.HasPrefix(name, "p") || !ok || err != nil {
			continue
		}
		out = append(out, stagedPart{number: n, md5: digest, size: e.Info.Size, mod: e.Info.ModTime, key: e.Key})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].number != out[j].number {
			return out[i].number < out[j].number
		}
		return out[i].mod.Before(out[j].mod)
	})
	return out, nil
}

// listParts answers ListParts.
func (api *API) listParts(req *s3Request, ds *server.Dataset, id string, _ uploadDoc) error {
	q := req.query()
	marker, _ := strconv.Atoi(q.Get("part-number-marker"))
	limit := s3wire.MaxPage
	if s := q.Get("max-parts"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return s3wire.Errorf(s3wire.InvalidArgument, "max-parts must be a whole number of 0 or more")
		}
		limit = min(n, s3wire.MaxPage)
	}
	parts, err := stagedParts(req.r.Context(), ds, id)
	if err != nil {
		return err
	}
	out := s3wire.ListPartsResult{Xmlns: s3wire.Namespace, Bucket: ds.Name, Key: req.key, UploadID: id,
		PartNumberMarker: marker, MaxParts: limit}
	for i, p := range parts {
		if p.number <= marker || i+1 < len(parts) && parts[i+1].number == p.number {
			continue // before the marker, or superseded
		}
		if len(out.Parts) == limit {
			out.IsTruncated = true
			break
		}
		out.Parts = append(out.Parts, s3wire.Part{PartNumber: p.number, LastModified: s3wire.Time(p.mod), ETag: `"` + p.md5 + `"`, Size: p.size})
		out.NextPartNumberMarker = p.number
	}
	s3wire.WriteXML(req.w, out)
	return nil
}

// completeUpload assembles the parts the request lists (as its row's
// cost chose them), in order, writes them as the key's value and erases
// the upload.
func (api *API) completeUpload(req *s3Request, ds *server.Dataset) error {
	p := req.c.Plan.(*completion)
	id, doc, cond, chosen, total := p.upload, p.doc, p.cond, p.chosen, p.total
	ctx := req.r.Context()
	var version string
	var err error
	if ds.Files {
		version, err = api.streamParts(req.r, ds, doc.Key, cond, chosen)
	} else {
		version, err = api.assemble(req, ds, doc.Key, cond, chosen, total)
	}
	if err != nil {
		return err
	}
	if err := ds.Store.ErasePrefix(ctx, multipartDir+id+"/"); err != nil {
		api.g.Log.Warn("s3: parts of a completed upload left behind", "dataset", ds.Name, "upload", id, "error", err.Error())
	}
	s3wire.WriteXML(req.w, s3wire.CompleteMultipartUploadResult{Xmlns: s3wire.Namespace,
		Location: objectURL(req.r, ds.Name, doc.Key), Bucket: ds.Name, Key: doc.Key, ETag: ds.ETag(version)})
	return nil
}

// assemble joins the parts in the memory the row's cost reserved from
// body_memory (see estimateCompletion), each read into its place where
// the store reads into a buffer (else whole, then copied), and writes
// them as key's value under cond, for a store that takes values whole.
func (api *API) assemble(req *s3Request, ds *server.Dataset, key string, cond store.Condition, chosen []stagedPart, total int64) (string, error) {
	value, err := readParts(req.r.Context(), ds, chosen, total)
	if err != nil {
		return "", err
	}
	return api.g.StoreValue(req.r, ds, key, cond, value)
}

// readParts reads the parts one after the other into one buffer of total
// bytes.
func readParts(ctx context.Context, ds *server.Dataset, chosen []stagedPart, total int64) ([]byte, error) {
	value := make([]byte, total)
	at := int64(0)
	for _, p := range chosen {
		ok, err := store.GetInto(ctx, ds.Store, p.key, value[at:at+p.size])
		if errors.Is(err, store.ErrNotFound) || err == nil && !ok {
			return nil, partChanged(p)
		}
		if err != nil {
			return nil, err
		}
		at += p.size
	}
	return value, nil
}

func largestPart(parts []stagedPart) int64 {
	var n int64
	for _, p := range parts {
		n = max(n, p.size)
	}
	return n
}

// wholeFits checks n bytes of a value a copy or a completed upload builds
// in memory, for a store that takes values whole, against the whole of
// body_memory: 413 when n is more than all of it (the budget then waits
// for room for it, 503 with Retry-After when it stays full).
func (api *API) wholeFits(n int64) (int64, error) {
	if limit := api.g.Cfg.Server.BodyMemory; limit > 0 && n > limit {
		e := s3wire.Errorf(s3wire.EntityTooLarge, fmt.Sprintf(
			"this request would hold %s in memory to write a value whole (a copy, or an upload completed into a store that takes values whole), more than the whole budget of request bodies (body_memory = %s)",
			server.SizeText(n), server.SizeText(limit)))
		return 0, e.With("ProposedSize", strconv.FormatInt(n, 10)).With("MaxSizeAllowed", strconv.FormatInt(limit, 10))
	}
	return n, nil
}

// streamParts writes the parts, one after the other, as key's value under
// cond into a store of files: each part is read from its file as the new
// value's file is written, so no part is held in memory.
func (api *API) streamParts(r *http.Request, ds *server.Dataset, key string, cond store.Condition, chosen []stagedPart) (string, error) {
	parts := &partsReader{ctx: r.Context(), ds: ds, parts: chosen}
	defer parts.close()
	version, err := store.SetFrom(r.Context(), ds.Store, key, parts, cond)
	return api.g.Stored(r, ds, key, cond, version, err)
}

func partChanged(p stagedPart) error {
	return s3wire.Errorf(s3wire.InvalidPart, fmt.Sprintf("part %d changed while the upload completed", p.number))
}

// partsReader reads staged parts one after the other from their files,
// each as large as its listing said: a part replaced or erased while the
// upload completes fails the read, and so the write.
type partsReader struct {
	ctx   context.Context
	ds    *server.Dataset
	parts []stagedPart // those still to open
	f     *os.File     // the part being read (nil for an empty one)
	left  int64        // its bytes still to read
	part  stagedPart
}

func (p *partsReader) Read(b []byte) (int, error) {
	for p.left == 0 {
		if err := p.next(); err != nil {
			return 0, err
		}
	}
	n, err := p.f.Read(b[:min(int64(len(b)), p.left)])
	p.left -= int64(n)
	if err == io.EOF {
		err = partChanged(p.part) // shorter than listed
	}
	return n, err
}

// next opens the next part; io.EOF after the last.
func (p *partsReader) next() error {
	p.close()
	if len(p.parts) == 0 {
		return io.EOF
	}
	p.part, p.parts = p.parts[0], p.parts[1:]
	f, info, err := store.OpenFile(p.ctx, p.ds.Store, p.part.key, nil)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return partChanged(p.part)
	case err != nil:
		return err
	case info.Size != p.part.size:
		if f != nil {
			f.Close()
		}
		return partChanged(p.part)
	}
	p.f, p.left = f, info.Size
	return nil
}

func (p *partsReader) close() {
	if p.f != nil {
		p.f.Close()
		p.f = nil
	}
}

// chooseParts matches the parts a CompleteMultipartUpload lists with the
// staged ones: in ascending order, each staged with the ETag given, each
// but the last at least 5 MiB, and all of them within max_object_size.
func (api *API) chooseParts(list s3wire.CompleteMultipartUpload, staged []stagedPart) ([]stagedPart, int64, error) {
	byNumber := map[int]stagedPart{}
	for _, p := range staged {
		byNumber[p.number] = p // the latest of a number wins, as listed
	}
	var chosen []stagedPart
	var total int64
	for i, lp := range list.Parts {
		if i > 0 && lp.PartNumber <= list.Parts[i-1].PartNumber {
			return nil, 0, s3wire.Errorf(s3wire.InvalidPartOrder, "the parts must be listed in ascending order of part number")
		}
		p, ok := byNumber[lp.PartNumber]
		if !ok || strings.Trim(strings.TrimSpace(lp.ETag), `"`) != p.md5 {
			return nil, 0, s3wire.Errorf(s3wire.InvalidPart, fmt.Sprintf("part %d was not uploaded with ETag %s", lp.PartNumber, lp.ETag))
		}
		if i < len(list.Parts)-1 && p.size < minPartSize {
			return nil, 0, s3wire.Errorf(s3wire.EntityTooSmall, fmt.Sprintf("part %d holds %d bytes; every part but the last must hold at least 5 MiB", p.number, p.size))
		}
		total += p.size
		chosen = append(chosen, p)
	}
	if total > api.listener.MaxObjectSize {
		return nil, 0, s3wire.Errorf(s3wire.EntityTooLarge, fmt.Sprintf("the parts hold %d bytes, more than max_object_size (%d)", total, api.listener.MaxObjectSize))
	}
	return chosen, total, nil
}

// listUploads answers ListMultipartUploads.
func (api *API) listUploads(req *s3Request, ds *server.Dataset) error {
	q := req.query()
	ctx := req.r.Context()
	dir, err := ds.Store.ListDir(ctx, multipartDir)
	if err != nil {
		return err
	}
	type upload struct {
		id  string
		doc uploadDoc
	}
	var all []upload
	for _, p := range dir.Prefixes {
		id := strings.TrimSuffix(strings.TrimPrefix(p, multipartDir), "/")
		v, err := ds.Store.Get(ctx, p+"upload", store.ByteRange{})
		var doc uploadDoc
		if err != nil || json.Unmarshal(v.Data, &doc) != nil {
			continue // being aborted, or debris the clean-up takes
		}
		if strings.HasPrefix(doc.Key, q.Get("prefix")) {
			all = append(all, upload{id, doc})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].doc.Key != all[j].doc.Key {
			return all[i].doc.Key < all[j].doc.Key
		}
		return all[i].doc.Initiated.Before(all[j].doc.Initiated)
	})
	limit := s3wire.MaxPage
	if n, err := strconv.Atoi(q.Get("max-uploads")); err == nil && n >= 0 {
		limit = min(n, s3wire.MaxPage)
	}
	keyMarker, idMarker := q.Get("key-marker"), q.Get("upload-id-marker")
	out := s3wire.ListMultipartUploadsResult{Xmlns: s3wire.Namespace, Bucket: ds.Name, KeyMarker: keyMarker,
		UploadIDMarker: idMarker, MaxUploads: limit, Prefix: q.Get("prefix")}
	passed := idMarker == ""
	for _, u := range all {
		if u.doc.Key < keyMarker || u.doc.Key == keyMarker && !passed {
			if u.id == idMarker {
				passed = true
			}
			continue
		}
		if len(out.Uploads) == limit {
			out.IsTruncated = true
			break
		}
		out.Uploads = append(out.Uploads, s3wire.Upload{Key: u.doc.Key, UploadID: u.id, Initiated: s3wire.Time(u.doc.Initiated)})
		out.NextKeyMarker, out.NextUploadIDMarker = u.doc.Key, u.id
	}
	s3wire.WriteXML(req.w, out)
	return nil
}

// janitor erases the uploads older than multipart_max_age, in every
// writable dataset, until the gateway closes.
func (api *API) janitor() {
	defer api.stopped.Done()
	every := max(min(api.listener.MultipartMaxAge/4, 10*time.Minute), 100*time.Millisecond)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-api.stop:
			return
		case <-t.C:
			for _, ds := range api.g.All() {
				if !ds.Cfg.ReadOnly && ds.Store.Capabilities().Write {
					api.sweep(ds)
				}
			}
		}
	}
}

// sweep erases one dataset's uploads older than multipart_max_age, and
// directories of uploads whose record is gone (an abort cut short).
func (api *API) sweep(ds *server.Dataset) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir, err := ds.Store.ListDir(ctx, multipartDir)
	if err != nil {
		api.g.Log.Warn("s3: listing multipart uploads", "dataset", ds.Name, "error", err.Error())
		return
	}
	for _, p := range dir.Prefixes {
		info, err := ds.Store.Stat(ctx, p+"upload")
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err == nil && time.Since(api.started(ctx, ds, p, info)) < api.listener.MultipartMaxAge {
			continue
		}
		if err := ds.Store.ErasePrefix(ctx, p); err != nil {
			api.g.Log.Warn("s3: erasing an abandoned multipart upload", "dataset", ds.Name, "upload", p, "error", err.Error())
			continue
		}
		api.g.Log.Info("s3: erased an abandoned multipart upload", "dataset", ds.Name, "upload", strings.TrimSuffix(strings.TrimPrefix(p, multipartDir), "/"))
	}
}

// started is when the upload of directory p began: its record's time,
// read from the record where the store keeps no times.
func (api *API) started(ctx context.Context, ds *server.Dataset, p string, info store.Info) time.Time {
	if !info.ModTime.IsZero() {
		return info.ModTime
	}
	var doc uploadDoc
	v, err := ds.Store.Get(ctx, p+"upload", store.ByteRange{})
	if err != nil || json.Unmarshal(v.Data, &doc) != nil {
		return time.Now() // unreadable now: look again next time
	}
	return doc.Initiated
}

// objectURL is the URL of a key as the request reached the gateway
// (path-style).
func objectURL(r *http.Request, bucket, key string) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	segs := strings.Split(key, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return scheme + "://" + r.Host + "/" + bucket + "/" + strings.Join(segs, "/")
}
