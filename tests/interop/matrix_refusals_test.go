package interop

import "slices"

// refusal is a cell of the matrix known not to work: the arrays with
// Feature (a feature py/matrix_write.py records: "dtype:struct",
// "codec:numcodecs.bz2", "keys:v2/", "format:2" ...) written by Writer
// and read by Reader ("" for any; Reader "writes" is the writer itself
// failing to write the array). Such an array must fail in that cell with
// an error, never with wrong values (unless Wrong: a foreign reader's
// known misreading); one that succeeds fails the test, so that the list
// only shrinks; Some marks a foreign reader's limitation that fails some
// of the arrays with the feature only (by data type), which is not
// checked for arrays that succeed. Writers: zarr-python, tensorstore, zarrgw (in process),
// zarrgw-cp; readers: zarrgw, zarr-python, zarrs, tensorstore,
// zarr-python-2.
type refusal struct {
	Writer, Reader string
	Feature        string
	Reason         string
	Wrong          bool
	Some           bool
}

// matrixRefusals: edit this list as features land. Order matters only
// when an array has two listed features: the first listed wins.
var matrixRefusals = []refusal{
	// What the foreign writers cannot write.
	{"zarr-python", "writes", "sharding+void", "zarr-python 3.1.6 cannot shard raw_bytes or structured arrays (TypeError: unhashable void scalar)", false, false},

	// What zarrgw does not read yet (the parts of the issue built apart).
	{"", "zarrgw", "dtype:struct", "struct data type: not yet", false, false},
	{"", "zarrgw", "dtype:bfloat16", "bfloat16: not yet", false, false},
	{"", "zarrgw", "dtype:float8_e4m3fn", "float8 types: not yet", false, false},
	{"", "zarrgw", "dtype:float8_e5m2", "float8 types: not yet", false, false},
	{"", "zarrgw", "dtype:int4", "int4: not yet", false, false},
	// zarr-python writes the variable-length elements of a chain with a
	// transpose in another order, and reads them back that way itself:
	// zarrgw reads what is stored.
	{"zarr-python", "zarrgw", "transpose+variable-length", "zarr-python 3.1.6 stores transposed variable-length elements misordered (it reads its own array back the same way)", true, false},

	// What zarrgw cp does not rewrite.
	{"zarrgw-cp", "writes", "dtype:struct", "struct data type: not yet", false, false},
	{"zarrgw-cp", "writes", "dtype:bfloat16", "bfloat16: not yet", false, false},
	{"zarrgw-cp", "writes", "dtype:float8_e4m3fn", "float8 types: not yet", false, false},
	{"zarrgw-cp", "writes", "dtype:float8_e5m2", "float8 types: not yet", false, false},
	{"zarrgw-cp", "writes", "dtype:int4", "int4: not yet", false, false},
	{"zarrgw-cp", "writes", "dtype:datetime64[s]", "cp --to-format 3 refuses numpy.datetime64 (\"no Zarr v3 form that zarrgw writes\"), though the library writes it", false, false},
	{"zarrgw-cp", "writes", "dtype:datetime64[ns]", "cp --to-format 3 refuses numpy.datetime64, though the library writes it", false, false},
	{"zarrgw-cp", "writes", "dtype:timedelta64[ms]", "cp --to-format 3 refuses numpy.timedelta64, though the library writes it", false, false},
	{"zarrgw-cp", "", "transpose+variable-length", "the copy carries zarr-python's misordered elements (see above)", true, false},

	// zarrgw's v3 "bytes" arrays: zarrgw writes the fill value as a list
	// of byte values, zarr-python 3.1.6 (and so the zarrs pipeline) wants
	// base64 for variable_length_bytes.
	{"zarrgw", "zarr-python", "dtype:bytes+format:3", "zarr-python 3.1.6 refuses the fill value zarrgw writes for variable_length_bytes (a list of byte values, not base64)", false, false},
	{"zarrgw", "zarrs", "dtype:bytes+format:3", "zarr-python 3.1.6 refuses the fill value zarrgw writes for variable_length_bytes (a list of byte values, not base64)", false, false},
	{"zarrgw-cp", "zarr-python", "dtype:bytes", "zarr-python 3.1.6 refuses the fill value zarrgw writes for variable_length_bytes (a list of byte values, not base64)", false, false},
	{"zarrgw-cp", "zarrs", "dtype:bytes", "zarr-python 3.1.6 refuses the fill value zarrgw writes for variable_length_bytes (a list of byte values, not base64)", false, false},

	// The zarrs pipeline.
	{"zarrgw", "zarrs", "order:F", "zarrs pipeline 0.2.3: v2 order F, some types (\"input array must be a C contiguous array\")", false, true},
	{"zarrgw", "zarrs", "endian:big+format:2", "zarrs pipeline 0.2.3: v2 big-endian, some types (\"Non-native byte order not supported\")", false, true},
	{"", "zarrs", "endian:big+complex", "zarrs 0.2.3 swaps the real and imaginary parts of big-endian complex64", true, true},

	// Debian's zarr-python 2.13.
	{"", "zarr-python-2", "dtype:bytes", "zarr-python 2.13 returns the base64 text of a vlen-bytes fill value as the fill", true, false},

	// tensorstore 0.1.86: data types and codecs it does not have.
	{"", "tensorstore", "dtype:string", "tensorstore has no variable-length strings", false, false},
	{"", "tensorstore", "dtype:bytes", "tensorstore has no variable-length bytes", false, false},
	{"", "tensorstore", "dtype:U5", "tensorstore has no fixed_length_utf32 (numpy U)", false, false},
	{"", "tensorstore", "dtype:S6", "tensorstore has no null_terminated_bytes (numpy S)", false, false},
	{"", "tensorstore", "dtype:datetime64[s]", "tensorstore has no numpy.datetime64", false, false},
	{"", "tensorstore", "dtype:datetime64[ns]", "tensorstore has no numpy.datetime64", false, false},
	{"", "tensorstore", "dtype:timedelta64[ms]", "tensorstore has no numpy.timedelta64", false, false},
	{"", "tensorstore", "codec:numcodecs.zlib", "tensorstore has no numcodecs.* codecs in v3", false, false},
	{"", "tensorstore", "codec:numcodecs.lz4", "tensorstore has no numcodecs.* codecs in v3", false, false},
	{"", "tensorstore", "codec:numcodecs.bz2", "tensorstore has no numcodecs.* codecs in v3", false, false},
	{"", "tensorstore", "codec:numcodecs.fletcher32", "tensorstore has no numcodecs.* codecs in v3", false, false},
	{"", "tensorstore", "codec:numcodecs.delta", "tensorstore has no numcodecs.* codecs in v3", false, false},
	{"", "tensorstore", "codec:numcodecs.shuffle", "tensorstore has no numcodecs.* codecs in v3", false, false},
	{"", "tensorstore", "codec:delta", "tensorstore's zarr driver has no v2 filters", false, false},
	{"", "tensorstore", "codec:shuffle", "tensorstore's zarr driver has no v2 filters", false, false},
	{"", "tensorstore", "codec:lz4", "tensorstore's zarr driver has no lz4 compressor", false, false},
	{"", "tensorstore", "dtype:V4", "tensorstore reads raw_bytes as uint8 with one more dimension, and has no v2 |V", true, false},
	{"zarrgw-cp", "tensorstore", "codec:zlib", "cp writes v2 zlib as numcodecs.zlib in v3, which tensorstore lacks", false, false},
	{"zarrgw-cp", "tensorstore", "codec:bz2", "cp writes v2 bz2 as numcodecs.bz2 in v3, which tensorstore lacks", false, false},
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
