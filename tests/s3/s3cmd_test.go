package s3

import (
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// s3cmd (signature v4, host_base the listener, no TLS): put of a tree and
// of a 20 MB file (s3cmd sends it in 15 MB parts), get, ls, del; every
// upload read back through the key API and the array API.
func TestS3cmd(t *testing.T) {
	s3cmd := need(t, "/usr/bin/s3cmd")
	g := startGateway(t, options{})
	cfg := filepath.Join(t.TempDir(), "s3cfg")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`[default]
access_key = %s
secret_key = %s
host_base = %s
host_bucket = %s
bucket_location = %s
use_https = False
signature_v2 = False
`, keyID, g.secret, g.s3Addr, g.s3Addr, g.region)), 0o600)
	env := clientEnv(t)
	sc := func(args ...string) result {
		t.Helper()
		return mustRun(t, env, "", s3cmd, append([]string{"-c", cfg, "--no-progress"}, args...)...)
	}
	files := uploadTree(t)
	local := t.TempDir()
	writeTree(t, local, files)

	sc("put", "--recursive", local+"/", "s3://data/sc/")
	g.checkKeys(t, "data", "sc/", files)
	g.checkArray(t, "data", "sc/"+arrayPath)

	big := make([]byte, 20_000_000)
	rand.Read(big)
	bigFile := filepath.Join(t.TempDir(), "big.bin")
	os.WriteFile(bigFile, big, 0o644)
	sc("put", bigFile, "s3://data/sc-big/big.bin")
	if n := g.awaitRequests("PUT", "data", "sc-big/big.bin", 2); n != 2 {
		t.Errorf("s3cmd sent the 20 MB file in %d PUT requests, want 2 parts of 15 MB", n)
	}
	g.checkKeys(t, "data", "sc-big/", map[string][]byte{"big.bin": big})

	back := filepath.Join(t.TempDir(), "back.bin")
	sc("get", "s3://data/sc-big/big.bin", back)
	sameTree(t, "s3cmd get", map[string][]byte{"big.bin": mustRead(t, back)}, map[string][]byte{"big.bin": big})
	down := t.TempDir()
	sc("get", "--recursive", "s3://data/sc/", down+"/")
	sameTree(t, "s3cmd get --recursive", readTree(t, down), files)

	ls := sc("ls", "--recursive", "s3://data/sc/").stdout
	for k, v := range files {
		if !strings.Contains(ls, fmt.Sprintf("%d  s3://data/sc/%s\n", len(v), k)) {
			t.Errorf("s3cmd ls --recursive does not list sc/%s (%d bytes):\n%s", k, len(v), ls)
		}
	}
	if top := sc("ls", "s3://data/sc/").stdout; !strings.Contains(top, "DIR  s3://data/sc/notes/\n") {
		t.Errorf("s3cmd ls s3://data/sc/ lacks the notes/ prefix:\n%s", top)
	}
	if buckets := sc("ls").stdout; !strings.HasSuffix(strings.TrimSpace(buckets), "s3://data") {
		t.Errorf("s3cmd ls (the buckets): %q", buckets)
	}

	sc("del", "s3://data/sc/random.bin")
	g.checkAbsent(t, "data", "sc/random.bin")
	sc("del", "--recursive", "--force", "s3://data/sc/")
	for k := range files {
		g.checkAbsent(t, "data", "sc/"+k)
	}
	if left := sc("ls", "--recursive", "s3://data/sc/").stdout; strings.TrimSpace(left) != "" {
		t.Errorf("after s3cmd del --recursive, ls lists:\n%s", left)
	}
}
