package pluginapi

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/store"
	pb "github.com/zarrgw/zarrgw/pluginapi/zarrgwv1"
)

// DecodeRegion runs a partial decoder (or, for an occupancy call, a
// layout describer) with a range reader that asks the host for each read
// on the call's own stream.
func (c *codecService) DecodeRegion(stream pb.Codec_DecodeRegionServer) error {
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	call := first.GetCall()
	if call == nil {
		return toStatus(errors.New("decode region: the first frame carries no call"))
	}
	built, spec, err := c.srv.codecFor(stream.Context(), call.Codec, call.Spec)
	if err != nil {
		return toStatus(err)
	}
	src := &streamRanges{stream: stream, suffix: call.GetCapabilities().GetSuffixRanges()}
	if call.Occupancy {
		return occupancy(stream, built, spec, src)
	}
	pd, ok := built.(codec.PartialDecoder)
	if !ok {
		return toStatus(fmt.Errorf("codec %s: %w: no partial decode", built.Name(), store.ErrUnsupported))
	}
	region, err := spansFromPB(call.Region, spec.Shape)
	if err != nil {
		return toStatus(err)
	}
	a, err := pd.DecodeRegion(stream.Context(), spec, src, region)
	if err != nil {
		return toStatus(err)
	}
	p, data, err := arrayToPB(a)
	if err != nil {
		return toStatus(err)
	}
	for i, part := range split(data) {
		f := &pb.RegionFrame{Data: part}
		if i == 0 {
			f.Payload = p
		}
		if err := stream.Send(f); err != nil {
			return err
		}
	}
	return nil
}

// occupancy answers an occupancy call.
func occupancy(stream pb.Codec_DecodeRegionServer, built codec.Codec, spec codec.Spec, src *streamRanges) error {
	ld, ok := built.(codec.LayoutDescriber)
	if !ok {
		return toStatus(fmt.Errorf("codec %s: %w: no layout to describe", built.Name(), store.ErrUnsupported))
	}
	stored, total, err := ld.Occupancy(stream.Context(), spec, src)
	if err != nil {
		return toStatus(err)
	}
	return stream.Send(&pb.RegionFrame{Occupancy: &pb.Occupancy{Stored: int64(stored), Total: int64(total)}})
}

// DescribeLayout implements the codec's codec.LayoutDescriber.DescribeLayout.
func (c *codecService) DescribeLayout(ctx context.Context, req *pb.LayoutRequest) (*pb.LayoutInfo, error) {
	built, spec, err := c.srv.codecFor(ctx, req.Codec, req.Spec)
	if err != nil {
		return nil, toStatus(err)
	}
	ld, ok := built.(codec.LayoutDescriber)
	if !ok {
		return nil, toStatus(fmt.Errorf("codec %s: %w: no layout to describe", built.Name(), store.ErrUnsupported))
	}
	l, err := ld.DescribeLayout(ctx, spec)
	if err != nil {
		return nil, toStatus(err)
	}
	return &pb.LayoutInfo{Description: l.Description, InnerChunks: int64(l.InnerChunks)}, nil
}

// streamRanges is the codec.RangeReader of a DecodeRegion call: each read
// is a request to the host and its answer, one at a time. Its values are
// not cached (Key ""): one plugin process serves many arrays and stores,
// whose keys may coincide.
type streamRanges struct {
	mu     sync.Mutex
	stream pb.Codec_DecodeRegionServer
	suffix bool
}

func (s *streamRanges) SuffixRanges() bool { return s.suffix }
func (s *streamRanges) Key() string        { return "" }

func (s *streamRanges) ReadRanges(ctx context.Context, ranges []store.ByteRange) ([][]byte, string, error) {
	read := &pb.RangeRead{Ranges: make([]*pb.ByteRange, len(ranges))}
	for i, r := range ranges {
		read.Ranges[i] = rangeToPB(r)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	first, err := s.ask(read)
	if err != nil {
		return nil, "", err
	}
	if len(first.Lengths) != len(ranges) {
		return nil, "", fmt.Errorf("host answered %d ranges of %d", len(first.Lengths), len(ranges))
	}
	data, err := receiveN(first.GetPayload().GetSize(), first.Data, func() ([]byte, error) {
		f, err := s.stream.Recv()
		return f.GetData(), err
	})
	if err != nil {
		return nil, "", fmt.Errorf("receive ranges: %w", err)
	}
	parts, err := cutLengths(data, first.Lengths)
	return parts, first.Version, err
}

func (s *streamRanges) Size(ctx context.Context) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	first, err := s.ask(&pb.RangeRead{Size: true})
	if err != nil {
		return 0, err
	}
	return first.Size, nil
}

// ask sends a read and returns the first frame of its answer, or the
// host's error for it.
func (s *streamRanges) ask(read *pb.RangeRead) (*pb.RegionFrame, error) {
	if err := s.stream.Send(&pb.RegionFrame{Read: read}); err != nil {
		return nil, err
	}
	first, err := s.stream.Recv()
	if err != nil {
		return nil, err
	}
	if first.Error != nil {
		return nil, errorFromPB(first.Error)
	}
	return first, nil
}

// receiveN returns size bytes: first, then frames from next until they add
// up. Unlike gather it does not wait for the stream to end, which goes on.
func receiveN(size int64, first []byte, next func() ([]byte, error)) ([]byte, error) {
	if size < 0 || int64(len(first)) > size {
		return nil, fmt.Errorf("payload of %d bytes announced as %d", len(first), size)
	}
	buf := append(make([]byte, 0, min(size, maxPrealloc)), first...)
	for int64(len(buf)) < size {
		p, err := next()
		if err != nil {
			return nil, err
		}
		if int64(len(buf))+int64(len(p)) > size {
			return nil, errExtraData
		}
		buf = append(buf, p...)
	}
	return buf, nil
}

// cutLengths splits data into consecutive pieces of the given lengths,
// which must add up to its length.
func cutLengths(data []byte, lengths []int64) ([][]byte, error) {
	out := make([][]byte, len(lengths))
	for i, n := range lengths {
		if n < 0 || n > int64(len(data)) {
			return nil, fmt.Errorf("range %d of %d bytes beyond the %d received", i, n, len(data))
		}
		out[i], data = data[:n:n], data[n:]
	}
	if len(data) != 0 {
		return nil, fmt.Errorf("%d bytes received beyond the ranges", len(data))
	}
	return out, nil
}

func spansToPB(spans []grid.Span) []*pb.Span {
	out := make([]*pb.Span, len(spans))
	for i, s := range spans {
		out[i] = &pb.Span{Start: int64(s.Start), Step: int64(s.Step), Count: int64(s.Count)}
	}
	return out
}

// spansFromPB reads a region and checks it lies inside shape.
func spansFromPB(p []*pb.Span, shape []int) ([]grid.Span, error) {
	if len(p) != len(shape) {
		return nil, fmt.Errorf("region of %d dimensions for a chunk of %d", len(p), len(shape))
	}
	out := make([]grid.Span, len(p))
	for i, s := range p {
		start, step, count := s.GetStart(), s.GetStep(), s.GetCount()
		if start < 0 || count < 0 || (count > 1 && step < 1) || (count > 0 && start+(count-1)*step >= int64(shape[i])) {
			return nil, fmt.Errorf("region span %d (start %d, step %d, count %d) outside the chunk's %d", i, start, step, count, shape[i])
		}
		out[i] = grid.Span{Start: int(start), Step: int(step), Count: int(count)}
	}
	return out, nil
}
