package registry

// Configuration schemas of the bundled extensions, in the JSON Schema subset
// of extension.Manifest. They describe what HCL may set; metadata written by
// other implementations may carry more forms (numcodecs' integer shuffle,
// transpose's legacy "C"/"F"), which the codecs accept on their own. A
// property marked "writeOnly" is a secret: configuration must take it from
// a variable, never spell it out.

// codecSchemas is keyed by each bundled codec's registered name.
var codecSchemas = map[string]string{
	"bytes": `{"type":"object","properties":{
		"endian":{"type":"string","enum":["little","big"],"description":"byte order of multi-byte types"}}}`,
	"vlen-utf8":  `{"type":"object","properties":{}}`,
	"vlen-bytes": `{"type":"object","properties":{}}`,
	"numcodecs.json2": `{"type":"object","properties":{
		"encoding":{"type":"string","enum":["utf-8"]},
		"ensure_ascii":{"type":"boolean"},
		"allow_nan":{"type":"boolean"},
		"check_circular":{"type":"boolean"},
		"indent":{"type":"integer","minimum":0},
		"separators":{"type":"array","items":{"type":"string"}},
		"skipkeys":{"type":"boolean"},
		"sort_keys":{"type":"boolean"},
		"strict":{"type":"boolean"}}}`,
	"transpose": `{"type":"object","required":["order"],"properties":{
		"order":{"type":"array","items":{"type":"integer","minimum":0},"description":"permutation of the array's axes"}}}`,
	"numcodecs.delta": `{"type":"object","properties":{
		"dtype":{"type":"string","description":"numpy type of the decoded data (default: the array's)"},
		"astype":{"type":"string","description":"numpy type of the encoded differences (default: dtype)"}}}`,
	"numcodecs.fixedscaleoffset": `{"type":"object","required":["offset","scale"],"properties":{
		"offset":{"type":"number"},
		"scale":{"type":"number"},
		"dtype":{"type":"string"},
		"astype":{"type":"string"}}}`,
	"numcodecs.bitround": `{"type":"object","required":["keepbits"],"properties":{
		"keepbits":{"type":"integer","minimum":0,"maximum":52,"description":"mantissa bits kept"}}}`,
	"gzip": `{"type":"object","properties":{
		"level":{"type":"integer","minimum":0,"maximum":9,"default":5}}}`,
	"numcodecs.zlib": `{"type":"object","properties":{
		"level":{"type":"integer","minimum":-1,"maximum":9,"default":1}}}`,
	"zstd": `{"type":"object","properties":{
		"level":{"type":"integer","minimum":-131072,"maximum":22,"default":0},
		"checksum":{"type":"boolean","default":false}}}`,
	"numcodecs.lz4": `{"type":"object","properties":{
		"acceleration":{"type":"integer","default":1}}}`,
	"numcodecs.bz2": `{"type":"object","properties":{
		"level":{"type":"integer","minimum":1,"maximum":9,"default":1}}}`,
	"numcodecs.shuffle": `{"type":"object","properties":{
		"elementsize":{"type":"integer","minimum":0,"default":4}}}`,
	"numcodecs.quantize": `{"type":"object","required":["digits","dtype"],"properties":{
		"digits":{"type":"integer","description":"decimal digits kept"},
		"dtype":{"type":"string","description":"float type of the data"},
		"astype":{"type":"string","description":"float type stored (default: dtype)"}}}`,
	"sharding_indexed": `{"type":"object","required":["chunk_shape"],"properties":{
		"chunk_shape":{"type":"array","items":{"type":"integer","minimum":1},"description":"inner chunk shape"},
		"codecs":{"type":"array","items":` + codecListItem + `,"description":"codecs of the inner chunks"},
		"index_codecs":{"type":"array","items":` + codecListItem + `},
		"index_location":{"type":"string","enum":["start","end"],"default":"end"}}}`,
	"crc32c":               checksumSchema,
	"numcodecs.crc32":      checksumSchema,
	"numcodecs.adler32":    checksumSchema,
	"numcodecs.fletcher32": `{"type":"object","properties":{}}`,
	"blosc": `{"type":"object","properties":{
		"cname":{"type":"string","enum":["blosclz","lz4","lz4hc","snappy","zlib","zstd"],"default":"lz4"},
		"clevel":{"type":"integer","minimum":0,"maximum":9,"default":5},
		"shuffle":{"type":"string","enum":["noshuffle","shuffle","bitshuffle"],"default":"shuffle"},
		"typesize":{"type":"integer","minimum":1},
		"blocksize":{"type":"integer","minimum":0,"default":0}}}`,
}

// codecListItem is one entry of a codec list inside a codec's
// configuration, as in v3 metadata.
const codecListItem = `{"type":"object","required":["name"],"properties":{
	"name":{"type":"string"},
	"configuration":{"type":"object"}}}`

const checksumSchema = `{"type":"object","properties":{
	"location":{"type":"string","enum":["start","end"]}}}`

const fsSchema = `{"type":"object","required":["root"],"properties":{
	"root":{"type":"string","description":"directory holding the keys"},
	"dir_sync":{"type":"boolean","default":true,"description":"fsync the directory after each write"}}}`

const s3Schema = `{"type":"object","required":["bucket"],"properties":{
	"bucket":{"type":"string"},
	"region":{"type":"string"},
	"endpoint":{"type":"string","description":"URL of an S3-compatible service (default: AWS)"},
	"prefix":{"type":"string","description":"key prefix inside the bucket"},
	"use_path_style":{"type":"boolean","default":false},
	"access_key_id":{"type":"string"},
	"secret_access_key":{"type":"string","writeOnly":true},
	"session_token":{"type":"string","writeOnly":true}}}`

const shardingSchema = `{"type":"object","required":["chunks_per_shard"],"properties":{
	"chunks_per_shard":{"type":"array","items":{"type":"integer","minimum":1},"description":"chunks per shard along each axis"}}}`
