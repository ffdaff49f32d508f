package identity

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// awsCLI runs Debian's aws-cli with no credentials of its own: each call
// gives the environment it needs.
type awsCLI struct {
	w    *world
	bin  string
	base []string
}

func newAWS(t *testing.T, w *world) *awsCLI {
	t.Helper()
	bin := need(t, "/usr/bin/aws")
	dir := t.TempDir()
	config := filepath.Join(dir, "config")
	must(t, os.WriteFile(config, []byte("[default]\nregion = us-east-1\ns3 =\n  addressing_style = path\n"), 0o600))
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	env = append(env, "HOME="+dir, "AWS_CONFIG_FILE="+config, "AWS_SHARED_CREDENTIALS_FILE="+filepath.Join(dir, "none"),
		"AWS_EC2_METADATA_DISABLED=true", "AWS_PAGER=")
	return &awsCLI{w: w, bin: bin, base: env}
}

// run runs aws with creds (nil for none) and returns its exit code,
// standard output and standard error, all recorded for the search.
func (a *awsCLI) run(t *testing.T, creds *credentials, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, a.bin, args...)
	cmd.Env = append([]string{}, a.base...)
	if creds != nil {
		cmd.Env = append(cmd.Env, "AWS_ACCESS_KEY_ID="+creds.AccessKeyID, "AWS_SECRET_ACCESS_KEY="+creds.SecretAccessKey,
			"AWS_SESSION_TOKEN="+creds.SessionToken)
	}
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("aws %s: %v", strings.Join(args, " "), err)
	}
	if !(code == 0 && args[0] == "sts") { // STS's answer is where the session's secrets belong
		a.w.seen(out.String())
	}
	a.w.seen(errb.String())
	return code, out.String(), errb.String()
}

// credentials are what AssumeRoleWithWebIdentity answered.
type credentials struct {
	AccessKeyID     string `json:"AccessKeyId"`
	SecretAccessKey string
	SessionToken    string
	Expiration      string
}

// assume asks the gateway at endpoint for a session of principal with
// token, through aws-cli.
func (a *awsCLI) assume(t *testing.T, endpoint, principal, token string) *credentials {
	t.Helper()
	code, out, errOut := a.run(t, nil, "sts", "assume-role-with-web-identity", "--endpoint-url", endpoint,
		"--role-arn", "arn:aws:iam::000000000000:role/"+principal, "--role-session-name", "test-session",
		"--web-identity-token", token, "--duration-seconds", "900", "--output", "json")
	if code != 0 {
		t.Fatalf("aws sts assume-role-with-web-identity (role %s): exit %d: %s", principal, code, errOut)
	}
	var resp struct{ Credentials credentials }
	if err := json.Unmarshal([]byte(out), &resp); err != nil || resp.Credentials.SessionToken == "" {
		t.Fatalf("aws sts assume-role-with-web-identity: %v: %s", err, out)
	}
	c := &resp.Credentials
	a.w.remember(c.SecretAccessKey, c.SessionToken)
	return c
}

