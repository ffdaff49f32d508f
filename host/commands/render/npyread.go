package render

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/zarrgw/zarrgw/core/checked"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// maxNPYHeader bounds the header a reader accepts; numpy writes a few
// hundred bytes.
const maxNPYHeader = 1 << 16

var (
	npyDescrRE = regexp.MustCompile(`'descr':\s*'([^']*)'`)
	// a structured descr, a list; numpy writes 'fortran_order' next
	npyListDescr = regexp.MustCompile(`'descr':\s*(\[.*\])\s*,\s*'fortran_order'`)
	npyFortran   = regexp.MustCompile(`'fortran_order':\s*(True|False)`)
	npyShape     = regexp.MustCompile(`'shape':\s*\(([^)]*)\)`)
)

// InputError is an error about a document's contents (its length, what
// follows it), as opposed to failures of what it is written to.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Body reads the elements of a C-order document of fixed-size elements
// (a .npy body, or raw little-endian bytes) slab by slab, in memory byte
// order. It knows how many bytes the document promises and refuses both
// a short document and one that goes on past them.
type Body struct {
	r    *bufio.Reader
	name string // what the body is read from, for messages
	swap int    // bytes to reverse per unit (big-endian .npy), or 0
	// structType is set for a big-endian structured .npy: each field is
	// reversed in its own width
	structType dtype.DataType
	header     int64 // bytes before the body (the .npy header)
	size       int64 // bytes of the body
	read       int64 // body bytes read so far
}

// NPYBody reads the header of a .npy document (version 1, 2 or 3; C
// order) from r and checks it: the type must be want in either byte order
// (a big-endian document is swapped as it is read) and the shape must be
// wantShape, both before any element is read.
func NPYBody(r io.Reader, name string, want dtype.DataType, wantShape []int) (*Body, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	header, headerSize, err := readNPYHeader(br)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	shape, descr, err := parseNPYHeader(header)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if strings.HasPrefix(descr, "[") || want.Kind == dtype.Struct {
		return structBody(br, name, descr, want, shape, wantShape, headerSize)
	}
	got, end, err := dtype.ParseV2(descr)
	if err != nil {
		return nil, fmt.Errorf("%s: npy: %w", name, err)
	}
	// np.save writes ml_dtypes' types as void of their size ('<V2' for
	// bfloat16): such a .npy fits an array of the registry's narrow types.
	voidForNarrow := want.NarrowNumber() && got.NumpyVoid() && got.Size == want.Size
	if want.Variable() || (!voidForNarrow && (got.Kind != want.Kind || got.Size != want.Size)) {
		return nil, fmt.Errorf("%s: npy: data type %q does not match the array's %s", name, descr, want.Name)
	}
	b, err := newBody(br, name, want, shape, wantShape, headerSize)
	if err != nil {
		return nil, err
	}
	if end == dtype.Big {
		b.swap = want.SwapUnit()
	}
	return b, nil
}

// structBody checks a structured descr against a struct type: numpy's
// descr of it in either byte order (the fields, their names, types and
// order exactly), and reads the body in the order it names.
func structBody(br *bufio.Reader, name, descr string, want dtype.DataType, shape, wantShape []int, headerSize int64) (*Body, error) {
	end := dtype.NoEndian
	compact := strings.Join(strings.Fields(descr), "")
	for _, e := range []dtype.Endian{dtype.Little, dtype.Big} {
		if want.Kind == dtype.Struct && compact == strings.Join(strings.Fields(structDescr(want, e)), "") {
			end = e
			break
		}
	}
	if end == dtype.NoEndian {
		return nil, fmt.Errorf("%s: npy: data type %s does not match the array's %s (numpy's descr %s)", name, descr, want.Name, structDescr(want, dtype.Little))
	}
	b, err := newBody(br, name, want, shape, wantShape, headerSize)
	if err != nil {
		return nil, err
	}
	if end == dtype.Big {
		b.structType = want
	}
	return b, nil
}

// RawBody reads the little-endian elements of a selection of the given
// counts (no header) from r.
func RawBody(r io.Reader, name string, want dtype.DataType, counts []int) (*Body, error) {
	if want.Variable() {
		return nil, fmt.Errorf("%s: raw input needs a fixed-size data type, not %s (use npy)", name, want.Name)
	}
	size, ok := elementBytes(counts, want)
	if !ok {
		return nil, fmt.Errorf("%s: a selection of %v of %s holds more bytes than an int64 counts", name, counts, want.Name)
	}
	return &Body{r: bufio.NewReaderSize(r, 1<<16), name: name, size: size}, nil
}

// elementBytes is the bytes of the fixed-size elements of dt in a shape
// of counts, and false when they cannot be counted in an int64.
func elementBytes(counts []int, dt dtype.DataType) (int64, bool) {
	var c checked.Calc
	n := c.Mul(c.Product(counts), int64(dt.Size))
	return n, !c.Overflowed()
}

