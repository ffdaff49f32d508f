package blosc

import (
	"context"
	"encoding/json"
	"runtime"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
)

// Registration registers the codec under its v3 name and its numcodecs id
// as zarr-python 3 writes it.
var Registration = codec.Registration{
	Manifest: extension.Manifest{
		Kind:    extension.Codec,
		Name:    "blosc",
		Aliases: []string{"numcodecs.blosc"},
		ConfigSchema: json.RawMessage(`{"type":"object","properties":{
	"cname":{"type":"string","enum":["blosclz","lz4","lz4hc","snappy","zlib","zstd"],"default":"lz4"},
	"clevel":{"type":"integer","minimum":0,"maximum":9,"default":5},
	"shuffle":{"type":"string","enum":["noshuffle","shuffle","bitshuffle"],"default":"shuffle"},
	"typesize":{"type":"integer","minimum":1},
	"blocksize":{"type":"integer","minimum":0,"default":0}}}`),
	},
	New: New,
}

// New builds the codec from either configuration form (see ParseConfig).
func New(_ context.Context, configuration json.RawMessage, _ codec.Resolver) (codec.Codec, error) {
	cfg, err := ParseConfig(configuration)
	if err != nil {
		return nil, err
	}
	return NewCodec(cfg)
}

// Codec is the blosc bytes->bytes codec. It is safe for concurrent use.
type Codec struct {
	cfg Config
	// par bounds the goroutines one frame may use; 0 means GOMAXPROCS.
	par int
}

var _ codec.BytesBytes = (*Codec)(nil)

// NewCodec returns a codec for cfg.
func NewCodec(cfg Config) (*Codec, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Codec{cfg: cfg}, nil
}

// Config returns the codec's configuration.
func (c *Codec) Config() Config { return c.cfg }

func (c *Codec) Name() string                   { return "blosc" }
func (c *Codec) Configuration() json.RawMessage { return c.cfg.marshal() }

func (c *Codec) parallelism() int {
	if c.par > 0 {
		return c.par
	}
	return runtime.GOMAXPROCS(0)
}

// EncodeBytes compresses b into one blosc1 frame. The type size is the
// configured one, else the element size of in.DataType (1 for
// variable-length types).
func (c *Codec) EncodeBytes(ctx context.Context, in codec.Spec, b []byte) ([]byte, error) {
	ts := c.cfg.TypeSize
	if ts == 0 {
		ts = max(in.DataType.Size, 1)
	}
	return encodeFrame(ctx, c.cfg, ts, b, c.parallelism())
}

// DecodeBytes decodes one blosc1 frame, whatever its compressor, filter and
// type size: only the frame header is trusted. Malformed frames give an
// error wrapping codec.ErrCorrupt; c-blosc2 frames one wrapping
// ErrUnsupported.
func (c *Codec) DecodeBytes(ctx context.Context, in codec.Spec, b []byte) ([]byte, error) {
	out, err := decodeFrame(ctx, nil, b, in, c.parallelism())
	if out == nil && err == nil {
		out = []byte{}
	}
	return out, err
}

// DecodeInto is DecodeBytes writing into dst's storage when its capacity
// suffices (a new buffer otherwise); dst must not overlap b. Callers that
// recycle chunk buffers save the allocation and page-zeroing of a fresh
// output, which costs as much as decoding an lz4 frame.
func (c *Codec) DecodeInto(ctx context.Context, in codec.Spec, dst, b []byte) ([]byte, error) {
	return decodeFrame(ctx, dst, b, in, c.parallelism())
}
