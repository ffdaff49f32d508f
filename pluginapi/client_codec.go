package pluginapi

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/ndarray"
	pb "github.com/zarrgw/zarrgw/pluginapi/zarrgwv1"
)

// remoteCodec is a codec running in a plugin. It holds only what names it
// there (name and configuration), never a handle into the process.
type remoteCodec struct {
	c      *Client
	ref    *pb.CodecRef
	name   string
	kind   codec.Kind
	config json.RawMessage
	sized  bool
}

func (r *remoteCodec) Name() string                   { return r.name }
func (r *remoteCodec) Configuration() json.RawMessage { return r.config }

// EncodedSize implements codec.SizedCodec. A codec that is not sized, or a
// failed call, answers "unknown", which only costs the pipeline its exact
// size checks: the decode limits still apply.
func (r *remoteCodec) EncodedSize(ctx context.Context, in codec.Spec, decodedSize int64) (int64, bool) {
	if !r.sized {
		return -1, false
	}
	resp, err := unary(ctx, r.c, func(conn *Conn) (*pb.EncodedSizeResponse, error) {
		return pb.NewCodecClient(conn.cc).EncodedSize(ctx, &pb.EncodedSizeRequest{Codec: r.ref, Spec: specToPB(in), DecodedSize: decodedSize})
	})
	if err != nil {
		return -1, false
	}
	return resp.Size, resp.Ok
}

// call runs one operation: small ones through the batcher, which shares
// round trips between concurrent calls, large ones on their own stream.
// An output the size of dst (non-nil) lands in dst.
// A call that broke off because the plugin crashed is made again once
// (codecs are pure functions of their input).
func (r *remoteCodec) call(ctx context.Context, op pb.CodecOp, spec codec.Spec, in *pb.Payload, data, dst []byte) (out *pb.Payload, outData []byte, err error) {
	call := &pb.CodecCall{Codec: r.ref, Op: op, Spec: specToPB(spec)}
	batched := len(data) <= batchItemMax && predictOutput(op, spec, in, len(data)) <= batchOutMax
	err = retried(ctx, func() (err error) {
		if batched {
			out, outData, err = r.c.batch.do(ctx, &pb.CodecFrame{Call: call, Payload: in, Data: data}, dst)
		} else {
			out, outData, err = r.c.run(ctx, call, in, data, dst)
		}
		return err
	})
	return out, outData, err
}

// predictOutput estimates an output's size to keep large ones out of
// batches; a wrong guess costs a retry on a stream, never a failure.
func predictOutput(op pb.CodecOp, spec codec.Spec, in *pb.Payload, n int) int64 {
	if op == pb.CodecOp_CODEC_OP_ENCODE {
		return 2*int64(n) + 64<<10
	}
	if in.GetArray() == nil && spec.DecodedSize < 0 && spec.MaxDecodedSize > 0 {
		return spec.MaxDecodedSize // bytes->bytes with only a bound
	}
	if in.GetArray() == nil && spec.DecodedSize >= 0 {
		return spec.DecodedSize
	}
	if spec.DataType.Variable() {
		return int64(n) * 8
	}
	return int64(ndarray.NumElements(spec.Shape)) * int64(spec.DataType.Size)
}

func (r *remoteCodec) arrayCall(ctx context.Context, op pb.CodecOp, spec codec.Spec, a *ndarray.Array) (*pb.Payload, []byte, error) {
	in, data, err := arrayToPB(a)
	if err != nil {
		return nil, nil, fmt.Errorf("codec %s: %w", r.name, err)
	}
	return r.call(ctx, op, spec, in, data, nil)
}

func (r *remoteCodec) bytesCall(ctx context.Context, op pb.CodecOp, spec codec.Spec, b []byte) (*pb.Payload, []byte, error) {
	return r.call(ctx, op, spec, &pb.Payload{Size: int64(len(b))}, b, nil)
}