// Size is the document's length in bytes: header and body.
func (b *Body) Size() int64 { return b.header + b.size }

// Fill reads the next len(slab.Data) bytes of the body into slab.
func (b *Body) Fill(slab *ndarray.Array) error {
	if _, err := io.ReadFull(b.r, slab.Data); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return &InputError{fmt.Errorf("%s: data ends after %d of %d bytes: %w", b.name, b.read, b.size, err)}
	}
	b.read += int64(len(slab.Data))
	swapUnits(slab.Data, b.swap)
	if b.structType.Kind == dtype.Struct {
		b.structType.SwapElements(slab.Data)
	}
	return nil
}

// Finish checks that nothing follows the body.
func (b *Body) Finish() error {
	if n, _ := b.r.Read(make([]byte, 1)); n > 0 {
		return &InputError{fmt.Errorf("%s: data goes on past the %d bytes of the selection", b.name, b.size)}
	}
	return nil
}

// ReadNPY reads a whole .npy document as an array of data type want and
// shape wantShape (see NPYBody).
func ReadNPY(r io.Reader, want dtype.DataType, wantShape []int) (*ndarray.Array, error) {
	body, err := NPYBody(r, "npy", want, wantShape)
	if err != nil {
		return nil, err
	}
	a := ndarray.New(want, wantShape)
	if err := body.Fill(a); err != nil {
		return nil, err
	}
	return a, body.Finish()
}

// readNPYHeader reads a .npy document's header dictionary and reports
// how many bytes precede the body.
func readNPYHeader(br *bufio.Reader) (string, int64, error) {
	var pre [8]byte
	if _, err := io.ReadFull(br, pre[:]); err != nil || string(pre[:6]) != "\x93NUMPY" {
		return "", 0, errors.New("npy: not a .npy document (no \\x93NUMPY magic)")
	}
	lenBytes := 0
	switch pre[6] {
	case 1:
		lenBytes = 2
	case 2, 3:
		lenBytes = 4
	default:
		return "", 0, fmt.Errorf("npy: unsupported format version %d.%d", pre[6], pre[7])
	}
	var l [4]byte
	if _, err := io.ReadFull(br, l[:lenBytes]); err != nil {
		return "", 0, fmt.Errorf("npy: header length: %w", err)
	}
	n := int(binary.LittleEndian.Uint32(l[:]))
	if n > maxNPYHeader {
		return "", 0, fmt.Errorf("npy: header of %d bytes is too long", n)
	}
	h := make([]byte, n)
	if _, err := io.ReadFull(br, h); err != nil {
		return "", 0, fmt.Errorf("npy: header: %w", err)
	}
	return string(h), int64(8 + lenBytes + n), nil
}

func parseNPYHeader(h string) ([]int, string, error) {
	d, f, s := npyDescrRE.FindStringSubmatch(h), npyFortran.FindStringSubmatch(h), npyShape.FindStringSubmatch(h)
	if list := npyListDescr.FindStringSubmatch(h); list != nil {
		d = list
	}
	if d == nil || f == nil || s == nil {
		return nil, "", fmt.Errorf("npy: header %q lacks descr, fortran_order or shape", strings.TrimSpace(h))
	}
	if f[1] == "True" {
		return nil, "", errors.New("npy: Fortran-order data is not supported (write it in C order)")
	}
	shape := []int{}
	for _, dim := range strings.Split(s[1], ",") {
		if dim = strings.TrimSpace(dim); dim == "" {
			continue
		}
		n, err := strconv.Atoi(dim)
		if err != nil || n < 0 {
			return nil, "", fmt.Errorf("npy: bad shape (%s)", s[1])
		}
		shape = append(shape, n)
	}
	return shape, d[1], nil
}

// swapUnits reverses the bytes of each unit-byte group of b.
func swapUnits(b []byte, unit int) {
	if unit <= 1 {
		return
	}
	for i := 0; i+unit <= len(b); i += unit {
		for lo, hi := i, i+unit-1; lo < hi; lo, hi = lo+1, hi-1 {
			b[lo], b[hi] = b[hi], b[lo]
		}
	}
}

// newBody is the body of a .npy whose header matched the array's type: its
// shape must be the selection's.
func newBody(br *bufio.Reader, name string, want dtype.DataType, shape, wantShape []int, headerSize int64) (*Body, error) {
	if !slices.Equal(shape, wantShape) {
		return nil, fmt.Errorf("%s: npy: shape %v does not match the selection's %v", name, shape, wantShape)
	}
	size, ok := elementBytes(shape, want)
	if !ok {
		return nil, fmt.Errorf("%s: npy: shape %v of %s holds more bytes than an int64 counts", name, shape, want.Name)
	}
	return &Body{r: br, name: name, header: headerSize, size: size}, nil
}
