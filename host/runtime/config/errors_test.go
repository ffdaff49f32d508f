package config_test

import (
	"testing"

	"github.com/zarrgw/zarrgw/host/runtime/config"
)

// store and dataset prefix the sources of the error cases: lines 1-3.
const fsStore = `store "fs" "a" {
  root = "/x"
}
`

// Every error case yields exactly one error, on the line of the offending
// attribute or label, naming it.
func TestErrors(t *testing.T) {
	cases := []struct {
		name string
		src  string
		line int
		col  int // checked when not 0
		want []string
	}{
		{"unknown store type", `store "s4" "raw" {
  bucket = "b"
}`, 1, 7, []string{`Unknown store type "s4"`, "Known store types: fs, s3.", `Did you mean "s3"?`}},

		{"unknown codec", fsStore + `dataset "d" {
  store = store.fs.a
  codec "zstdd" {
    level = 1
  }
}`, 6, 9, []string{`Unknown codec "zstdd"`, "Known codecs: bytes, free, nest, zstd.", `Did you mean "zstd"?`}},

		{"codec a plugin would provide, without the plugin", fsStore + `dataset "d" {
  store = store.fs.a
  codec "bitshave" {}
}`, 6, 9, []string{`Unknown codec "bitshave"`, "comes from a plugin", "zarrgw plugins lock -c /etc/zarrgw/test.hcl"}},

		{"unknown transformer", fsStore + `dataset "d" {
  store = store.fs.a
  transformer "shard" {
    chunks_per_shard = [2]
  }
}`, 6, 15, []string{`Unknown storage transformer "shard"`, "Known storage transformers: sharding."}},

		{"string where number expected", fsStore + `dataset "d" {
  store = store.fs.a
  codec "zstd" {
    level = "high"
  }
}`, 7, 13, []string{`"level"`, "number is required"}},

		{"fraction where integer expected", fsStore + `dataset "d" {
  store = store.fs.a
  codec "zstd" {
    level = 1.5
  }
}`, 7, 0, []string{`"level"`, "must be an integer, not 1.5"}},

		{"above maximum", fsStore + `dataset "d" {
  store = store.fs.a
  codec "zstd" {
    level = 23
  }
}`, 7, 0, []string{`"level"`, "at most 22"}},

		{"value outside enum", fsStore + `dataset "d" {
  store = store.fs.a
  codec "bytes" {
    endian = "middle"
  }
}`, 7, 0, []string{`"endian"`, `one of "little" or "big"`}},

		{"list element below minimum", fsStore + `dataset "d" {
  store = store.fs.a
  transformer "sharding" {
    chunks_per_shard = [32, 0]
  }
}`, 7, 0, []string{`"chunks_per_shard"`, "chunks_per_shard[1] must be at least 1"}},

		{"list element of the wrong type", fsStore + `dataset "d" {
  store = store.fs.a
  transformer "sharding" {
    chunks_per_shard = [32, "x"]
  }
}`, 7, 0, []string{`"chunks_per_shard"`}},

		{"nested object lacking a required property", fsStore + `dataset "d" {
  store = store.fs.a
  codec "nest" {
    codecs = [{ configuration = {} }]
  }
}`, 7, 0, []string{`codecs[0] lacks the required property "name"`}},

		{"missing required attribute", `store "s3" "raw" {
  region = "eu-west-1"
}`, 1, 0, []string{"Missing required argument", `"bucket"`}},

		{"unknown attribute", `store "fs" "a" {
  root  = "/x"
  rooot = "/y"
}`, 3, 0, []string{"Unsupported argument", `"rooot"`}},

		{"secret written in the file", `store "s3" "raw" {
  bucket            = "b"
  secret_access_key = "abc"
}`, 3, 0, []string{`Secret "secret_access_key"`, "var.NAME"}},

		{"undefined variable", `variable "data_root" {
  default = "/data"
}
store "fs" "a" {
  root = var.dataroot
}`, 5, 10, []string{"undeclared variable", `"dataroot"`, `Did you mean "data_root"?`}},

		{"variable without a value", `variable "x" {
  env = "TEST_NOPE"
}`, 1, 10, []string{`No value for variable "x"`, "TEST_NOPE is not set"}},

		{"variable without env or default", `variable "x" {}`, 1, 10, []string{`No value for variable "x"`, "default"}},

		{"variable default referring to a value", `variable "x" {
  default = var.y
}`, 2, 13, []string{"Reference not allowed here"}},

		{"unknown reference", fsStore + `dataset "d" {
  store = local.a
}`, 5, 11, []string{"Unknown reference", `"local"`}},

		{"dangling store reference", fsStore + `dataset "d" {
  store = store.fs.b
}`, 5, 11, []string{"undeclared store", `"fs" "b"`, "store.fs.a"}},

		{"dangling store reference as a string", fsStore + `dataset "d" {
  store = "store.fs.b"
}`, 5, 11, []string{"Not a declared store", `"store.fs.b"`}},

		{"dataset without a store", `dataset "d" {
  prefix = "x"
}`, 1, 0, []string{"Missing required argument", `"store"`}},

		{"duplicate dataset", fsStore + `dataset "d" {
  store = store.fs.a
}
dataset "d" {
  store = store.fs.a
}`, 7, 9, []string{`Duplicate dataset "d"`, "already declared at /etc/zarrgw/test.hcl:4"}},

		{"duplicate store", fsStore + `store "fs" "a" {
  root = "/y"
}`, 4, 12, []string{`Duplicate store "fs" "a"`}},

		{"invalid dataset name", fsStore + `dataset "a/b" {
  store = store.fs.a
}`, 4, 9, []string{"Invalid dataset name"}},

		{"invalid prefix", fsStore + `dataset "d" {
  store  = store.fs.a
  prefix = "../up"
}`, 6, 12, []string{"Invalid prefix"}},

		{"write access to a read-only dataset", fsStore + `dataset "d" {
  store     = store.fs.a
  read_only = true
  access {
    write = ["*"]
  }
}`, 8, 13, []string{"read_only", "access.write"}},

		{"access names an undeclared principal", fsStore + `dataset "d" {
  store = store.fs.a
  access {
    write = ["ingset"]
  }
}`, 6, 3, []string{"Unknown principal", `"ingset"`}},

		{"principal token not a sha256", `principal "ingest" {
  token_sha256 = "secret-token"
}`, 2, 18, []string{"Invalid token_sha256", "64 hexadecimal digits"}},

		{"TLS with a certificate and no key", `server {
  listen        = ":8443"
  tls_cert_file = "cert.pem"
}`, 3, 19, []string{"Incomplete TLS settings", "tls_key_file"}},

		{"store_concurrency of zero", `server {
  listen            = ":8080"
  store_concurrency = 0
}`, 3, 23, []string{"Invalid store_concurrency"}},

		{"chunk_cache that is not a size", `server {
  listen      = ":8080"
  chunk_cache = "lots"
}`, 3, 17, []string{"Invalid chunk_cache", "0 turns it off"}},

		{"bad plugin sha256", `plugin "example.org/acme/x" {
  path   = "x"
  sha256 = "abc123"
}`, 3, 12, []string{"Invalid sha256", "64 hexadecimal digits", `"abc123"`}},

		{"unpinned plugin", `plugin "example.org/acme/x" {
  path = "x"
}`, 1, 1, []string{`Plugin "example.org/acme/x" is not pinned`, "zarrgw plugins lock -c /etc/zarrgw/test.hcl"}},

		{"invalid plugin address", `plugin "example.org//x" {
  path   = "x"
}`, 1, 8, []string{"Invalid plugin address"}},

		{"bad listen address", `server {
  listen = "localhost"
}`, 2, 12, []string{"Invalid listen address", `"localhost"`}},

		{"bad listen port", `server {
  listen = "127.0.0.1:http"
}`, 2, 12, []string{"Invalid listen address", "port"}},

		{"bad timeout", `server {
  listen       = ":80"
  idle_timeout = "soon"
}`, 3, 18, []string{"Invalid idle_timeout", `"soon"`}},

		{"bad request size", `server {
  listen           = ":80"
  max_request_size = "lots"
}`, 3, 22, []string{"Invalid max_request_size"}},

		{"two server blocks", `server {
  listen = ":80"
}
server {
  listen = ":81"
}`, 4, 1, []string{"Duplicate server block"}},

		{"unknown top-level block", `datasets "d" {
}`, 1, 1, []string{"Unsupported block type", `"datasets"`}},

		{"dataset name that is no bucket name", fsStore + `dataset "Era5_Daily" {
  store = store.fs.a
}
server {
  listen = ":80"
  s3 {
    listen = "127.0.0.1:9000"
  }
}`, 4, 0, []string{"Dataset name is not a bucket name", `"Era5_Daily"`}},

		{"buckets_from an undeclared store", fsStore + `server {
  listen = ":80"
  s3 {
    listen       = "127.0.0.1:9000"
    buckets_from = "store.fs.scratch"
  }
}`, 8, 0, []string{"Not a declared store", "store.fs.scratch"}},

		{"invalid multipart_max_age", `server {
  listen = ":80"
  s3 {
    listen            = "127.0.0.1:9000"
    multipart_max_age = "a day"
  }
}`, 5, 0, []string{"Invalid multipart_max_age"}},

		{"invalid max_object_size", `server {
  listen = ":80"
  s3 {
    listen          = "127.0.0.1:9000"
    max_object_size = "big"
  }
}`, 5, 0, []string{"Invalid max_object_size"}},

		{"S3 secret written in the file", `principal "p" {
  s3_access_key_id     = "AKID"
  s3_secret_access_key = "s3cr3t"
}`, 3, 0, []string{`Secret "s3_secret_access_key"`, "var.NAME"}},

		{"S3 access key without its secret", `principal "p" {
  s3_access_key_id = "AKID"
}`, 2, 0, []string{"Incomplete S3 credentials", `"p"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, diags := parse(t, c.src, config.Options{})
			d := wantOneError(t, cfg, diags, c.line, c.want...)
			if c.col != 0 && d.Subject.Start.Column != c.col {
				t.Errorf("error at column %d, want %d:\n%s", d.Subject.Start.Column, c.col, render(cfg, diags))
			}
		})
	}
}
