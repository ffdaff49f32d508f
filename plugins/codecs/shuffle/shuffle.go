// Package shuffle is the numcodecs "shuffle" codec: a byte shuffle of the
// whole buffer (byte j of every element first, then byte j+1, ...), the
// same layout as blosc's shuffle filter. It helps compressors that follow.
package shuffle

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
)

// Registration registers the codec as "numcodecs.shuffle" and "shuffle".
var Registration = codec.Registration{
	Manifest: extension.Manifest{
		Kind:    extension.Codec,
		Name:    "numcodecs.shuffle",
		Aliases: []string{"shuffle"},
		ConfigSchema: json.RawMessage(`{"type":"object","properties":{
	"elementsize":{"type":"integer","minimum":0,"default":4}}}`),
	},
	New: New,
}

// Codec is the shuffle codec; immutable and safe for concurrent use.
type Codec struct {
	elementSize int
}

// New builds the codec from {"elementsize": n} (default 4, as numcodecs).
func New(_ context.Context, configuration json.RawMessage, _ codec.Resolver) (codec.Codec, error) {
	var cfg struct {
		ElementSize *int `json:"elementsize"`
	}
	if len(configuration) > 0 && string(configuration) != "null" {
		if err := json.Unmarshal(configuration, &cfg); err != nil {
			return nil, fmt.Errorf("shuffle: configuration: %w", err)
		}
	}
	c := &Codec{elementSize: 4}
	if cfg.ElementSize != nil {
		c.elementSize = *cfg.ElementSize
	}
	if c.elementSize < 0 {
		return nil, fmt.Errorf("shuffle: elementsize %d is negative", c.elementSize)
	}
	return c, nil
}

func (c *Codec) Name() string { return "numcodecs.shuffle" }

// Configuration returns {"elementsize": n}.
func (c *Codec) Configuration() json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"elementsize":%d}`, c.elementSize))
}

// EncodedSize implements codec.SizedCodec: the size does not change.
func (c *Codec) EncodedSize(_ context.Context, _ codec.Spec, decodedSize int64) (int64, bool) {
	return decodedSize, true
}

// EncodeBytes shuffles b into a new buffer. Trailing bytes that do not
// fill an element are copied unchanged, as blosc does (numcodecs refuses
// such buffers). Element sizes 0 and 1 leave b as it is.
func (c *Codec) EncodeBytes(_ context.Context, _ codec.Spec, b []byte) ([]byte, error) {
	if c.elementSize <= 1 {
		return b, nil
	}
	out := make([]byte, len(b))
	Shuffle(out, b, c.elementSize)
	return out, nil
}

// DecodeBytes undoes EncodeBytes.
func (c *Codec) DecodeBytes(_ context.Context, in codec.Spec, b []byte) ([]byte, error) {
	if in.DecodedSize >= 0 && int64(len(b)) != in.DecodedSize {
		return nil, fmt.Errorf("shuffle: %w: %d bytes, want %d", codec.ErrCorrupt, len(b), in.DecodedSize)
	}
	if c.elementSize <= 1 {
		return b, nil
	}
	out := make([]byte, len(b))
	Unshuffle(out, b, c.elementSize)
	return out, nil
}

// Shuffle writes the byte shuffle of src to dst (same length):
// dst[j*n + i] = src[i*size + j] for n = len(src)/size elements.
func Shuffle(dst, src []byte, size int) {
	n := len(src) / size
	switch size {
	case 2:
		shuffle2(dst[:n], dst[n:2*n], src[:2*n])
	case 4:
		shuffle4(dst[:n], dst[n:2*n], dst[2*n:3*n], dst[3*n:4*n], src[:4*n])
	default:
		shuffleN(dst, src, size, n)
	}
	copy(dst[n*size:], src[n*size:])
}

// Unshuffle is the inverse of Shuffle.
func Unshuffle(dst, src []byte, size int) {
	n := len(src) / size
	switch size {
	case 2:
		unshuffle2(dst[:2*n], src[:n], src[n:2*n])
	case 4:
		unshuffle4(dst[:4*n], src[:n], src[n:2*n], src[2*n:3*n], src[3*n:4*n])
	default:
		unshuffleN(dst, src, size, n)
	}
	copy(dst[n*size:], src[n*size:])
}

func shuffleN(dst, src []byte, size, n int) {
	for j := range size {
		d := dst[j*n : (j+1)*n]
		s := j
		for i := range d {
			d[i] = src[s]
			s += size
		}
	}
}

func unshuffleN(dst, src []byte, size, n int) {
	for j := range size {
		s := src[j*n : (j+1)*n]
		d := j
		for i := range s {
			dst[d] = s[i]
			d += size
		}
	}
}

// The 2- and 4-byte cases move whole elements per step.
func shuffle2(d0, d1, src []byte) {
	for i := range d0 {
		x := binary.LittleEndian.Uint16(src[2*i:])
		d0[i], d1[i] = byte(x), byte(x>>8)
	}
}

func unshuffle2(dst, s0, s1 []byte) {
	s1 = s1[:len(s0)]
	for i := range s0 {
		binary.LittleEndian.PutUint16(dst[2*i:], uint16(s0[i])|uint16(s1[i])<<8)
	}
}

func shuffle4(d0, d1, d2, d3, src []byte) {
	d1, d2, d3 = d1[:len(d0)], d2[:len(d0)], d3[:len(d0)]
	for i := range d0 {
		x := binary.LittleEndian.Uint32(src[4*i:])
		d0[i], d1[i], d2[i], d3[i] = byte(x), byte(x>>8), byte(x>>16), byte(x>>24)
	}
}

func unshuffle4(dst, s0, s1, s2, s3 []byte) {
	s1, s2, s3 = s1[:len(s0)], s2[:len(s0)], s3[:len(s0)]
	for i := range s0 {
		binary.LittleEndian.PutUint32(dst[4*i:], uint32(s0[i])|uint32(s1[i])<<8|uint32(s2[i])<<16|uint32(s3[i])<<24)
	}
}
