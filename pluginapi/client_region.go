package pluginapi

import (
	"context"
	"fmt"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
	pb "github.com/zarrgw/zarrgw/pluginapi/zarrgwv1"
)

// remotePartial is an array->bytes codec in a plugin that decodes regions
// of a chunk from byte ranges (sharding_indexed): the host reads the
// ranges the plugin asks for, so a region costs what it costs in process.
type remotePartial struct{ remoteArrayBytes }

// DecodeRegion implements codec.PartialDecoder.
func (r *remotePartial) DecodeRegion(ctx context.Context, in codec.Spec, src codec.RangeReader, region []grid.Span) (*ndarray.Array, error) {
	conn, err := r.c.connect(ctx)
	if err != nil {
		return nil, err
	}
	var srcErr error // a read that failed here, returned as it is
	a, err := r.decodeRegionOn(ctx, conn, in, src, region, &srcErr)
	if srcErr != nil {
		return nil, srcErr
	}
	if err != nil {
		return nil, r.c.fail(ctx, conn, err)
	}
	return a, nil
}

func (r *remotePartial) decodeRegionOn(ctx context.Context, conn *Conn, in codec.Spec, src codec.RangeReader, region []grid.Span, srcErr *error) (*ndarray.Array, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the stream should we stop early
	stream, err := pb.NewCodecClient(conn.cc).DecodeRegion(ctx)
	if err != nil {
		return nil, err
	}
	call := &pb.RegionCall{Codec: r.ref, Spec: specToPB(in), Region: spansToPB(region), Capabilities: capsToPB(src.Capabilities())}
	if err := stream.Send(&pb.RegionFrame{Call: call}); err != nil {
		_, err = stream.Recv() // the reason the stream ended
		return nil, err
	}
	for {
		f, err := stream.Recv()
		if err != nil {
			return nil, err
		}
		if f.Read == nil {
			return r.regionResult(stream, f)
		}
		if err := answerRead(ctx, stream, src, f.Read, srcErr); err != nil {
			return nil, err
		}
	}
}

// answerRead reads what the plugin asked for and sends it, or the error.
func answerRead(ctx context.Context, stream pb.Codec_DecodeRegionClient, src codec.RangeReader, read *pb.RangeRead, srcErr *error) error {
	if read.Size {
		n, err := src.Size(ctx)
		if err != nil {
			*srcErr = err
			return stream.Send(&pb.RegionFrame{Error: errorToPB(err)})
		}
		return stream.Send(&pb.RegionFrame{Size: n})
	}
	ranges := make([]store.ByteRange, len(read.Ranges))
	for i, p := range read.Ranges {
		ranges[i] = rangeFromPB(p)
	}
	parts, err := src.ReadRanges(ctx, ranges)
	if err != nil {
		*srcErr = err
		return stream.Send(&pb.RegionFrame{Error: errorToPB(err)})
	}
	first := &pb.RegionFrame{Lengths: make([]int64, len(parts)), Payload: &pb.Payload{}}
	for i, p := range parts {
		first.Lengths[i] = int64(len(p))
		first.Payload.Size += int64(len(p))
	}
	if err := stream.Send(first); err != nil {
		return err
	}
	for _, p := range parts {
		if len(p) == 0 {
			continue // the plugin counts bytes, not frames
		}
		for _, piece := range split(p) {
			if err := stream.Send(&pb.RegionFrame{Data: piece}); err != nil {
				return err
			}
		}
	}
	return nil
}

// regionResult gathers the decoded region the plugin sends last.
func (r *remotePartial) regionResult(stream pb.Codec_DecodeRegionClient, first *pb.RegionFrame) (*ndarray.Array, error) {
	if first.Payload.GetArray() == nil {
		return nil, fmt.Errorf("plugin %s: codec %s: %w: region answered without an array", r.c.Name(), r.name, codec.ErrCorrupt)
	}
	data, err := gather(first.Payload.GetSize(), first.Data, func() ([]byte, error) {
		f, err := stream.Recv()
		return f.GetData(), err
	})
	if err != nil {
		return nil, err
	}
	return r.array(first.Payload, data, nil)
}
