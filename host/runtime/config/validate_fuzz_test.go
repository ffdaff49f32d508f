package config_test

import (
	"encoding/json"
	"io"
	"os"
	"testing"

	"github.com/zarrgw/zarrgw/host/runtime/config"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
)

// FuzzValidate runs what `zarrgw validate` runs on any file: the parse
// against the bundled extensions' schemas, the checks of plugin binaries
// and store roots, the diagnostics as printed and the JSON report. None
// may panic or hang; a configuration without errors reports itself
// valid, and the bounds it sets on what clients and metadata may cost
// are never negative.
func FuzzValidate(f *testing.F) {
	if example, err := os.ReadFile("../../../config.hcl.example"); err == nil {
		f.Add(example)
	}
	for _, seed := range []string{
		"",
		`server {
  listen             = "127.0.0.1:0"
  max_array_rank     = 64
  max_chunk_bytes    = "1GiB"
  max_shard_chunks   = 4194304
  expensive_memory   = "512MiB"
  expensive_requests = 4
  max_request_size   = "256MiB"
}`,
		`server {
  listen           = ":80"
  max_array_rank   = 1e400
  max_chunk_bytes  = "99999999999999999999PiB"
  max_shard_chunks = -9223372036854775808
  expensive_memory = 1.5
}`,
		`store "fs" "a" {
  root = "/nonexistent/zarrgw-fuzz"
}
dataset "d" {
  store = store.fs.a
  transformer "sharding" {
    chunks_per_shard = [4294967296, 4294967296]
  }
  access {
    read  = ["*"]
    write = ["*"]
  }
}`,
		`variable "v" {
  default = "x"
}
store "fs" "a" {
  root = var.v
}
dataset "d" {
  store = store.fs.a
  codec "zstd" {
    level = 99999999999999999999
  }
}`,
	} {
		f.Add([]byte(seed))
	}
	catalog := registry.Bundled().Catalog()
	noEnv := func(string) (string, bool) { return "", false }
	f.Fuzz(func(t *testing.T, src []byte) {
		cfg, diags := config.ParseWith(src, "/nonexistent/zarrgw-fuzz/zarrgw.hcl", config.Options{Catalog: catalog, LookupEnv: noEnv})
		if !diags.HasErrors() {
			diags = append(diags, config.VerifyPlugins(cfg)...)
			diags = append(diags, config.VerifyStores(cfg)...)
		}
		if err := cfg.WriteDiagnostics(io.Discard, diags); err != nil {
			t.Fatalf("writing the diagnostics: %v", err)
		}
		report := config.NewReport(cfg, diags)
		if _, err := json.Marshal(report); err != nil {
			t.Fatalf("the JSON report: %v", err)
		}
		if report.Valid == diags.HasErrors() {
			t.Fatalf("report valid %v with %d errors", report.Valid, report.ErrorCount)
		}
		if diags.HasErrors() {
			return
		}
		s := cfg.Server
		l := s.ArrayLimits
		if s.MaxRequestSize <= 0 || s.ExpensiveMemory < 0 || s.ExpensiveRequests < 0 || s.ExpensiveWait < 0 ||
			l.MaxRank < 0 || l.MaxChunkBytes < 0 || l.MaxShardChunks < 0 {
			t.Fatalf("a valid configuration with negative bounds: %+v", s)
		}
	})
}
