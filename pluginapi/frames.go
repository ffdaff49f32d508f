package pluginapi

import (
	"errors"
	"fmt"
	"io"
)

// FrameSize is the most payload bytes one message carries. Larger payloads
// continue in further frames, so values of any size stream through gRPC
// without raising its message limit to match; a 1 MiB chunk still travels
// in a single frame.
const FrameSize = 2 << 20

// maxMessage is the receive limit on both sides: a frame plus its header,
// or a batch of small calls (bounded by batchMaxBytes). It is raised on
// purpose above gRPC's default of 4 MiB so that a header never pushes a
// full frame over it.
const maxMessage = 16 << 20

// maxPrealloc bounds the buffer allocated up front for a payload from its
// announced size; larger payloads grow as their frames arrive, so a peer
// announcing a huge size cannot make us allocate it before sending it.
const maxPrealloc = 1 << 30

// split cuts data into frames of at most FrameSize bytes; empty data is one
// empty frame, so every payload has a first frame to carry its header.
func split(data []byte) [][]byte {
	if len(data) <= FrameSize {
		return [][]byte{data}
	}
	parts := make([][]byte, 0, (len(data)+FrameSize-1)/FrameSize)
	for len(data) > 0 {
		n := min(len(data), FrameSize)
		parts = append(parts, data[:n:n])
		data = data[n:]
	}
	return parts
}

// errExtraData reports frames beyond the announced size.
var errExtraData = errors.New("more payload data than announced")

// gather returns a payload of size bytes whose first part is first and
// whose remaining parts come from next until it returns io.EOF. A payload
// that fits in its first frame is returned as it is, without a copy.
func gather(size int64, first []byte, next func() ([]byte, error)) ([]byte, error) {
	if size < 0 || int64(len(first)) > size {
		return nil, fmt.Errorf("payload of %d bytes announced as %d", len(first), size)
	}
	buf := first
	if int64(len(first)) < size {
		buf = make([]byte, len(first), min(size, maxPrealloc))
		copy(buf, first)
	}
	for {
		p, err := next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if int64(len(buf))+int64(len(p)) > size {
			return nil, errExtraData
		}
		buf = append(buf, p...)
	}
	if int64(len(buf)) != size {
		return nil, fmt.Errorf("payload ended after %d of %d bytes", len(buf), size)
	}
	return buf, nil
}

// gatherInto is gather writing into dst, which must be exactly size bytes.
func gatherInto(dst []byte, size int64, first []byte, next func() ([]byte, error)) error {
	if size != int64(len(dst)) {
		return fmt.Errorf("payload of %d bytes for a buffer of %d", size, len(dst))
	}
	n := copy(dst, first)
	if n < len(first) {
		return errExtraData
	}
	for {
		p, err := next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if len(p) > len(dst)-n {
			return errExtraData
		}
		n += copy(dst[n:], p)
	}
	if n != len(dst) {
		return fmt.Errorf("payload ended after %d of %d bytes", n, size)
	}
	return nil
}
