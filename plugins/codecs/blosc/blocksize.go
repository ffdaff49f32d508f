package blosc

// c-blosc 1.21's choice of block size (compute_blocksize), reproduced so
// that frames we write look like the ones numcodecs writes and decode with
// the same memory use. The result was checked against numcodecs 0.11 /
// c-blosc 1.21.3 output for every cname and several levels and sizes.

const (
	l1Size       = 32 << 10 // c-blosc's assumed L1 cache
	maxSplitPart = 256 << 10
	minSplitBS   = 64 << 10
	maxSplitBS   = 1 << 20
)

// highRatio reports c-blosc's "HCR" codecs, which get larger blocks.
func highRatio(cname string) bool {
	return cname == "lz4hc" || cname == "zlib" || cname == "zstd"
}

// splittable is c-blosc's forward-compatible split rule for writing: every
// codec but zstd compresses the byte planes of a block separately when the
// type is narrow and the block holds enough elements.
func splittable(cname string, typeSize, blockSize int) bool {
	return cname != "zstd" && typeSize <= maxSplits && blockSize/typeSize >= minBufferSize
}

// computeBlockSize returns the block size for nbytes of data; forced is
// the configured block size (0 automatic).
func computeBlockSize(cname string, clevel, typeSize, nbytes, forced int) int {
	if nbytes < typeSize {
		return 1
	}
	bs := nbytes
	switch {
	case forced != 0:
		bs = max(forced, minBufferSize)
	case nbytes >= l1Size:
		bs = autoBlockSize(cname, clevel)
	}
	if clevel > 0 && splittable(cname, typeSize, bs) {
		bs = min(bs, maxSplitPart) * typeSize
		bs = min(max(bs, minSplitBS), maxSplitBS)
	}
	bs = min(bs, nbytes)
	if bs > typeSize {
		bs = bs / typeSize * typeSize
	}
	return bs
}

// autoBlockSize scales the L1 size by codec class and level.
func autoBlockSize(cname string, clevel int) int {
	bs := l1Size
	if highRatio(cname) {
		bs *= 2
	}
	switch {
	case clevel == 0:
		bs /= 4
	case clevel == 1:
		bs /= 2
	case clevel == 2:
	case clevel == 3:
		bs *= 2
	case clevel <= 5:
		bs *= 4
	case clevel <= 8:
		bs *= 8
	default:
		bs *= 8
		if highRatio(cname) {
			bs *= 2
		}
	}
	return bs
}
