package gateway

import (
	"encoding/xml"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/serve/s3api/s3wire"
)

// Copies and completed uploads build a value whole in memory (for a store
// that takes values whole): their rows' costs (costCopy, costPartCopy,
// costCompletion) find how large before the handler runs, checking what
// the handler used to check first, in the same order, and leave what
// they found in the call's plan.
var (
	costCopy       = cost{name: "whole", budget: bodies, estimate: estimateCopy}
	costPartCopy   = cost{name: "whole", budget: bodies, estimate: estimatePartCopy}
	costCompletion = cost{name: "whole", budget: bodies, estimate: estimateCompletion}
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
func estimateCopy(g *Gateway, c *call) (int64, error) {
	req := c.s3
	cond, err := g.condition(c.r, c.ds, c.key)
	if err != nil {
		return 0, err
	}
	return g.s3.planCopy(req, &copyPlan{cond: cond}, "")
}

// estimatePartCopy is UploadPartCopy's cost: the upload, the part
// number, then the source's range, held whole.
func estimatePartCopy(g *Gateway, c *call) (int64, error) {
	req := c.s3
	id := req.query().Get("uploadId")
	if _, err := g.s3.upload(c.r.Context(), c.ds, id, req.key); err != nil {
		return 0, err
	}
	n, err := partNumber(req)
	if err != nil {
		return 0, err
	}
	return g.s3.planCopy(req, &copyPlan{upload: id, part: n}, req.r.Header.Get("X-Amz-Copy-Source-Range"))
}

// planCopy finds the source's range into p and is its size.
func (api *s3API) planCopy(req *s3Request, p *copyPlan, rangeHeader string) (int64, error) {
	var err error
	if p.src, p.start, p.end, err = api.copyRange(req, rangeHeader); err != nil {
		return 0, err
	}
	req.c.plan = p
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
func estimateCompletion(g *Gateway, c *call) (int64, error) {
	api, req, ds := g.s3, c.s3, c.ds
	p := &completion{upload: req.query().Get("uploadId")}
	var err error
	if p.doc, err = api.upload(c.r.Context(), ds, p.upload, req.key); err != nil {
		return 0, err
	}
	if p.cond, err = g.condition(c.r, ds, p.doc.Key); err != nil {
		return 0, err
	}
	list, err := api.partList(c)
	if err != nil {
		return 0, err
	}
	staged, err := stagedParts(c.r.Context(), ds, p.upload)
	if err != nil {
		return 0, err
	}
	if p.chosen, p.total, err = api.chooseParts(list, staged); err != nil {
		return 0, err
	}
	c.plan = p
	if ds.files {
		return takesNothing, nil
	}
	need := p.total
	if !store.OptionalOf(ds.store).Into {
		need += largestPart(p.chosen)
	}
	return api.wholeFits(need)
}

// partList reads a CompleteMultipartUpload document: a body, in room of
// its own from body_memory, given back once it is parsed.
func (api *s3API) partList(c *call) (s3wire.CompleteMultipartUpload, error) {
	var list s3wire.CompleteMultipartUpload
	if err := api.g.take(c, costUpload); err != nil {
		return list, err
	}
	data, release, err := api.body(c.s3)
	if err != nil {
		c.res.release()
		c.res = nil
		return list, err
	}
	err = xml.Unmarshal(data, &list)
	release()
	c.res = nil
	if err != nil || len(list.Parts) == 0 {
		return list, s3wire.Errorf(s3wire.MalformedXML, "the CompleteMultipartUpload document is not valid or lists no parts")
	}
	return list, nil
}
