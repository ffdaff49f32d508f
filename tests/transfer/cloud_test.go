package transfer

import (
	"bytes"
	bin "github.com/zarrgw/zarrgw/tests/support/binary"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/tests/support/fixtures"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// cloudEnv starts versitygw and Azurite and returns a bucket, a container
// and the conventional environment that reaches both.
func cloudEnv(t *testing.T) (bucket, container string, env []string) {
	t.Helper()
	s3 := servers.StartS3(t)
	az := servers.StartAzure(t)
	env = []string{"AWS_ENDPOINT_URL=" + s3.Endpoint, "AWS_ACCESS_KEY_ID=" + s3.AccessKey,
		"AWS_SECRET_ACCESS_KEY=" + s3.SecretKey, "AWS_REGION=" + s3.Region,
		"AZURE_STORAGE_CONNECTION_STRING=" + az.ConnectionString()}
	return s3.NewBucket(t), az.NewContainer(t), env
}

// zarrgwEnv runs zarrgw with extra environment.
func zarrgwEnv(t *testing.T, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(zarrgw, args...)
	cmd.Env = append(append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir()), env...)
	return bin.Run(t, cmd)
}

// Every fixture copied fs -> S3 -> Azure -> fs arrives byte for byte, and
// inspect and cat read s3:// and az:// LOCATIONs with nothing but the
// conventional environment.
func TestCloudRoundTrip(t *testing.T) {
	fx := fixtures.Dir(t)
	bucket, container, env := cloudEnv(t)
	back := t.TempDir()
	for _, hop := range [][2]string{{fx, "s3://" + bucket}, {"s3://" + bucket, "az://" + container}, {"az://" + container, back}} {
		out, errOut, code := zarrgwEnv(t, env, "cp", "-q", hop[0], hop[1])
		if code != 0 {
			t.Fatalf("cp %s %s: exit %d\n%s%s", hop[0], hop[1], code, out, errOut)
		}
	}
	want, got := files(t, fx), files(t, back)
	for name, b := range want {
		if !bytes.Equal(got[name], b) {
			t.Errorf("%s differs after fs -> S3 -> Azure -> fs", name)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d files came back of %d", len(got), len(want))
	}
	out, errOut, code := zarrgwEnv(t, env, "inspect", "s3://"+bucket+"/zarrs/hierarchy.zarr")
	if code != 0 || !strings.Contains(out, "baz (array, v3) shape=[10000,1000]") {
		t.Errorf("inspect s3://: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = zarrgwEnv(t, env, "cat", "--path", "1d.contiguous.f4.be", "az://"+container+"/zarrita-js/v2/data.zarr")
	if code != 0 || !strings.Contains(out, `"data": [-1000.5, 0.0, 1000.5, 0.0]`) {
		t.Errorf("cat az://: exit %d\n%s%s", code, out, errOut)
	}
}
