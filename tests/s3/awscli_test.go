package s3

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// awsCLI is Debian's aws-cli set up for a gateway: its own config and
// credentials files, path-style addressing, no instance metadata.
type awsCLI struct {
	bin string
	env []string
	g   *gateway
}

// aws-cli's model of PutObject, which --if-match and --if-none-match need.
const awsS3Model = "/usr/lib/python3/dist-packages/awscli/botocore/data/s3/2006-03-01/service-2.json"

func newAWSCLI(t *testing.T, g *gateway) *awsCLI {
	t.Helper()
	bin := need(t, "/usr/bin/aws")
	dir := t.TempDir()
	config := filepath.Join(dir, "config")
	creds := filepath.Join(dir, "credentials")
	os.WriteFile(config, []byte(fmt.Sprintf("[default]\nregion = %s\ns3 =\n  addressing_style = path\n", g.region)), 0o600)
	os.WriteFile(creds, []byte(fmt.Sprintf("[default]\naws_access_key_id = %s\naws_secret_access_key = %s\n", keyID, g.secret)), 0o600)
	env := clientEnv(t, "AWS_CONFIG_FILE="+config, "AWS_SHARED_CREDENTIALS_FILE="+creds,
		"AWS_EC2_METADATA_DISABLED=true", "AWS_PAGER=", "AWS_DATA_PATH="+conditionalModel(t, dir))
	return &awsCLI{bin: bin, env: env, g: g}
}

