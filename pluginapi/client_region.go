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
	call := &pb.RegionCall{Codec: r.ref, Spec: specToPB(in), Region: spansToPB(region)}
	var a *ndarray.Array
	err := r.regionCall(ctx, call, src, func(stream pb.Codec_DecodeRegionClient, last *pb.RegionFrame) error {
		var err error
		a, err = r.regionResult(stream, last)
		return err
	})
	return a, err
}

// remoteLayout is a partial decoder in a plugin that also describes its
// chunks' layout (codec.LayoutDescriber), as sharding_indexed does.
type remoteLayout struct{ remotePartial }

// DescribeLayout implements codec.LayoutDescriber.
func (r *remoteLayout) DescribeLayout(ctx context.Context, in codec.Spec) (codec.Layout, error) {
	info, err := unary(ctx, r.c, func(conn *Conn) (*pb.LayoutInfo, error) {
		return pb.NewCodecClient(conn.cc).DescribeLayout(ctx, &pb.LayoutRequest{Codec: r.ref, Spec: specToPB(in)})
	})
	if err != nil {
		return codec.Layout{}, err
	}
	return codec.Layout{Description: info.Description, InnerChunks: int(info.InnerChunks)}, nil
}

// Occupancy implements codec.LayoutDescriber: the plugin reads the stored
// chunk's index through the host, as for a region.
func (r *remoteLayout) Occupancy(ctx context.Context, in codec.Spec, src codec.RangeReader) (stored, total int, err error) {
	call := &pb.RegionCall{Codec: r.ref, Spec: specToPB(in), Occupancy: true}
	err = r.regionCall(ctx, call, src, func(_ pb.Codec_DecodeRegionClient, last *pb.RegionFrame) error {
		o := last.GetOccupancy()
		if o == nil {
			return fmt.Errorf("plugin %s: codec %s: %w: occupancy answered without counts", r.c.Name(), r.name, codec.ErrCorrupt)
		}
		stored, total = int(o.Stored), int(o.Total)
		return nil
	})
	return stored, total, err
}

// regionCall runs one DecodeRegion stream: it sends call, answers the
// plugin's reads from src, and hands the first frame that is not a read
// (the result) to result. A read of src that failed is returned as it is.
// A stream the plugin's crash broke off is made again once: it only reads.
func (r *remotePartial) regionCall(ctx context.Context, call *pb.RegionCall, src codec.RangeReader, result func(pb.Codec_DecodeRegionClient, *pb.RegionFrame) error) error {
	call.Capabilities = &pb.StoreCapabilities{SuffixRanges: src.SuffixRanges()}
	return retried(ctx, func() error {
		conn, err := r.c.connect(ctx)
		if err != nil {
			return err
		}
		var srcErr error
		err = r.stream(ctx, conn, call, src, &srcErr, result)
		if srcErr != nil {
			return srcErr
		}
		if err != nil {
			return r.c.fail(ctx, conn, err)
		}
		return nil
	})
}

func (r *remotePartial) stream(ctx context.Context, conn *Conn, call *pb.RegionCall, src codec.RangeReader, srcErr *error, result func(pb.Codec_DecodeRegionClient, *pb.RegionFrame) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the stream should we stop early
	stream, err := pb.NewCodecClient(conn.cc).DecodeRegion(ctx)
	if err != nil {
		return err
	}
	if err := stream.Send(&pb.RegionFrame{Call: call}); err != nil {
		_, err = stream.Recv() // the reason the stream ended
		return err
	}
	for {
		f, err := stream.Recv()
		if err != nil {
			return err
		}
		if f.Read == nil {
			return result(stream, f)
		}
		if err := answerRead(ctx, stream, src, f.Read, srcErr); err != nil {
			return err
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
	parts, version, err := src.ReadRanges(ctx, ranges)
	if err != nil {
		*srcErr = err
		return stream.Send(&pb.RegionFrame{Error: errorToPB(err)})
	}
	first := &pb.RegionFrame{Lengths: make([]int64, len(parts)), Payload: &pb.Payload{}, Version: version}
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
