package s3api

import (
	"encoding/xml"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/serve/s3api/s3wire"
	"github.com/zarrgw/zarrgw/host/serve/server"
)

// Copies and completed uploads build a value whole in memory (for a store
// that takes values whole): their rows' costs (costCopy, costPartCopy,
// costCompletion) find how large before the handler runs, checking what
// the handler used to check first, in the same order, and leave what
// they found in the call's plan.
var (
	costCopy       = server.Cost{Name: "whole", Budget: server.Bodies, Estimate: estimateCopy}
	costPartCopy   = server.Cost{Name: "whole", Budget: server.Bodies, Estimate: estimatePartCopy}
	costCompletion = server.Cost{Name: "whole", Budget: server.Bodies, Estimate: estimateCompletion}
)

// copyPlan is a copy's source as its cost found it: read access and the
// copy-source conditions checked, the range within max_object_size.
type copyPlan struct {
	cond       store.Condition // the destination's (CopyObject)
	src        copiedFrom
	start, end int64
	// upload and part are UploadPartCopy's.
	upload string
	part   int
}

// estimateCopy is CopyObject's cost: the destination's conditions, then
// the source's range, held whole.
func estimateCopy(c *server.Call) (int64, error) {
	req := s3Of(c)
	api, g := req.api, req.api.g
	cond, err := g.Condition(c.R, c.DS, c.Key)
	if err != nil {
		return 0, err
	}
	return api.planCopy(req, &copyPlan{cond: cond}, "")
}

// estimatePartCopy is UploadPartCopy's cost: the upload, the part
// number, then the source's range, held whole.
func estimatePartCopy(c *server.Call) (int64, error) {
	req := s3Of(c)
	api := req.api
	id := req.query().Get("uploadId")
	if _, err := api.upload(c.R.Context(), c.DS, id, req.key); err != nil {
		return 0, err
	}
	n, err := partNumber(req)
	if err != nil {
		return 0, err
	}
	return api.planCopy(req, &copyPlan{upload: id, part: n}, req.r.Header.Get("X-Amz-Copy-Source-Range"))
}

// planCopy finds the source's range into p and is its size.
func (api *API) planCopy(req *s3Request, p *copyPlan, rangeHeader string) (int64, error) {
	var err error
	if p.src, p.start, p.end, err = api.copyRange(req, rangeHeader); err != nil {
		return 0, err
	}
	req.c.Plan = p
	return api.wholeFits(p.end - p.start)
}

// completion is a CompleteMultipartUpload as its cost found it.
type completion struct {
	upload string
	doc    uploadDoc
	cond   store.Condition
	chosen []stagedPart
	total  int64
}

// estimateCompletion is CompleteMultipartUpload's cost: the upload, the
// destination's conditions, the request's list of parts (its body, read
// into room of its own, given back once parsed) and the staged parts it
// chooses; the value is held whole unless the store takes files (parts
// streamed from theirs) and, where the store cannot read into a buffer,
// with its largest part beside it.
func estimateCompletion(c *server.Call) (int64, error) {
	req, ds := s3Of(c), c.DS
	api, g := req.api, req.api.g
	p := &completion{upload: req.query().Get("uploadId")}
	var err error
	if p.doc, err = api.upload(c.R.Context(), ds, p.upload, req.key); err != nil {
		return 0, err
	}
	if p.cond, err = g.Condition(c.R, ds, p.doc.Key); err != nil {
		return 0, err
	}
	list, err := api.partList(c)
	if err != nil {
		return 0, err
	}
	staged, err := stagedParts(c.R.Context(), ds, p.upload)
	if err != nil {
		return 0, err
	}
	if p.chosen, p.total, err = api.chooseParts(list, staged); err != nil {
		return 0, err
	}
	c.Plan = p
	if ds.Files {
		return server.TakesNothing, nil
	}
	need := p.total
	if !store.OptionalOf(ds.Store).Into {
		need += largestPart(p.chosen)
	}
	return api.wholeFits(need)
}

// partList reads a CompleteMultipartUpload document: a body, in room of
// its own from body_memory, given back once it is parsed.
func (api *API) partList(c *server.Call) (s3wire.CompleteMultipartUpload, error) {
	var list s3wire.CompleteMultipartUpload
	if err := api.g.Take(c, server.CostUpload); err != nil {
		return list, err
	}
	data, release, err := api.body(s3Of(c))
	if err != nil {
		c.Res.Release()
		c.Res = nil
		return list, err
	}
	err = xml.Unmarshal(data, &list)
	release()
	c.Res = nil
	if err != nil || len(list.Parts) == 0 {
		return list, s3wire.Errorf(s3wire.MalformedXML, "the CompleteMultipartUpload document is not valid or lists no parts")
	}
	return list, nil
}
