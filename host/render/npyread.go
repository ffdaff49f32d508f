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

	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/ndarray"
)

// maxNPYHeader bounds the header a reader accepts; numpy writes a few
// hundred bytes.
const maxNPYHeader = 1 << 16

var (
	npyDescr   = regexp.MustCompile(`'descr':\s*'([^']*)'`)
	npyFortran = regexp.MustCompile(`'fortran_order':\s*(True|False)`)
	npyShape   = regexp.MustCompile(`'shape':\s*\(([^)]*)\)`)
)

// ReadNPY reads a .npy document (version 1, 2 or 3; C order) of fixed-size
// elements as an array of data type want and shape wantShape, in memory
// byte order. The file's type must be want in either byte order (a
// big-endian file is swapped) and its shape must be wantShape, which is
// checked before anything is allocated.
func ReadNPY(r io.Reader, want dtype.DataType, wantShape []int) (*ndarray.Array, error) {
	br := bufio.NewReader(r)
	header, err := readNPYHeader(br)
	if err != nil {
		return nil, err
	}
	shape, descr, err := parseNPYHeader(header)
	if err != nil {
		return nil, err
	}
	got, end, err := dtype.ParseV2(descr)
	if err != nil {
		return nil, fmt.Errorf("npy: %w", err)
	}
	if want.Variable() || got.Kind != want.Kind || got.Size != want.Size {
		return nil, fmt.Errorf("npy: data type %q does not match the array's %s", descr, want.Name)
	}
	if !slices.Equal(shape, wantShape) {
		return nil, fmt.Errorf("npy: shape %v does not match the selection's %v", shape, wantShape)
	}
	a := ndarray.New(want, shape)
	if _, err := io.ReadFull(br, a.Data); err != nil {
		return nil, fmt.Errorf("npy: data of shape %v (%d bytes): %w", shape, len(a.Data), err)
	}
	if n, _ := br.Read(make([]byte, 1)); n > 0 {
		return nil, errors.New("npy: data goes on past the end of the shape")
	}
	if end == dtype.Big {
		swapUnits(a.Data, want.SwapUnit())
	}
	return a, nil
}

func readNPYHeader(br *bufio.Reader) (string, error) {
	var pre [8]byte
	if _, err := io.ReadFull(br, pre[:]); err != nil || string(pre[:6]) != "\x93NUMPY" {
		return "", errors.New("npy: not a .npy document (no \\x93NUMPY magic)")
	}
	var n int
	switch pre[6] {
	case 1:
		var l [2]byte
		if _, err := io.ReadFull(br, l[:]); err != nil {
			return "", fmt.Errorf("npy: header length: %w", err)
		}
		n = int(binary.LittleEndian.Uint16(l[:]))
	case 2, 3:
		var l [4]byte
		if _, err := io.ReadFull(br, l[:]); err != nil {
			return "", fmt.Errorf("npy: header length: %w", err)
		}
		n = int(binary.LittleEndian.Uint32(l[:]))
	default:
		return "", fmt.Errorf("npy: unsupported format version %d.%d", pre[6], pre[7])
	}
	if n > maxNPYHeader {
		return "", fmt.Errorf("npy: header of %d bytes is too long", n)
	}
	h := make([]byte, n)
	if _, err := io.ReadFull(br, h); err != nil {
		return "", fmt.Errorf("npy: header: %w", err)
	}
	return string(h), nil
}

func parseNPYHeader(h string) ([]int, string, error) {
	d, f, s := npyDescr.FindStringSubmatch(h), npyFortran.FindStringSubmatch(h), npyShape.FindStringSubmatch(h)
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
