package pluginapi

import (
	"context"

	pb "github.com/zarrgw/zarrgw/pluginapi/zarrgwv1"
)

// run makes one codec call on its own stream, sending the input and
// receiving the output in frames.
func (c *Client) run(ctx context.Context, call *pb.CodecCall, in *pb.Payload, data []byte) (*pb.Payload, []byte, error) {
	conn, err := c.connect(ctx)
	if err != nil {
		return nil, nil, err
	}
	out, outData, err := runOn(ctx, conn, call, in, data)
	if err != nil {
		return nil, nil, c.fail(ctx, conn, err)
	}
	return out, outData, nil
}

func runOn(ctx context.Context, conn *Conn, call *pb.CodecCall, in *pb.Payload, data []byte) (*pb.Payload, []byte, error) {
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
	outData, err := gather(first.GetPayload().GetSize(), first.Data, func() ([]byte, error) {
		f, err := stream.Recv()
		return f.GetData(), err
	})
	return first.Payload, outData, err
}
