package transfer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// A bucket-level error (no such bucket, an invalid bucket name, access
// denied) is said once, in one line, whatever the number of keys, and
// with progress output on; a copy from such a bucket makes no
// destination.
func TestCLIBucketErrorOneLine(t *testing.T) {
	src := t.TempDir()
	for i := range 40 { // more keys than workers: a per-key report would show
		writeNoisyArray(t, src, fmt.Sprintf("a%02d", i), []int{8}, []int{2})
	}
	s3 := servers.StartS3(t)
	env := func(secret string) []string {
		return []string{"AWS_ENDPOINT_URL=" + s3.Endpoint, "AWS_ACCESS_KEY_ID=" + s3.AccessKey,
			"AWS_SECRET_ACCESS_KEY=" + secret, "AWS_REGION=" + s3.Region}
	}
	bucket := s3.NewBucket(t)
	cases := []struct {
		name, secret, from, to, say string
	}{
		{"no such bucket", s3.SecretKey, src, "s3://no-such-bucket-here/x.zarr", "no-such-bucket-here"},
		{"invalid bucket name", s3.SecretKey, src, "s3://Invalid_Bucket/x.zarr", "InvalidBucketName"},
		{"access denied", "not-the-secret", src, "s3://" + bucket + "/x.zarr", "access denied"},
		{"no such source bucket", s3.SecretKey, "s3://no-such-bucket-here/x.zarr", filepath.Join(t.TempDir(), "made.zarr"), "no-such-bucket-here"},
	}
	for _, c := range cases {
		for _, quiet := range []bool{true, false} {
			args := []string{"cp", "--jobs", "4", c.from, c.to}
			if quiet {
				args = append(args, "-q")
			}
			out, errOut, code := zarrgwEnv(t, env(c.secret), args...)
			if code != 1 || len(lines(errOut)) != 1 || !strings.Contains(errOut, c.say) {
				t.Errorf("%s (quiet %v): exit %d, want 1 and one line saying %q\nstdout %q\nstderr %s", c.name, quiet, code, c.say, out, errOut)
			}
			if _, err := os.Stat(c.to); !strings.Contains(c.to, "://") && !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s: the destination was made", c.name)
			}
		}
	}
}
