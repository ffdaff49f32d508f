package s3

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// boto3Script uploads a tree with boto3's transfer manager, makes a
// presigned GET URL, makes conditional puts and deletes with
// DeleteObjects; it prints what it saw as one JSON document. boto3 1.26
// (Debian's) has no IfNoneMatch or IfMatch parameters yet, so the
// conditional headers are added to the request before it is signed, as an
// application on that version would add them.
const boto3Script = `
import json, os, sys
import boto3, botocore
from botocore.config import Config

e = os.environ
s3 = boto3.client("s3", endpoint_url=e["S3_ENDPOINT"], region_name=e["S3_REGION"],
    aws_access_key_id=e["S3_KEY_ID"], aws_secret_access_key=e["S3_SECRET"],
    config=Config(signature_version="s3v4", s3={"addressing_style": "path"}))
bucket, src, out = e["S3_BUCKET"], e["TREE"], {}

for root, dirs, files in os.walk(src):
    for f in files:
        p = os.path.join(root, f)
        s3.upload_file(p, bucket, "up/" + os.path.relpath(p, src))

out["presigned"] = s3.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "up/random.bin"}, ExpiresIn=600)

def put(key, body, **headers):
    def add(request, **kw):
        for k, v in headers.items():
            request.headers[k] = v
    s3.meta.events.register_first("before-sign.s3.PutObject", add)
    try:
        r = s3.put_object(Bucket=bucket, Key=key, Body=body)
        return {"etag": r["ETag"]}
    except botocore.exceptions.ClientError as err:
        return {"code": err.response["Error"]["Code"], "status": err.response["ResponseMetadata"]["HTTPStatusCode"]}
    finally:
        s3.meta.events.unregister("before-sign.s3.PutObject", add)

first = put("cond/k", b"first", **{"If-None-Match": "*"})
out["create"] = first
out["create_again"] = put("cond/k", b"again", **{"If-None-Match": "*"})
second = put("cond/k", b"second", **{"If-Match": first.get("etag", "")})
out["match"] = second
out["stale"] = put("cond/k", b"stale", **{"If-Match": first.get("etag", "")})

keys = [k for k in sorted(e["DELETE"].split(","))]
r = s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": k} for k in keys + ["up/never-there"]]})
out["deleted"] = sorted(d["Key"] for d in r.get("Deleted", []))
out["delete_errors"] = r.get("Errors", [])
r = s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": "up/notes/readme.txt"}], "Quiet": True})
out["quiet_deleted"] = r.get("Deleted", [])
listed = []
for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix="up/", PaginationConfig={"PageSize": 3}):
    listed += [o["Key"] for o in page.get("Contents", [])]
out["listed"] = listed
json.dump(out, sys.stdout)
`

// boto3 (Debian's python3-boto3): uploads with its transfer manager, a
// presigned GET URL fetched by curl, conditional puts (If-None-Match: *
// and If-Match, fresh and stale), DeleteObjects (loud and quiet, a missing
// key among them) and a listing in pages of three.
func TestBoto3(t *testing.T) {
	py := needPython(t, "boto3")
	curl := need(t, "/usr/bin/curl")
	g := startGateway(t, options{})
	files := uploadTree(t)
	tree := t.TempDir()
	writeTree(t, tree, files)
	script := filepath.Join(t.TempDir(), "boto3_client.py")
	os.WriteFile(script, []byte(boto3Script), 0o644)
	toDelete := []string{"up/empty", "up/notes/deeper/still/leaf.json"}
	env := clientEnv(t, "S3_ENDPOINT="+g.s3, "S3_REGION="+g.region, "S3_KEY_ID="+keyID, "S3_SECRET="+g.secret,
		"S3_BUCKET=data", "TREE="+tree, "DELETE="+strings.Join(toDelete, ","))
	r := mustRun(t, env, "", py, script)
	var out struct {
		Presigned    string           `json:"presigned"`
		Create       map[string]any   `json:"create"`
		CreateAgain  map[string]any   `json:"create_again"`
		Match        map[string]any   `json:"match"`
		Stale        map[string]any   `json:"stale"`
		Deleted      []string         `json:"deleted"`
		DeleteErrors []map[string]any `json:"delete_errors"`
		QuietDeleted []any            `json:"quiet_deleted"`
		Listed       []string         `json:"listed"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("the boto3 script's output: %v\n%s\n%s", err, r.stdout, r.stderr)
	}

	// the presigned URL, with no other credentials, by curl
	dl := filepath.Join(t.TempDir(), "presigned")
	c := run(t, clientEnv(t), "", curl, "-sS", "-o", dl, "-w", "%{http_code}", out.Presigned)
	if c.code != 0 || c.stdout != "200" {
		t.Fatalf("curl of the presigned URL: exit %d, status %s: %s", c.code, c.stdout, c.stderr)
	}
	sameTree(t, "the presigned GET", map[string][]byte{"random.bin": mustRead(t, dl)}, map[string][]byte{"random.bin": files["random.bin"]})
	if c := run(t, clientEnv(t), "", curl, "-s", "-o", "/dev/null", "-w", "%{http_code}", strings.Replace(out.Presigned, "random.bin", "empty", 1)); c.stdout != "403" {
		t.Errorf("the presigned URL with another key: status %s, want 403", c.stdout)
	}

	// conditional puts
	if out.Create["etag"] == nil {
		t.Errorf("If-None-Match: * on a new key: %v", out.Create)
	}
	if out.CreateAgain["code"] != "PreconditionFailed" || out.CreateAgain["status"] != float64(http.StatusPreconditionFailed) {
		t.Errorf("If-None-Match: * on an existing key: %v, want PreconditionFailed (412)", out.CreateAgain)
	}
	if out.Match["etag"] == nil {
		t.Errorf("If-Match with the current ETag: %v", out.Match)
	}
	if out.Stale["code"] != "PreconditionFailed" {
		t.Errorf("If-Match with a stale ETag: %v, want PreconditionFailed", out.Stale)
	}
	g.checkKeys(t, "data", "cond/", map[string][]byte{"k": []byte("second")})

	// DeleteObjects: S3 reports a key that was not there as deleted
	want := sortedStrings(append(append([]string{}, toDelete...), "up/never-there"))
	if strings.Join(out.Deleted, ",") != strings.Join(want, ",") || len(out.DeleteErrors) > 0 {
		t.Errorf("delete_objects: deleted %v, errors %v; want deleted %v", out.Deleted, out.DeleteErrors, want)
	}
	if len(out.QuietDeleted) != 0 {
		t.Errorf("a quiet delete_objects reported %v", out.QuietDeleted)
	}
	for _, k := range append(toDelete, "up/notes/readme.txt") {
		delete(files, strings.TrimPrefix(k, "up/"))
		g.checkAbsent(t, "data", k)
	}
	g.checkKeys(t, "data", "up/", files)
	g.checkArray(t, "data", "up/"+arrayPath)
	var wantListed []string
	for k := range files {
		wantListed = append(wantListed, "up/"+k)
	}
	if got := strings.Join(out.Listed, "\n"); got != strings.Join(sortedStrings(wantListed), "\n") {
		t.Errorf("list_objects_v2 in pages of 3:\n%s\nwant\n%s", got, strings.Join(sortedStrings(wantListed), "\n"))
	}
}

func sortedStrings(s []string) []string {
	s = append([]string(nil), s...)
	sort.Strings(s)
	return s
}
