package pluginapi

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"google.golang.org/grpc/codes"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/ndarray"
	pb "github.com/zarrgw/zarrgw/pluginapi/zarrgwv1"
)

// codecService runs the plugin's codecs for the host.
type codecService struct {
	pb.UnimplementedCodecServer
	srv *server
}

func (c *codecService) Describe(ctx context.Context, ref *pb.CodecRef) (*pb.CodecInfo, error) {
	built, err := c.srv.codec(ctx, ref)
	if err != nil {
		return nil, toStatus(err)
	}
	_, sized := built.(codec.SizedCodec)
	_, partial := built.(codec.PartialDecoder)
	_, layout := built.(codec.LayoutDescriber)
	return &pb.CodecInfo{
		Name:          built.Name(),
		Kind:          pb.CodecKind(codec.KindOf(built)),
		Configuration: built.Configuration(),
		Sized:         sized,
		Partial:       partial,
		Layout:        layout,
	}, nil
}

func (c *codecService) EncodedSize(ctx context.Context, req *pb.EncodedSizeRequest) (*pb.EncodedSizeResponse, error) {
	built, spec, err := c.srv.codecFor(ctx, req.Codec, req.Spec)
	if err != nil {
		return nil, toStatus(err)
	}
	sc, ok := built.(codec.SizedCodec)
	if !ok {
		return &pb.EncodedSizeResponse{Size: -1}, nil
	}
	n, ok := sc.EncodedSize(ctx, spec, req.DecodedSize)
	return &pb.EncodedSizeResponse{Size: n, Ok: ok}, nil
}

func (c *codecService) Run(stream pb.Codec_RunServer) error {
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	data, err := gather(first.GetPayload().GetSize(), first.Data, func() ([]byte, error) {
		f, err := stream.Recv()
		return f.GetData(), err
	})
	if err != nil {
		return toStatus(fmt.Errorf("receive input: %w", err))
	}
	out, outData, err := c.run(stream.Context(), first.Call, first.Payload, data)
	if err != nil {
		return toStatus(err)
	}
	for i, part := range split(outData) {
		f := &pb.CodecFrame{Data: part}
		if i == 0 {
			f.Payload = out
		}
		if err := stream.Send(f); err != nil {
			return err
		}
	}
	return nil
}

func (c *codecService) Batch(ctx context.Context, req *pb.BatchRequest) (*pb.BatchResponse, error) {
	results := make([]*pb.BatchResult, len(req.Items))
	out := c.srv.arenas.region(req.Output)
	// The host batches because it had that many calls in flight at once;
	// run them at once here too, on as many workers as there are CPUs.
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(len(req.Items), runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := range work {
				results[i] = c.item(ctx, req.Items[i], out)
			}
		})
	}
	for i := range req.Items {
		work <- i
	}
	close(work)
	wg.Wait()
	limitBatch(results)
	return &pb.BatchResponse{Results: results}, nil
}

// item runs one call of a batch. Its input may be in an arena, and its
// output goes to out when it fits there.
func (c *codecService) item(ctx context.Context, f *pb.CodecFrame, out *outRegion) *pb.BatchResult {
	data, err := c.srv.arenas.input(f.Payload, f.Data)
	if err != nil {
		return &pb.BatchResult{Error: errorToPB(fmt.Errorf("batch item: %w", err))}
	}
	if r, ok := c.decodeInto(ctx, f.Call, f.Payload, data, out); ok {
		return r
	}
	p, outData, err := c.run(ctx, f.Call, f.Payload, data)
	if err != nil {
		return &pb.BatchResult{Error: errorToPB(err)}
	}
	p, outData = out.place(p, outData)
	return &pb.BatchResult{Payload: p, Data: outData}
}

// decodeInto lets a bytes->bytes codec that decodes into a buffer decode
// straight into the host's shared memory, when the decoded size is known.
func (c *codecService) decodeInto(ctx context.Context, call *pb.CodecCall, in *pb.Payload, data []byte, out *outRegion) (*pb.BatchResult, bool) {
	size := call.GetSpec().GetDecodedSize()
	if out == nil || call.GetOp() != pb.CodecOp_CODEC_OP_DECODE || size <= 0 || in.GetArray() != nil {
		return nil, false
	}
	built, err := c.srv.codec(ctx, call.Codec)
	if err != nil || codec.KindOf(built) != codec.BytesToBytes {
		return nil, false
	}
	into, ok := built.(codec.DecoderInto)
	if !ok {
		return nil, false
	}
	spec, err := specFromPB(call.Spec)
	if err != nil {
		return nil, false
	}
	dst, sp, ok := out.alloc(int(size))
	if !ok {
		return nil, false
	}
	if err := into.DecodeBytesInto(ctx, spec, data, dst); err != nil {
		return &pb.BatchResult{Error: errorToPB(err)}, true
	}
	return &pb.BatchResult{Payload: &pb.Payload{Size: size, Arena: sp}}, true
}

