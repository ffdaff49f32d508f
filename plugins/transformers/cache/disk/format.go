package disk

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"strings"
)

// The directory layout, below the directory given to Open:
//
//	zarrgw-cache-v1/                  everything of the tier, nothing else
//	zarrgw-cache-v1/lock              the lock file (flock), never removed
//	zarrgw-cache-v1/3f/3f9a…c1.zce    an entry: 32 hex digits (the first 16
//	                                  bytes of SHA-256 over key and tag),
//	                                  in the directory of its first two
//	                                  digits (256 directories at most)
//	zarrgw-cache-v1/3f/tmp-<16 hex>.zce  a write in flight (or a crashed one's)
//
// Only names of exactly these shapes are ever created, read, renamed or
// removed; anything else in the directory is left alone.
const (
	subdir    = "zarrgw-cache-v1"
	lockName  = "lock"
	entryExt  = ".zce"
	tempStart = "tmp-"
	nameLen   = 32 // hex digits of an entry's name
	tempRand  = 16 // hex digits of a temporary file's random part
)

// An entry file is a header followed by the data. All integers are little
// endian.
//
//	off  size
//	0    8    magic "zgwcache"
//	8    2    format version (1)
//	10   2    flags, 0
//	12   4    key length K
//	16   4    tag length T
//	20   4    version length V
//	24   8    data length D
//	32   4    CRC-32C (Castagnoli) of the data
//	36   K    key
//	     T    tag
//	     V    version
//	     4    CRC-32C of the header's bytes before it (0 .. 36+K+T+V)
//	     D    data
//
// The file is exactly 40+K+T+V+D bytes: a longer or shorter file is
// corrupt. The header's own checksum lets the restart scan trust the key,
// tag and lengths it reads without reading the data; the data's checksum
// is checked on every Get.
const (
	magic         = "zgwcache"
	formatVersion = 1
	fixedLen      = 36
	maxString     = 1 << 16 // longest key, tag or version stored
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errTooLong reports a key, tag or version too long to store; such a
// value is simply not cached.
var errTooLong = errors.New("key, tag or version longer than 64 KiB")

// nameOf is the file name (without extension) of (key, tag): the first 16
// bytes of SHA-256 over the key's length, the key and the tag, in hex.
func nameOf(key, tag string) string {
	h := sha256.New()
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(key)))
	h.Write(n[:])
	h.Write([]byte(key))
	h.Write([]byte(tag))
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0])[:nameLen/2])
}

// encodeHeader is the header of an entry holding data.
func encodeHeader(key, tag, version string, data []byte) ([]byte, error) {
	if len(key) > maxString || len(tag) > maxString || len(version) > maxString {
		return nil, errTooLong
	}
	n := fixedLen + len(key) + len(tag) + len(version)
	b := make([]byte, n, n+4)
	copy(b, magic)
	binary.LittleEndian.PutUint16(b[8:], formatVersion)
	binary.LittleEndian.PutUint32(b[12:], uint32(len(key)))
	binary.LittleEndian.PutUint32(b[16:], uint32(len(tag)))
	binary.LittleEndian.PutUint32(b[20:], uint32(len(version)))
	binary.LittleEndian.PutUint64(b[24:], uint64(len(data)))
	binary.LittleEndian.PutUint32(b[32:], crc32.Checksum(data, castagnoli))
	p := fixedLen
	p += copy(b[p:], key)
	p += copy(b[p:], tag)
	copy(b[p:], version)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli)), nil
}

// header is what a file's header says.
type header struct {
	key, tag, version string
	dataLen           int64
	dataCRC           uint32
	len               int64 // bytes of the header, checksum included
}

// headerLen is the length of the header that starts with fixed (at least
// fixedLen bytes), or an error if fixed is not the start of one of ours.
func headerLen(fixed []byte) (int64, error) {
	if len(fixed) < fixedLen {
		return 0, errors.New("shorter than a header")
	}
	if string(fixed[:8]) != magic {
		return 0, errors.New("bad magic")
	}
	if v := binary.LittleEndian.Uint16(fixed[8:]); v != formatVersion {
		return 0, errors.New("unknown format version")
	}
	k := binary.LittleEndian.Uint32(fixed[12:])
	t := binary.LittleEndian.Uint32(fixed[16:])
	v := binary.LittleEndian.Uint32(fixed[20:])
	if k > maxString || t > maxString || v > maxString {
		return 0, errors.New("implausible lengths")
	}
	return int64(fixedLen) + int64(k) + int64(t) + int64(v) + 4, nil
}

// decodeHeader parses and checks the header at the start of b, which
// holds at least headerLen bytes.
func decodeHeader(b []byte) (header, error) {
	n, err := headerLen(b)
	if err != nil {
		return header{}, err
	}
	if int64(len(b)) < n {
		return header{}, errors.New("truncated header")
	}
	end := int(n) - 4
	if crc32.Checksum(b[:end], castagnoli) != binary.LittleEndian.Uint32(b[end:]) {
		return header{}, errors.New("header checksum mismatch")
	}
	k := int(binary.LittleEndian.Uint32(b[12:]))
	t := int(binary.LittleEndian.Uint32(b[16:]))
	d := binary.LittleEndian.Uint64(b[24:])
	if d > 1<<62 {
		return header{}, errors.New("implausible data length")
	}
	h := header{
		key:     string(b[fixedLen : fixedLen+k]),
		tag:     string(b[fixedLen+k : fixedLen+k+t]),
		version: string(b[fixedLen+k+t : end]),
		dataLen: int64(d),
		dataCRC: binary.LittleEndian.Uint32(b[32:]),
		len:     n,
	}
	return h, nil
}

// decodeEntry checks a whole entry file b against the (key, tag) it should
// hold and returns its data (a slice of b) and version.
func decodeEntry(b []byte, key, tag string) ([]byte, string, error) {
	h, err := decodeHeader(b)
	if err != nil {
		return nil, "", err
	}
	if h.key != key || h.tag != tag {
		return nil, "", errors.New("holds another key or tag")
	}
	if int64(len(b)) != h.len+h.dataLen {
		return nil, "", errors.New("length does not match the header")
	}
	data := b[h.len:]
	if crc32.Checksum(data, castagnoli) != h.dataCRC {
		return nil, "", errors.New("data checksum mismatch")
	}
	return data, h.version, nil
}

// isHex reports whether s is all lower-case hex digits.
func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// isShardDir reports whether name is one of the tier's 256 directories.
func isShardDir(name string) bool { return len(name) == 2 && isHex(name) }

// entryName returns the entry name of a file name of an entry's shape.
func entryName(file string) (string, bool) {
	name, ok := strings.CutSuffix(file, entryExt)
	return name, ok && len(name) == nameLen && isHex(name)
}

// isTempName reports whether file is one of the tier's temporary files.
func isTempName(file string) bool {
	mid, ok := strings.CutPrefix(file, tempStart)
	if !ok {
		return false
	}
	mid, ok = strings.CutSuffix(mid, entryExt)
	return ok && len(mid) == tempRand && isHex(mid)
}