// aws-cli obtains temporary credentials for the analysts and lists and
// reads with them, but cannot write; the ingest principal's session
// writes; a session token altered by one byte is refused; A's credentials
// work on replica B; a role the token's claims do not satisfy is refused.
func TestAWSCLISessions(t *testing.T) {
	w := newWorld(t)
	a := newAWS(t, w)
	s3 := w.gw.S3URL
	ana := a.assume(t, s3, "analysts", w.token(t, w.corp, analyst))
	if !strings.HasPrefix(ana.AccessKeyID, "ASIA") {
		t.Errorf("access key id %q does not look like a temporary one", ana.AccessKeyID)
	}
	if code, out, errOut := a.run(t, ana, "s3", "ls", "s3://climate/t/", "--endpoint-url", s3); code != 0 || !strings.Contains(out, "zarr.json") {
		t.Fatalf("aws s3 ls with the session: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := a.run(t, ana, "s3", "cp", "s3://climate/t/zarr.json", "-", "--endpoint-url", s3); code != 0 || !strings.Contains(out, `"uint8"`) {
		t.Fatalf("aws s3 cp (get) with the session: exit %d\n%s%s", code, out, errOut)
	}
	file := filepath.Join(t.TempDir(), "v")
	must(t, os.WriteFile(file, []byte("\x05\x05\x05\x05"), 0o644))
	if code, _, errOut := a.run(t, ana, "s3", "cp", file, "s3://climate/t/c/0", "--endpoint-url", s3); code == 0 || !strings.Contains(errOut, "AccessDenied") {
		t.Fatalf("an analyst's session wrote (exit %d): %s", code, errOut)
	}
	ing := a.assume(t, s3, "ingest", w.token(t, w.corp, ingester))
	if code, _, errOut := a.run(t, ing, "s3", "cp", file, "s3://climate/t/c/0", "--endpoint-url", s3); code != 0 {
		t.Fatalf("an ingester's session could not write: exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(w.root, "climate", "t", "c", "0")); string(b) != "\x05\x05\x05\x05" {
		t.Fatalf("the session's write is not in the store: %q", b)
	}

	altered := *ana
	i := len(altered.SessionToken) / 2
	c := byte('A')
	if altered.SessionToken[i] == 'A' {
		c = 'B'
	}
	altered.SessionToken = altered.SessionToken[:i] + string(c) + altered.SessionToken[i+1:]
	w.remember(altered.SessionToken)
	if code, _, errOut := a.run(t, &altered, "s3", "ls", "s3://climate/t/", "--endpoint-url", s3); code == 0 || !strings.Contains(errOut, "InvalidToken") {
		t.Fatalf("a session token altered by one byte: exit %d: %s", code, errOut)
	}
	forged := *ana
	forged.SecretAccessKey = strings.Repeat("x", len(ana.SecretAccessKey))
	if code, _, errOut := a.run(t, &forged, "s3", "ls", "s3://climate/t/", "--endpoint-url", s3); code == 0 || !strings.Contains(errOut, "SignatureDoesNotMatch") {
		t.Fatalf("the session token with another secret: exit %d: %s", code, errOut)
	}

	b := w.serve(t)
	if code, out, errOut := a.run(t, ana, "s3", "ls", "s3://climate/t/", "--endpoint-url", b.S3URL); code != 0 || !strings.Contains(out, "zarr.json") {
		t.Fatalf("A's session on replica B: exit %d\n%s%s", code, out, errOut)
	}

	// a visitor's token does not have the analysts' claims
	code, _, errOut := a.run(t, nil, "sts", "assume-role-with-web-identity", "--endpoint-url", s3,
		"--role-arn", "arn:aws:iam::000000000000:role/analysts", "--role-session-name", "visitor",
		"--web-identity-token", w.token(t, w.corp, visitor))
	if code == 0 || !strings.Contains(errOut, "AccessDenied") {
		t.Fatalf("a visitor assumed the analysts' role: exit %d: %s", code, errOut)
	}
	// a static principal cannot be assumed
	code, _, errOut = a.run(t, nil, "sts", "assume-role-with-web-identity", "--endpoint-url", s3,
		"--role-arn", "arn:aws:iam::000000000000:role/steady", "--role-session-name", "steady",
		"--web-identity-token", w.token(t, w.corp, analyst))
	if code == 0 || !strings.Contains(errOut, "AccessDenied") {
		t.Fatalf("a web identity assumed a principal without claims: exit %d: %s", code, errOut)
	}
	if !strings.Contains(w.gw.Log.String(), `"auth":"sts"`) {
		t.Errorf("the access log does not say a request came with session credentials")
	}
}

// A session lasts no longer than the web identity token it came from:
// with the brief provider's 20-second tokens, the session works, then is
// refused with ExpiredToken.
func TestSessionExpiresWithItsToken(t *testing.T) {
	w := newWorld(t)
	a := newAWS(t, w)
	s3 := w.gw.S3URL
	creds := a.assume(t, s3, "brief", w.token(t, w.brief, analyst))
	exp, err := time.Parse(time.RFC3339, creds.Expiration)
	if err != nil || time.Until(exp) > 30*time.Second {
		t.Fatalf("a session from a 20-second token expires at %q (%v): not clipped to the token", creds.Expiration, err)
	}
	if code, _, errOut := a.run(t, creds, "s3", "ls", "s3://climate/t/", "--endpoint-url", s3); code != 0 {
		t.Fatalf("a fresh session: exit %d: %s", code, errOut)
	}
	var last string
	waitFor(t, "the session refused with ExpiredToken", 2*time.Minute, func() bool {
		code, _, errOut := a.run(t, creds, "s3", "ls", "s3://climate/t/", "--endpoint-url", s3)
		last = errOut
		return code != 0
	})
	if !strings.Contains(last, "ExpiredToken") {
		t.Fatalf("an expired session: %s", last)
	}
	if w.authFailures(t)["session_expired"] < 1 {
		t.Errorf("the expired session was not counted: %v", w.authFailures(t))
	}
}

// boto3 obtains temporary credentials and lists, gets and puts within the
// principal's access, refused outside it.
func TestBoto3Sessions(t *testing.T) {
	w := newWorld(t)
	py := need(t, "/usr/bin/python3")
	if out, err := exec.Command(py, "-c", "import boto3").CombinedOutput(); err != nil {
		need(t, "python3-boto3 is missing: "+string(out))
	}
	script := `
import json, sys, boto3, botocore
from botocore.config import Config
endpoint, role, token = sys.argv[1], sys.argv[2], sys.stdin.read().strip()
sts = boto3.client("sts", endpoint_url=endpoint, region_name="us-east-1",
                   config=Config(signature_version=botocore.UNSIGNED))
c = sts.assume_role_with_web_identity(RoleArn="arn:aws:iam::000000000000:role/" + role,
                                      RoleSessionName="boto", WebIdentityToken=token, DurationSeconds=900)["Credentials"]
s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                  aws_access_key_id=c["AccessKeyId"], aws_secret_access_key=c["SecretAccessKey"],
                  aws_session_token=c["SessionToken"], config=Config(signature_version="s3v4", s3={"addressing_style": "path"}, retries={"max_attempts": 1}))
out = {"secret": c["SecretAccessKey"], "session": c["SessionToken"]}
out["keys"] = [o["Key"] for o in s3.list_objects_v2(Bucket="climate", Prefix="t/").get("Contents", [])]
out["get"] = s3.get_object(Bucket="climate", Key="t/zarr.json")["Body"].read().decode()
import urllib.request
url = s3.generate_presigned_url("get_object", Params={"Bucket": "climate", "Key": "t/zarr.json"}, ExpiresIn=300)
try:
    out["presigned"] = urllib.request.urlopen(url).read().decode()
except urllib.error.HTTPError as e:
    out["presigned"] = "%d %s" % (e.code, e.read().decode())
try:
    s3.put_object(Bucket="climate", Key="t/c/0", Body=b"\x06\x06\x06\x06")
    out["put"] = "ok"
except botocore.exceptions.ClientError as e:
    out["put"] = e.response["Error"]["Code"]
print(json.dumps(out))
`
	run := func(role string, token string) map[string]any {
		cmd := exec.Command(py, "-c", script, w.gw.S3URL, role)
		cmd.Stdin = strings.NewReader(token)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "AWS_CONFIG_FILE=/nonexistent", "AWS_SHARED_CREDENTIALS_FILE=/nonexistent", "AWS_EC2_METADATA_DISABLED=true")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		w.seen(stderr.String())
		if err != nil {
			t.Fatalf("boto3 as %s: %v: %s", role, err, stderr.String())
		}
		var res map[string]any
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatalf("boto3 as %s: %v: %s", role, err, out)
		}
		w.remember(res["secret"].(string), res["session"].(string))
		delete(res, "secret")
		delete(res, "session")
		body, _ := json.Marshal(res)
		w.seen(string(body))
		return res
	}
	ana := run("analysts", w.token(t, w.corp, analyst))
	if keys, _ := json.Marshal(ana["keys"]); !strings.Contains(string(keys), "t/zarr.json") || !strings.Contains(ana["get"].(string), "uint8") {
		t.Fatalf("boto3 as an analyst: %v", ana)
	}
	if p, _ := ana["presigned"].(string); !strings.Contains(p, "uint8") {
		t.Fatalf("a presigned URL of the session: %v", ana["presigned"])
	}
	if ana["put"] != "AccessDenied" {
		t.Fatalf("boto3 as an analyst put: %v, want AccessDenied", ana["put"])
	}
	if ing := run("ingest", w.token(t, w.corp, ingester)); ing["put"] != "ok" {
		t.Fatalf("boto3 as an ingester put: %v", ing["put"])
	}
}