// tooLargeForBatch marks a result sent back for a call of its own.
const tooLargeForBatch = "output too large for a batch"

// limitBatch keeps the response within the host's receive limit: outputs
// that do not fit are replaced by a request to make the call again on a
// stream, where any size goes.
func limitBatch(results []*pb.BatchResult) {
	total := 0
	for i, r := range results {
		if total+len(r.Data) > batchRespMax {
			results[i] = &pb.BatchResult{Error: &pb.Error{Code: uint32(codes.ResourceExhausted), Message: tooLargeForBatch}}
			continue
		}
		total += len(r.Data)
	}
}

// run applies one call to its input and returns the output's header and bytes.
func (c *codecService) run(ctx context.Context, call *pb.CodecCall, in *pb.Payload, data []byte) (*pb.Payload, []byte, error) {
	if call == nil {
		return nil, nil, fmt.Errorf("codec call without a header")
	}
	built, spec, err := c.srv.codecFor(ctx, call.Codec, call.Spec)
	if err != nil {
		return nil, nil, err
	}
	if call.Op != encodeOp && call.Op != decodeOp {
		return nil, nil, fmt.Errorf("codec %s: unknown operation %v", built.Name(), call.Op)
	}
	return apply(ctx, call.Op == encodeOp, built, spec, in, data)
}

// apply encodes or decodes with c, used as the kind of codec it is
// (codec.KindOf): the one place the plugin dispatches on a codec's kind.
func apply(ctx context.Context, encode bool, c codec.Codec, spec codec.Spec, in *pb.Payload, data []byte) (*pb.Payload, []byte, error) {
	switch codec.KindOf(c) {
	case codec.ArrayToArray:
		a, err := arrayIn(c, in, data)
		if err != nil {
			return nil, nil, err
		}
		aa := c.(codec.ArrayArray)
		op := aa.DecodeArray
		if encode {
			op = aa.EncodeArray
		}
		return arrayOut(op(ctx, spec, a))
	case codec.ArrayToBytes:
		ab := c.(codec.ArrayBytes)
		if !encode {
			if err := bytesIn(c, in); err != nil {
				return nil, nil, err
			}
			return arrayOut(ab.Decode(ctx, spec, data))
		}
		a, err := arrayIn(c, in, data)
		if err != nil {
			return nil, nil, err
		}
		return bytesOut(ab.Encode(ctx, spec, a))
	case codec.BytesToBytes:
		if err := bytesIn(c, in); err != nil {
			return nil, nil, err
		}
		bb := c.(codec.BytesBytes)
		op := bb.DecodeBytes
		if encode {
			op = bb.EncodeBytes
		}
		return bytesOut(op(ctx, spec, data))
	}
	return nil, nil, fmt.Errorf("codec %s implements none or several of the codec kinds", c.Name())
}

func arrayIn(c codec.Codec, in *pb.Payload, data []byte) (*ndarray.Array, error) {
	a, err := arrayFromPB(in.GetArray(), data)
	if err != nil {
		return nil, fmt.Errorf("codec %s: input: %w", c.Name(), err)
	}
	return a, nil
}

func bytesIn(c codec.Codec, in *pb.Payload) error {
	if in.GetArray() != nil {
		return fmt.Errorf("codec %s takes bytes, got an array", c.Name())
	}
	return nil
}

func arrayOut(a *ndarray.Array, err error) (*pb.Payload, []byte, error) {
	if err != nil {
		return nil, nil, err
	}
	return arrayToPB(a)
}

func bytesOut(b []byte, err error) (*pb.Payload, []byte, error) {
	if err != nil {
		return nil, nil, err
	}
	return &pb.Payload{Size: int64(len(b))}, b, nil
}

func (c *codecService) OutputSpec(ctx context.Context, req *pb.OutputSpecRequest) (*pb.ChunkSpec, error) {
	built, spec, err := c.srv.codecFor(ctx, req.Codec, req.Spec)
	if err != nil {
		return nil, toStatus(err)
	}
	aa, ok := built.(codec.ArrayArray)
	if !ok || codec.KindOf(built) != codec.ArrayToArray {
		return nil, toStatus(fmt.Errorf("codec %s is not array->array", built.Name()))
	}
	out, err := aa.OutputSpec(ctx, spec)
	if err != nil {
		return nil, toStatus(err)
	}
	return specToPB(out), nil
}
