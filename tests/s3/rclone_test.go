package s3

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rclone's S3 backend (provider Other, its defaults otherwise): copy up,
// check, sync after the local tree changed, check again, copy down; every
// upload read back through the key API and the array API. rclone check
// must succeed: the gateway's ETags are not MD5s, so rclone compares
// sizes, and says so.
func TestRclone(t *testing.T) {
	rclone := need(t, "/usr/bin/rclone")
	g := startGateway(t, options{})
	conf := filepath.Join(t.TempDir(), "rclone.conf")
	os.WriteFile(conf, []byte(fmt.Sprintf(`[gw]
type = s3
provider = Other
access_key_id = %s
secret_access_key = %s
endpoint = %s
region = %s
`, keyID, g.secret, g.s3, g.region)), 0o600)
	env := clientEnv(t, "RCLONE_CONFIG="+conf)
	rc := func(args ...string) result {
		t.Helper()
		return mustRun(t, env, "", rclone, args...)
	}
	files := uploadTree(t)
	local := t.TempDir()
	writeTree(t, local, files)

	rc("copy", local, "gw:data/rc")
	g.checkKeys(t, "data", "rc/", files)
	g.checkArray(t, "data", "rc/"+arrayPath)
	if r := rc("check", local, "gw:data/rc"); !strings.Contains(r.stderr, "0 differences found") {
		t.Errorf("rclone check after copy:\n%s", r.stderr)
	}

	// a file changed, one added, one removed
	files["notes/readme.txt"] = []byte("rclone was here too\n")
	files["added/new.bin"] = []byte{0, 1, 2, 3}
	delete(files, "random.bin")
	writeTree(t, local, files)
	os.Remove(filepath.Join(local, "random.bin"))
	rc("sync", local, "gw:data/rc")
	g.checkKeys(t, "data", "rc/", files)
	g.checkAbsent(t, "data", "rc/random.bin")
	g.checkArray(t, "data", "rc/"+arrayPath)
	if r := rc("check", local, "gw:data/rc"); !strings.Contains(r.stderr, "0 differences found") {
		t.Errorf("rclone check after sync:\n%s", r.stderr)
	}
	// a difference is one
	writeTree(t, local, map[string][]byte{"notes/readme.txt": []byte("changed after the sync\n")})
	if r := run(t, env, "", rclone, "check", local, "gw:data/rc"); r.code == 0 {
		t.Errorf("rclone check found no difference after a local file changed:\n%s", r.stderr)
	}

	down := t.TempDir()
	rc("copy", "gw:data/rc", down)
	sameTree(t, "rclone copy down", readTree(t, down), files)
	if ls := strings.Split(strings.TrimSpace(rc("lsf", "-R", "--files-only", "gw:data/rc").stdout), "\n"); len(ls) != len(files) {
		t.Errorf("rclone lsf -R lists %d files, want %d:\n%s", len(ls), len(files), strings.Join(ls, "\n"))
	}
}