// conditionalModel gives aws-cli the If-Match and If-None-Match members of
// PutObject. Debian's aws-cli (2.9) predates S3's conditional writes
// (2024), so its model lacks them; botocore reads a model found in
// AWS_DATA_PATH before its own, so the test writes there its own model
// with the two headers added, as newer models declare them.
func conditionalModel(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(awsS3Model)
	if err != nil {
		servers.Unavailable(t, "aws-cli's S3 model: %v", err)
	}
	var model map[string]any
	if err := json.Unmarshal(b, &model); err != nil {
		t.Fatal(err)
	}
	shapes := model["shapes"].(map[string]any)
	members := shapes["PutObjectRequest"].(map[string]any)["members"].(map[string]any)
	if _, ok := members["IfNoneMatch"]; !ok {
		members["IfMatch"] = map[string]any{"shape": "IfMatch", "location": "header", "locationName": "If-Match"}
		members["IfNoneMatch"] = map[string]any{"shape": "IfNoneMatch", "location": "header", "locationName": "If-None-Match"}
	}
	out := filepath.Join(dir, "models")
	p := filepath.Join(out, "s3", "2006-03-01", "service-2.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	b, _ = json.Marshal(model)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

func (a *awsCLI) args(args []string) []string {
	return append([]string{"--endpoint-url", a.g.s3, "--no-cli-pager"}, args...)
}

// run runs aws and fails the test unless it exits 0.
func (a *awsCLI) run(t *testing.T, dir string, args ...string) result {
	t.Helper()
	return mustRun(t, a.env, dir, a.bin, a.args(args)...)
}

// try runs aws and returns what it did.
func (a *awsCLI) try(t *testing.T, dir string, args ...string) result {
	t.Helper()
	return run(t, a.env, dir, a.bin, a.args(args)...)
}

// aws s3 cp (up and down, recursive), ls, sync (with --delete after the
// local tree changed), rm, and a 64 MiB upload in aws-cli's default 8 MiB
// parts; every upload read back through the key API and the array API.
func TestAWSCLI(t *testing.T) {
	g := startGateway(t, options{})
	aws := newAWSCLI(t, g)
	files := uploadTree(t)
	local := t.TempDir()
	writeTree(t, local, files)

	aws.run(t, "", "s3", "cp", "--recursive", "--only-show-errors", local, "s3://data/cp/")
	g.checkKeys(t, "data", "cp/", files)
	g.checkArray(t, "data", "cp/"+arrayPath)

	down := t.TempDir()
	aws.run(t, "", "s3", "cp", "--recursive", "--only-show-errors", "s3://data/cp/", down)
	sameTree(t, "aws s3 cp --recursive down", readTree(t, down), files)

	ls := aws.run(t, "", "s3", "ls", "--recursive", "s3://data/cp/").stdout
	for k, v := range files {
		if !strings.Contains(ls, fmt.Sprintf(" %d cp/%s\n", len(v), k)) {
			t.Errorf("aws s3 ls --recursive does not list cp/%s (%d bytes):\n%s", k, len(v), ls)
		}
	}
	top := aws.run(t, "", "s3", "ls", "s3://data/cp/").stdout
	for _, want := range []string{"PRE notes/\n", "PRE odd names/\n", "PRE " + arrayPath + "/\n", " 0 empty\n"} {
		if !strings.Contains(top, want) {
			t.Errorf("aws s3 ls s3://data/cp/ lacks %q:\n%s", want, top)
		}
	}
	if buckets := aws.run(t, "", "s3", "ls").stdout; !strings.HasSuffix(strings.TrimSpace(buckets), " data") {
		t.Errorf("aws s3 ls (the buckets): %q", buckets)
	}

	// sync, then sync again after the local tree changed: a file grown,
	// one added, one removed (--delete)
	aws.run(t, "", "s3", "sync", "--only-show-errors", local, "s3://data/sync")
	g.checkKeys(t, "data", "sync/", files)
	if r := aws.run(t, "", "s3", "sync", local, "s3://data/sync"); strings.TrimSpace(r.stdout) != "" {
		t.Errorf("a second sync of an unchanged tree transferred:\n%s", r.stdout)
	}
	files["notes/readme.txt"] = []byte("an S3 client was here, twice\n")
	files["notes/added.txt"] = []byte("new\n")
	delete(files, "empty")
	writeTree(t, local, files)
	os.Remove(filepath.Join(local, "empty"))
	aws.run(t, "", "s3", "sync", "--delete", "--only-show-errors", local, "s3://data/sync")
	g.checkKeys(t, "data", "sync/", files)
	g.checkAbsent(t, "data", "sync/empty")
	g.checkArray(t, "data", "sync/"+arrayPath)

	// rm: one key, then the rest
	aws.run(t, "", "s3", "rm", "--only-show-errors", "s3://data/cp/random.bin")
	g.checkAbsent(t, "data", "cp/random.bin")
	aws.run(t, "", "s3", "rm", "--recursive", "--only-show-errors", "s3://data/cp/")
	for k := range files {
		g.checkAbsent(t, "data", "cp/"+k)
	}
	// aws s3 ls exits 1 when it lists nothing
	if left := aws.try(t, "", "s3", "ls", "--recursive", "s3://data/cp/"); left.code != 1 || left.stdout != "" {
		t.Errorf("after aws s3 rm --recursive, ls exits %d and lists:\n%s%s", left.code, left.stdout, left.stderr)
	}

	// 64 MiB: aws-cli sends it in 8 parts of 8 MiB, and fetches it back
	// in ranged GETs
	big := make([]byte, 64<<20)
	rand.Read(big)
	bigFile := filepath.Join(t.TempDir(), "big.bin")
	os.WriteFile(bigFile, big, 0o644)
	aws.run(t, "", "s3", "cp", "--only-show-errors", bigFile, "s3://data/big/big.bin")
	if n := g.awaitRequests("PUT", "data", "big/big.bin", 8); n != 8 {
		t.Errorf("the 64 MiB upload came in %d PUT requests, want 8 parts of aws-cli's 8 MiB", n)
	}
	if n := g.awaitRequests("POST", "data", "big/big.bin", 2); n != 2 {
		t.Errorf("the 64 MiB upload made %d POST requests, want 2 (create and complete the multipart upload)", n)
	}
	g.checkKeys(t, "data", "big/", map[string][]byte{"big.bin": big})
	back := filepath.Join(t.TempDir(), "back.bin")
	aws.run(t, "", "s3", "cp", "--only-show-errors", "s3://data/big/big.bin", back)
	sameTree(t, "the 64 MiB object downloaded", map[string][]byte{"big.bin": mustRead(t, back)}, map[string][]byte{"big.bin": big})
	if head := aws.run(t, "", "s3api", "head-object", "--bucket", "data", "--key", "big/big.bin").stdout; !strings.Contains(head, `"ContentLength": 67108864`) {
		t.Errorf("head-object of the 64 MiB object:\n%s", head)
	}
}

// aws s3api put-object with --if-none-match '*' (refused on an existing
// key, accepted on a new one) and --if-match (refused with a stale ETag,
// accepted with the current one).
func TestAWSCLIConditionalPut(t *testing.T) {
	g := startGateway(t, options{})
	aws := newAWSCLI(t, g)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "v1"), []byte("first\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "v2"), []byte("second\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "v3"), []byte("third\n"), 0o644)
	etagOf := func(r result) string {
		var out struct{ ETag string }
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.ETag == "" {
			t.Fatalf("put-object printed no ETag: %q", r.stdout)
		}
		return out.ETag
	}
	put := func(body string, cond ...string) result {
		return aws.try(t, dir, append([]string{"s3api", "put-object", "--bucket", "data", "--key", "c/k", "--body", body}, cond...)...)
	}
	refused := func(r result, what string) {
		t.Helper()
		if r.code == 0 || !strings.Contains(r.stderr, "PreconditionFailed") {
			t.Errorf("%s: exit %d, stderr %q; want PreconditionFailed", what, r.code, r.stderr)
		}
	}

	first := put("v1", "--if-none-match", "*")
	if first.code != 0 {
		t.Fatalf("put-object --if-none-match '*' of a new key: exit %d: %s", first.code, first.stderr)
	}
	stale := etagOf(first)
	refused(put("v2", "--if-none-match", "*"), "put-object --if-none-match '*' of an existing key")
	g.checkKeys(t, "data", "c/", map[string][]byte{"k": []byte("first\n")})

	second := put("v2", "--if-match", stale)
	if second.code != 0 {
		t.Fatalf("put-object --if-match with the current ETag: exit %d: %s", second.code, second.stderr)
	}
	refused(put("v3", "--if-match", stale), "put-object --if-match with a stale ETag")
	g.checkKeys(t, "data", "c/", map[string][]byte{"k": []byte("second\n")})
	// S3 answers 404 (NoSuchKey) here, some servers 412: either refuses
	if r := aws.try(t, dir, "s3api", "put-object", "--bucket", "data", "--key", "c/absent", "--body", "v3", "--if-match", stale); r.code == 0 {
		t.Errorf("put-object --if-match on an absent key succeeded: %s", r.stdout)
	}
	g.checkAbsent(t, "data", "c/absent")
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