// array and bytes check that the plugin answered with the form asked for.
func (r *remoteCodec) array(out *pb.Payload, data []byte, err error) (*ndarray.Array, error) {
	if err != nil {
		return nil, err
	}
	a, err := arrayFromPB(out.GetArray(), data)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: codec %s: %w: %v", r.c.Name(), r.name, codec.ErrCorrupt, err)
	}
	return a, nil
}

func (r *remoteCodec) bytes(out *pb.Payload, data []byte, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	if out.GetArray() != nil {
		return nil, fmt.Errorf("plugin %s: codec %s: %w: returned an array for bytes", r.c.Name(), r.name, codec.ErrCorrupt)
	}
	return data, nil
}

const (
	encodeOp = pb.CodecOp_CODEC_OP_ENCODE
	decodeOp = pb.CodecOp_CODEC_OP_DECODE
)

type remoteArrayArray struct{ *remoteCodec }

// OutputSpec asks the plugin: the codec's logic lives there. It is called
// when a pipeline is built, not per chunk.
func (r *remoteArrayArray) OutputSpec(ctx context.Context, in codec.Spec) (codec.Spec, error) {
	out, err := unary(ctx, r.c, func(conn *Conn) (*pb.ChunkSpec, error) {
		return pb.NewCodecClient(conn.cc).OutputSpec(ctx, &pb.OutputSpecRequest{Codec: r.ref, Spec: specToPB(in)})
	})
	if err != nil {
		return codec.Spec{}, err
	}
	spec, err := specFromPB(out)
	if err != nil {
		return codec.Spec{}, fmt.Errorf("plugin %s: codec %s: output spec: %w", r.c.Name(), r.name, err)
	}
	return spec, nil
}

func (r *remoteArrayArray) EncodeArray(ctx context.Context, in codec.Spec, a *ndarray.Array) (*ndarray.Array, error) {
	return r.array(r.arrayCall(ctx, encodeOp, in, a))
}

func (r *remoteArrayArray) DecodeArray(ctx context.Context, in codec.Spec, a *ndarray.Array) (*ndarray.Array, error) {
	return r.array(r.arrayCall(ctx, decodeOp, in, a))
}

type remoteArrayBytes struct{ *remoteCodec }

func (r *remoteArrayBytes) Encode(ctx context.Context, in codec.Spec, a *ndarray.Array) ([]byte, error) {
	return r.bytes(r.arrayCall(ctx, encodeOp, in, a))
}

func (r *remoteArrayBytes) Decode(ctx context.Context, in codec.Spec, b []byte) (*ndarray.Array, error) {
	return r.array(r.bytesCall(ctx, decodeOp, in, b))
}

type remoteBytesBytes struct{ *remoteCodec }

func (r *remoteBytesBytes) EncodeBytes(ctx context.Context, in codec.Spec, b []byte) ([]byte, error) {
	return r.bytes(r.bytesCall(ctx, encodeOp, in, b))
}

func (r *remoteBytesBytes) DecodeBytes(ctx context.Context, in codec.Spec, b []byte) ([]byte, error) {
	return r.bytes(r.bytesCall(ctx, decodeOp, in, b))
}

// DecodeBytesInto implements codec.DecoderInto: the output goes from the
// plugin's shared memory (where a decoder that decodes into a buffer put
// it) straight into dst, with no buffer allocated on the way.
func (r *remoteBytesBytes) DecodeBytesInto(ctx context.Context, in codec.Spec, src, dst []byte) error {
	out, err := r.bytes(r.call(ctx, decodeOp, in, &pb.Payload{Size: int64(len(src))}, src, dst))
	if err != nil {
		return err
	}
	if len(out) != len(dst) {
		return fmt.Errorf("plugin %s: codec %s: %w: decoded %d bytes, want %d", r.c.Name(), r.name, codec.ErrCorrupt, len(out), len(dst))
	}
	if len(out) > 0 && &out[0] != &dst[0] {
		copy(dst, out) // the output came inline
	}
	return nil
}
