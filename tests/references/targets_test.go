package references

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// copyDir copies the regular files of src into dst (made).
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dst, e.Name()), string(b))
	}
}

// withoutAWS is the environment with no AWS_ variable: credentials come
// from the configuration alone.
func withoutAWS() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") {
			env = append(env, kv)
		}
	}
	return env
}

// Target files in a bucket read through a declared S3 store, with the
// credentials of its block (none in the environment): `targets` maps the
// bucket's URL prefix to it. Without the map (the bucket allowed by
// allow_targets, read by URL) the environment's wrong credentials cannot
// reach the bucket, and say so naming the key.
func TestTargetsThroughDeclaredStore(t *testing.T) {
	dir, want := world(t)
	s3 := servers.StartS3(t)
	bucket := s3.NewBucket(t)
	copyDir(t, filepath.Join(dir, "nc"), filepath.Join(s3.Dir, bucket, "nc"))
	script := filepath.Join(repoRoot(), "tests", "references", "testdata", "mkrefs.py")
	run(t, dir, python, script, "refs", "nc", "s3://"+bucket+"/nc/", "refs-s3")
	s3Block := fmt.Sprintf(`variable "raw_secret" {
  env       = "RAW_SECRET"
  sensitive = true
}

store "s3" "raw" {
  bucket            = %q
  endpoint          = %q
  region            = %q
  access_key_id     = %q
  secret_access_key = var.raw_secret
  use_path_style    = true
}
`, bucket, s3.Endpoint, s3.Region, s3.AccessKey)
	dataset := "\ndataset \"nc\" {\n  store     = store.references.nc\n  read_only = true\n}\n"
	write(t, filepath.Join(dir, "targets.hcl"), s3Block+`
store "references" "nc" {
  references = "./refs-s3/joined-v1.json"
  targets    = { "s3://`+bucket+`/" = store.s3.raw }
}
`+dataset)
	write(t, filepath.Join(dir, "no-targets.hcl"), `store "references" "nc" {
  references    = "./refs-s3/joined-v1.json"
  allow_targets = ["s3://`+bucket+`/"]
}
`+dataset)

	for name, w := range want {
		out, stderr, err := cat(dir, append(withoutAWS(), "RAW_SECRET="+s3.SecretKey), "targets.hcl", "nc", name)
		if got := hex.EncodeToString(out); err != nil || got != w.Hex {
			t.Errorf("%s through store.s3.raw: %v %.40s…, want %.40s…\n%s", name, err, got, w.Hex, stderr)
		}
	}

	out, msg, err := cat(dir, append(withoutAWS(), "AWS_ACCESS_KEY_ID=none", "AWS_SECRET_ACCESS_KEY=none",
		"AWS_ENDPOINT_URL="+s3.Endpoint, "AWS_REGION="+s3.Region, "AWS_EC2_METADATA_DISABLED=true"), "no-targets.hcl", "nc", "temp")
	if err == nil || len(out) > 0 || !strings.Contains(msg, `key "temp/`) || !strings.Contains(msg, bucket) {
		t.Errorf("without targets and with wrong credentials: exit %v, %d bytes, stderr:\n%s", err, len(out), msg)
	}
}
