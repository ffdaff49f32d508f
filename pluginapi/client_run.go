package pluginapi

import (
	"context"

	pb "github.com/zarrgw/zarrgw/pluginapi/zarrgwv1"
)

// run makes one codec call on its own stream, sending the input and
// receiving the output in frames.
// An output the size of dst (non-nil) is received into it.
func (c *Client) run(ctx context.Context, call *pb.CodecCall, in *pb.Payload, data, dst []byte) (*pb.Payload, []byte, error) {
	conn, err := c.connect(ctx)
	if err != nil {
		return nil, nil, err
	}
	out, outData, err := runOn(ctx, conn, call, in, data, dst)
	if err != nil {
		return nil, nil, c.fail(ctx, conn, err)
	}
	return out, outData, nil
}

func runOn(ctx context.Context, conn *Conn, call *pb.CodecCall, in *pb.Payload, data, dst []byte) (*pb.Payload, []byte, error) {
	// Cancelling on return ends the stream should we stop reading early.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := pb.NewCodecClient(conn.cc).Run(ctx)
	if err != nil {
		return nil, nil, err
	}
	for i, part := range split(data) {
		f := &pb.CodecFrame{Data: part}
		if i == 0 {
			f.Call, f.Payload = call, in
		}
		// A failed Send means the stream ended; Recv below has the reason.
		if stream.Send(f) != nil {
			break
		}
	}
	if err := stream.CloseSend(); err != nil {
		return nil, nil, err
	}
	first, err := stream.Recv()
	if err != nil {
		return nil, nil, err
	}
	next := func() ([]byte, error) {
		f, err := stream.Recv()
		return f.GetData(), err
	}
	if size := first.GetPayload().GetSize(); dst != nil && size == int64(len(dst)) {
		return first.Payload, dst, gatherInto(dst, size, first.Data, next)
	}
	outData, err := gather(first.GetPayload().GetSize(), first.Data, next)
	return first.Payload, outData, err
}
