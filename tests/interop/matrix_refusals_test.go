package interop

import "slices"

// refusal is a cell of the matrix known not to work: the arrays with
// Feature (one py/matrix_write.py records: "dtype:struct",
// "codec:numcodecs.bz2", "keys:v2/", "format:2" ...) written by Writer
// and read by Reader ("" for any reader; Reader "writes" is the writer
// itself failing to write the array). Writers: zarr-python, tensorstore,
// zarrgw (in process), zarrgw-cli (create + write), zarrgw-cp; readers:
// zarrgw, zarr-python, zarrs, tensorstore, zarr-python-2.
type refusal struct {
	Writer, Reader string
	Feature        string
	Reason         string
	How            how
}

// how says what a refusal allows.
type how int

const (
	// fails: every such array fails with an error (never wrong values),
	// and one that succeeds fails the test, so that the list only shrinks.
	fails how = iota
	// misreads: every such array fails, with an error or wrong values: a
	// foreign implementation's known defect.
	misreads
	// sometimes: a foreign reader's limitation that fails some such arrays
	// only (by data type), with an error or wrong values; those that
	// succeed are counted exact.
	sometimes
)

// matrixRefusals: edit this list as features land. Order matters only
// when an array has two listed features: the first listed wins.
var matrixRefusals = []refusal{
	// What the foreign writers cannot write.
	{"zarr-python", "writes", "sharding+void", "zarr-python 3.1.6 cannot shard raw_bytes or structured arrays (TypeError: unhashable void scalar)", fails},

	// zarr-python writes the variable-length elements of a chain with a
	// transpose in another order, and reads them back that way itself:
	// zarrgw reads what is stored.
	{"zarr-python", "zarrgw", "transpose+variable-length", "zarr-python 3.1.6 stores transposed variable-length elements misordered (it reads its own array back the same way)", misreads},

	// What zarrgw cp does not rewrite.
	{"zarrgw-cp", "", "transpose+variable-length", "the copy carries zarr-python's misordered elements (see above)", misreads},

	// zarr-python 3.1.6 (and so the zarrs pipeline inside it) has none of
	// the registry's narrow number types, and knows the struct type only
	// by its older name "structured" (zarrgw writes "struct", as the spec
	// asks; later zarr-python releases, which need Python 3.12, read it).
	{"", "zarr-python", "dtype:struct+format:3", "zarr-python 3.1.6 does not know the struct data type name (only the older structured)", fails},
	{"", "zarrs", "dtype:struct+format:3", "zarr-python 3.1.6 does not know the struct data type name (only the older structured)", fails},
	{"zarrgw-cp", "zarr-python", "dtype:struct", "cp --to-format 3 writes struct, which zarr-python 3.1.6 does not know (only the older structured)", fails},
	{"zarrgw-cp", "zarrs", "dtype:struct", "cp --to-format 3 writes struct, which zarr-python 3.1.6 does not know (only the older structured)", fails},
	{"", "zarr-python", "dtype:bfloat16", "zarr-python 3.1.6 has no bfloat16", fails},
	{"", "zarrs", "dtype:bfloat16", "zarr-python 3.1.6 has no bfloat16", fails},
	{"", "zarr-python", "dtype:float8_e4m3fn", "zarr-python 3.1.6 has no float8 types", fails},
	{"", "zarrs", "dtype:float8_e4m3fn", "zarr-python 3.1.6 has no float8 types", fails},
	{"", "zarr-python", "dtype:float8_e5m2", "zarr-python 3.1.6 has no float8 types", fails},
	{"", "zarrs", "dtype:float8_e5m2", "zarr-python 3.1.6 has no float8 types", fails},
	{"", "zarr-python", "dtype:int4", "zarr-python 3.1.6 has no int4", fails},
	{"", "zarrs", "dtype:int4", "zarr-python 3.1.6 has no int4", fails},

	// The zarrs pipeline.
	{"zarrgw", "zarrs", "order:F", "zarrs pipeline 0.2.3: v2 order F, some types (\"input array must be a C contiguous array\")", sometimes},
	{"zarrgw", "zarrs", "endian:big+format:2", "zarrs pipeline 0.2.3: v2 big-endian, some types (\"Non-native byte order not supported\")", sometimes},
	{"", "zarrs", "endian:big+complex", "zarrs 0.2.3 swaps the real and imaginary parts of big-endian complex64", sometimes},

	// Debian's zarr-python 2.13.
	{"", "zarr-python-2", "dtype:bytes", "zarr-python 2.13 returns the base64 text of a vlen-bytes fill value as the fill", misreads},

	// tensorstore 0.1.86: data types and codecs it does not have.
	{"", "tensorstore", "dtype:struct", "tensorstore's zarr3 driver has no struct type; its zarr (v2) driver opens a structured array one field at a time", fails},
	{"", "tensorstore", "dtype:string", "tensorstore has no variable-length strings", fails},
	{"", "tensorstore", "dtype:bytes", "tensorstore has no variable-length bytes", fails},
	{"", "tensorstore", "dtype:U5", "tensorstore has no fixed_length_utf32 (numpy U)", fails},
	{"", "tensorstore", "dtype:S6", "tensorstore has no null_terminated_bytes (numpy S)", fails},
	{"", "tensorstore", "dtype:datetime64[s]", "tensorstore has no numpy.datetime64", fails},
	{"", "tensorstore", "dtype:datetime64[ns]", "tensorstore has no numpy.datetime64", fails},
	{"", "tensorstore", "dtype:timedelta64[ms]", "tensorstore has no numpy.timedelta64", fails},
	{"", "tensorstore", "codec:numcodecs.zlib", "tensorstore has no numcodecs.* codecs in v3", fails},
	{"", "tensorstore", "codec:numcodecs.lz4", "tensorstore has no numcodecs.* codecs in v3", fails},
	{"", "tensorstore", "codec:numcodecs.bz2", "tensorstore has no numcodecs.* codecs in v3", fails},
	{"", "tensorstore", "codec:numcodecs.fletcher32", "tensorstore has no numcodecs.* codecs in v3", fails},
	{"", "tensorstore", "codec:numcodecs.delta", "tensorstore has no numcodecs.* codecs in v3", fails},
	{"", "tensorstore", "codec:numcodecs.shuffle", "tensorstore has no numcodecs.* codecs in v3", fails},
	{"", "tensorstore", "codec:delta", "tensorstore's zarr driver has no v2 filters", fails},
	{"", "tensorstore", "codec:shuffle", "tensorstore's zarr driver has no v2 filters", fails},
	{"", "tensorstore", "codec:lz4", "tensorstore's zarr driver has no lz4 compressor", fails},
	{"", "tensorstore", "dtype:V4", "tensorstore reads raw_bytes as uint8 with one more dimension, and has no v2 |V", misreads},
	{"zarrgw-cp", "tensorstore", "codec:zlib", "cp writes v2 zlib as numcodecs.zlib in v3, which tensorstore lacks", fails},
	{"zarrgw-cp", "tensorstore", "codec:bz2", "cp writes v2 bz2 as numcodecs.bz2 in v3, which tensorstore lacks", fails},
}

// findRefusal is the first refusal of the cell that names one of the
// array's features.
func findRefusal(writer, reader string, features []string) *refusal {
	for i, r := range matrixRefusals {
		readerMatches := r.Reader == reader || r.Reader == "" && reader != "writes"
		if (r.Writer == "" || r.Writer == writer) && readerMatches && slices.Contains(features, r.Feature) {
			return &matrixRefusals[i]
		}
	}
	return nil
}
