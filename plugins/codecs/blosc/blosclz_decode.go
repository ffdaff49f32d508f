package blosc

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/zarrgw/zarrgw/core/codec"
)

// BloscLZ is c-blosc's FastLZ-derived codec. A stream is a sequence of
// instructions, each starting with a control byte:
//
//   - ctrl < 32: a literal run of ctrl+1 bytes follows;
//   - ctrl >= 32: a match. Its length is (ctrl>>5)+2, or, when ctrl>>5 is
//     7, 9 plus the following length bytes (255 means "add 255 and read
//     another"). Then one byte c: the distance is (ctrl&31)<<8 + c + 1,
//     except that ctrl&31 == 31 and c == 255 announce a far match whose
//     distance is 8192 plus the next two bytes (big-endian).
//
// The first control byte is always a literal run; c-blosc uses its top
// three bits as a marker, which decoders mask off.

const (
	blzMaxCopy     = 32             // longest literal run
	blzMaxDistance = 8191           // first biased distance that needs the far form
	blzMaxFar      = 65535 + 8192   // longest distance of a far match
	blzNearMax     = blzMaxDistance // longest distance of a near match
)

var errBloscLZ = errors.New("malformed blosclz stream")

// blosclzDecompress decodes src into exactly len(dst) bytes.
//
// Short literal runs and matches are copied in fixed 32- and 8-byte moves
// when the output has room past the run: the extra bytes land where later
// instructions will write anyway (a stream must fill dst exactly), and the
// fixed-size moves compile to a few instructions where copy calls memmove.
func blosclzDecompress(src, dst []byte) error {
	if len(src) == 0 {
		return fmt.Errorf("%w: %w: empty", codec.ErrCorrupt, errBloscLZ)
	}
	ip, op := 1, 0
	ctrl := int(src[0] & 31)
	for {
		if ctrl < 32 {
			n := ctrl + 1
			if n > len(src)-ip || n > len(dst)-op {
				return fmt.Errorf("%w: %w: literal run of %d bytes overruns at input %d", codec.ErrCorrupt, errBloscLZ, n, ip)
			}
			if len(src)-ip >= 32 && len(dst)-op >= 32 {
				*(*[32]byte)(dst[op : op+32]) = *(*[32]byte)(src[ip : ip+32])
			} else {
				copy(dst[op:op+n], src[ip:ip+n])
			}
			ip, op = ip+n, op+n
		} else {
			var dist, length int
			var err error
			if ip, dist, length, err = blzMatchArgs(src, ip, ctrl, len(dst)); err != nil {
				return err
			}
			if dist > op || length > len(dst)-op {
				return fmt.Errorf("%w: %w: match (distance %d, length %d) outside the output at %d", codec.ErrCorrupt, errBloscLZ, dist, length, op)
			}
			copyMatch(dst, op, dist, length)
			op += length
		}
		if ip >= len(src) {
			break
		}
		ctrl = int(src[ip])
		ip++
	}
	if op != len(dst) {
		return fmt.Errorf("%w: %w: decoded %d bytes, want %d", codec.ErrCorrupt, errBloscLZ, op, len(dst))
	}
	return nil
}

// blzMatchArgs reads the length and distance of the match whose control
// byte was ctrl, from src[ip:]; it returns the position after them.
// Lengths beyond maxLen are refused while they are being read.
func blzMatchArgs(src []byte, ip, ctrl, maxLen int) (next, dist, length int, err error) {
	length = (ctrl >> 5) + 2
	if length == 9 {
		for {
			if ip >= len(src) || length > maxLen {
				return 0, 0, 0, blzTruncated(ip)
			}
			c := src[ip]
			ip++
			length += int(c)
			if c != 255 {
				break
			}
		}
	}
	if ip >= len(src) {
		return 0, 0, 0, blzTruncated(ip)
	}
	hi, c := ctrl&31, int(src[ip])
	ip++
	dist = hi<<8 + c + 1
	if c == 255 && hi == 31 {
		if ip+2 > len(src) {
			return 0, 0, 0, blzTruncated(ip)
		}
		dist = int(src[ip])<<8 | int(src[ip+1]) + 8192
		ip += 2
	}
	return ip, dist, length, nil
}

func blzTruncated(ip int) error {
	return fmt.Errorf("%w: %w: truncated match at input %d", codec.ErrCorrupt, errBloscLZ, ip)
}

// copyMatch appends n bytes to dst[:op] copied from dist bytes back, with
// the repeating-pattern semantics of an overlapping forward copy. The
// callers guarantee 0 < dist <= op and op+n <= len(dst).
func copyMatch(dst []byte, op, dist, n int) {
	ref := op - dist
	switch {
	case dist >= 8 && n <= 64 && len(dst)-op >= n+8:
		// Eight bytes at a time: with dist >= 8 every chunk reads bytes
		// that are already final.
		for k := 0; k < n; k += 8 {
			*(*[8]byte)(dst[op+k : op+k+8]) = *(*[8]byte)(dst[ref+k : ref+k+8])
		}
	case dist == 1 && len(dst)-op >= n+8:
		v := uint64(dst[ref]) * 0x0101010101010101
		for k := 0; k < n; k += 8 {
			binary.LittleEndian.PutUint64(dst[op+k:op+k+8], v)
		}
	case dist >= n:
		copy(dst[op:op+n], dst[ref:])
	default:
		// Overlap: lay down one period, then double the copied prefix,
		// which keeps the period because it is a whole number of periods.
		end := op + n
		copy(dst[op:op+dist], dst[ref:op])
		done := dist
		for op+done < end {
			done += copy(dst[op+done:end], dst[op:op+done])
		}
	}
}
