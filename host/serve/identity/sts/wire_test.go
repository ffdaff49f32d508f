package sts_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awssts "github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/aws-sdk-go-v2/service/sts/types"
	"github.com/aws/smithy-go"

	"github.com/zarrgw/zarrgw/host/serve/identity/sts"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

const requestID = "c6104cbe-af31-11e0-8154-cbc7ccf896c7"

// The web identity tokens the test server's stand-in verifier refuses,
// and how; any other token verifies as identity(t0 + 24h).
var refusals = map[string]error{
	"expired-token": sts.NewError(sts.CodeExpiredToken, "Token expired: current date/time must be before the expiration date/time."),
	"bad-signature": sts.NewError(sts.CodeInvalidIdentityToken, "The token's signature does not verify."),
	"wrong-claims":  sts.NewError(sts.CodeAccessDenied, "Not authorized to perform sts:AssumeRoleWithWebIdentity"),
	"claim-refused": sts.NewError(sts.CodeIDPRejectedClaim, "The email claim is not verified."),
	"idp-down":      sts.NewError(sts.CodeIDPCommunicationError, "The identity provider's keys could not be fetched."),
	"our-bug":       errors.New("password=hunter2 leaked into an error"),
}

// stsServer answers STS calls as the gateway will: IsSTSRequest,
// ParseAssumeRole, a verifier (a stand-in here), Issue, WriteResponse or
// WriteError.
func stsServer(t *testing.T, is *sts.Issuer) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !sts.IsSTSRequest(r) {
			t.Errorf("a client's STS call is not taken for one: %s %s %s", r.Method, r.URL, r.Header.Get("Content-Type"))
			http.Error(w, "not STS", http.StatusNotFound)
			return
		}
		fail := func(err error) {
			if err := sts.WriteError(w, requestID, err); err != nil {
				t.Error(err)
			}
		}
		req, err := sts.ParseAssumeRole(r)
		if err != nil {
			fail(err)
			return
		}
		if err := refusals[req.WebIdentityToken]; err != nil {
			fail(err)
			return
		}
		id := identity(t0.Add(24 * time.Hour))
		creds, err := is.Issue(req, id)
		if err != nil {
			fail(err)
			return
		}
		if err := sts.WriteResponse(w, requestID, req, id, creds); err != nil {
			t.Error(err)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestResponseDocument(t *testing.T) {
	w := httptest.NewRecorder()
	creds := sts.Credentials{AccessKeyID: "ASIAAAAAAAAAAAAAAAAA", SecretAccessKey: "secret", SessionToken: "token",
		Expiration: time.Date(2026, 5, 4, 13, 0, 0, 0, time.FixedZone("CEST", 7200))}
	if err := sts.WriteResponse(w, requestID, request(), identity(t0), creds); err != nil {
		t.Fatal(err)
	}
	want := `<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">` +
		`<AssumeRoleWithWebIdentityResult><SubjectFromWebIdentityToken>8f3e9a1c-alice</SubjectFromWebIdentityToken>` +
		`<Audience>zarrgw</Audience><AssumedRoleUser><Arn>arn:aws:sts::000000000000:assumed-role/reader/alice-laptop</Arn>` +
		`<AssumedRoleId>reader:alice-laptop</AssumedRoleId></AssumedRoleUser><Credentials><SessionToken>token</SessionToken>` +
		`<SecretAccessKey>secret</SecretAccessKey><Expiration>2026-05-04T11:00:00Z</Expiration>` +
		`<AccessKeyId>ASIAAAAAAAAAAAAAAAAA</AccessKeyId></Credentials><Provider>https://id.example.org</Provider>` +
		`</AssumeRoleWithWebIdentityResult><ResponseMetadata><RequestId>` + requestID + `</RequestId></ResponseMetadata>` +
		`</AssumeRoleWithWebIdentityResponse>`
	if got := w.Body.String(); got != want {
		t.Errorf("document\n%s\nwant\n%s", got, want)
	}
	if w.Code != 200 || w.Header().Get("Content-Type") != "text/xml" || w.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("status %d, headers %v", w.Code, w.Header())
	}

	w = httptest.NewRecorder()
	if err := sts.WriteError(w, requestID, sts.NewError(sts.CodeAccessDenied, "Not authorized <here> & now")); err != nil {
		t.Fatal(err)
	}
	want = `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type>` +
		`<Code>AccessDenied</Code><Message>Not authorized &lt;here&gt; &amp; now</Message></Error>` +
		`<RequestId>` + requestID + `</RequestId></ErrorResponse>`
	if got := w.Body.String(); got != want || w.Code != 403 || w.Header().Get("Content-Type") != "text/xml" {
		t.Errorf("error document (%d, %s)\n%s\nwant\n%s", w.Code, w.Header().Get("Content-Type"), got, want)
	}
	// an *Error made by hand, without a type: a 5xx is the receiver's fault
	w = httptest.NewRecorder()
	sts.WriteError(w, requestID, &sts.Error{Code: "ServiceUnavailable", Message: "busy", Status: 503})
	if w.Code != 503 || !strings.Contains(w.Body.String(), "<Type>Receiver</Type><Code>ServiceUnavailable</Code><Message>busy</Message>") {
		t.Errorf("a typeless 503: %d %s", w.Code, w.Body)
	}
	// a foreign error is an InternalFailure that does not repeat it
	w = httptest.NewRecorder()
	sts.WriteError(w, requestID, errors.New("password=hunter2"))
	if w.Code != 500 || strings.Contains(w.Body.String(), "hunter2") || !strings.Contains(w.Body.String(), "<Type>Receiver</Type><Code>InternalFailure</Code>") {
		t.Errorf("a foreign error: %d %s", w.Code, w.Body)
	}
}

func sdkClient(srv *httptest.Server) *awssts.Client {
	return awssts.New(awssts.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), HTTPClient: srv.Client(), RetryMaxAttempts: 1})
}

func sdkInput(token string) *awssts.AssumeRoleWithWebIdentityInput {
	return &awssts.AssumeRoleWithWebIdentityInput{RoleArn: aws.String("arn:aws:iam::000000000000:role/reader"),
		RoleSessionName: aws.String("alice-laptop"), WebIdentityToken: aws.String(token), DurationSeconds: aws.Int32(900)}
}

// aws-sdk-go-v2's own STS client reads our response.
func TestAWSSDKReadsTheResponse(t *testing.T) {
	c := &clock{t0}
	is := newIssuer(t, c, keyA)
	srv := stsServer(t, is)
	out, err := sdkClient(srv).AssumeRoleWithWebIdentity(t.Context(), sdkInput(webToken))
	if err != nil {
		t.Fatal(err)
	}
	cr := out.Credentials
	if cr == nil || out.AssumedRoleUser == nil {
		t.Fatalf("no credentials or assumed role user: %+v", out)
	}
	wantExp := time.Date(2026, 5, 4, 12, 15, 0, 0, time.UTC)
	if cr.Expiration == nil || !cr.Expiration.Equal(wantExp) {
		t.Errorf("expiration %v, want %s", cr.Expiration, wantExp)
	}
	for what, pair := range map[string][2]string{
		"subject":         {aws.ToString(out.SubjectFromWebIdentityToken), "8f3e9a1c-alice"},
		"audience":        {aws.ToString(out.Audience), "zarrgw"},
		"provider":        {aws.ToString(out.Provider), "https://id.example.org"},
		"arn":             {aws.ToString(out.AssumedRoleUser.Arn), "arn:aws:sts::000000000000:assumed-role/reader/alice-laptop"},
		"assumed role id": {aws.ToString(out.AssumedRoleUser.AssumedRoleId), "reader:alice-laptop"},
	} {
		if pair[0] != pair[1] {
			t.Errorf("%s %q, want %q", what, pair[0], pair[1])
		}
	}
	if id, _ := awsmiddleware.GetRequestIDMetadata(out.ResultMetadata); id != requestID {
		t.Errorf("request id %q", id)
	}
	// what the SDK read opens: the credentials made it through intact
	s, err := is.Open(aws.ToString(cr.AccessKeyId), aws.ToString(cr.SessionToken))
	if err != nil {
		t.Fatal(err)
	}
	if s.SecretAccessKey != aws.ToString(cr.SecretAccessKey) || s.Principal != "reader" || !s.Expiration.Equal(wantExp) {
		t.Errorf("the session opened from the SDK's credentials: %+v", s)
	}
}

// aws-sdk-go-v2 reads our errors into its codes, typed exceptions and
// statuses.
func TestAWSSDKReadsErrors(t *testing.T) {
	is := newIssuer(t, &clock{t0}, keyA)
	client := sdkClient(stsServer(t, is))
	badName := sdkInput(webToken)
	badName.RoleSessionName = aws.String("alice laptop")
	tooLong := sdkInput(webToken)
	tooLong.DurationSeconds = aws.Int32(43201)
	for what, tc := range map[string]struct {
		in      *awssts.AssumeRoleWithWebIdentityInput
		code    string
		status  int
		typed   any
		message string
	}{
		"expired":       {sdkInput("expired-token"), "ExpiredTokenException", 400, new(*types.ExpiredTokenException), "Token expired"},
		"bad signature": {sdkInput("bad-signature"), "InvalidIdentityToken", 400, new(*types.InvalidIdentityTokenException), "The token's signature"},
		"claim refused": {sdkInput("claim-refused"), "IDPRejectedClaim", 403, new(*types.IDPRejectedClaimException), "The email claim"},
		"idp down":      {sdkInput("idp-down"), "IDPCommunicationError", 400, new(*types.IDPCommunicationErrorException), "The identity provider's keys"},
		"access denied": {sdkInput("wrong-claims"), "AccessDenied", 403, nil, "Not authorized"},
		"session name":  {badName, "ValidationError", 400, nil, "1 validation error detected: Value 'alice laptop' at 'roleSessionName'"},
		"duration":      {tooLong, "ValidationError", 400, nil, "The requested DurationSeconds exceeds"},
		"internal":      {sdkInput("our-bug"), "InternalFailure", 500, nil, "The request processing has failed"},
		"session policy": {func() *awssts.AssumeRoleWithWebIdentityInput {
			in := sdkInput(webToken)
			in.Policy = aws.String("{}")
			return in
		}(), "InvalidParameterValue", 400, nil, "Session policies"},
	} {
		_, err := client.AssumeRoleWithWebIdentity(t.Context(), tc.in)
		if err == nil {
			t.Errorf("%s: no error", what)
			continue
		}
		var api smithy.APIError
		if !errors.As(err, &api) || api.ErrorCode() != tc.code || !strings.HasPrefix(api.ErrorMessage(), tc.message) {
			t.Errorf("%s: %v; want %s %q", what, err, tc.code, tc.message)
			continue
		}
		var re *awshttp.ResponseError
		if !errors.As(err, &re) || re.HTTPStatusCode() != tc.status || re.ServiceRequestID() != requestID {
			t.Errorf("%s: status or request id: %v", what, err)
		}
		if tc.typed != nil && !errors.As(err, tc.typed) {
			t.Errorf("%s: not the SDK's typed exception %T: %T %v", what, tc.typed, api, err)
		}
		if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), webToken) {
			t.Errorf("%s: the error repeats a secret: %v", what, err)
		}
	}
}

// boto3ScriptSTS calls AssumeRoleWithWebIdentity with Debian's boto3 and
// prints what it read, and the errors it raised, as one JSON document.
const boto3ScriptSTS = `
import json, os
import boto3, botocore
from botocore.config import Config

e = os.environ
sts = boto3.client("sts", endpoint_url=e["STS_ENDPOINT"], region_name="us-east-1",
    config=Config(retries={"max_attempts": 1, "mode": "standard"}))
arn = "arn:aws:iam::000000000000:role/reader"
out = {}
r = sts.assume_role_with_web_identity(RoleArn=arn, RoleSessionName="alice-laptop",
    WebIdentityToken=e["WEB_TOKEN"], DurationSeconds=900)
c = r["Credentials"]
out["ok"] = {"AccessKeyId": c["AccessKeyId"], "SecretAccessKey": c["SecretAccessKey"],
    "SessionToken": c["SessionToken"], "Expiration": c["Expiration"].isoformat(),
    "Subject": r["SubjectFromWebIdentityToken"], "Audience": r["Audience"], "Provider": r["Provider"],
    "Arn": r["AssumedRoleUser"]["Arn"], "RequestId": r["ResponseMetadata"]["RequestId"]}
for name, token, session in [("expired", "expired-token", "alice-laptop"), ("invalid", "bad-signature", "alice-laptop"),
        ("denied", "wrong-claims", "alice-laptop"), ("session", e["WEB_TOKEN"], "alice laptop")]:
    try:
        sts.assume_role_with_web_identity(RoleArn=arn, RoleSessionName=session, WebIdentityToken=token)
        out[name] = "no error"
    except botocore.exceptions.ClientError as ex:
        out[name] = {"class": type(ex).__name__, "code": ex.response["Error"]["Code"],
            "message": ex.response["Error"]["Message"], "type": ex.response["Error"].get("Type"),
            "status": ex.response["ResponseMetadata"]["HTTPStatusCode"]}
print(json.dumps(out))
`

// boto3 (Debian's python3-boto3, installed by scripts/setup.sh) reads our
// response and errors.
func TestBoto3(t *testing.T) {
	const py = "/usr/bin/python3"
	if out, err := exec.Command(py, "-c", "import boto3").CombinedOutput(); err != nil {
		servers.Unavailable(t, "%s cannot import boto3 (%v: %s): install Debian's python3-boto3 (scripts/setup.sh)", py, err, strings.TrimSpace(string(out)))
	}
	c := &clock{t0}
	is := newIssuer(t, c, keyA)
	srv := stsServer(t, is)
	dir := t.TempDir()
	script := filepath.Join(dir, "sts_client.py")
	if err := os.WriteFile(script, []byte(boto3ScriptSTS), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), py, script)
	// no configuration or credentials of the machine's: the call is
	// unsigned, and must stay so
	cmd.Env = []string{"STS_ENDPOINT=" + srv.URL, "WEB_TOKEN=" + webToken, "HOME=" + dir, "NO_PROXY=127.0.0.1",
		"AWS_CONFIG_FILE=" + filepath.Join(dir, "none"), "AWS_SHARED_CREDENTIALS_FILE=" + filepath.Join(dir, "none"),
		"AWS_EC2_METADATA_DISABLED=true"}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("the boto3 script: %v\n%s", err, stderr.String())
	}
	var got struct {
		OK                                map[string]string
		Expired, Invalid, Denied, Session struct {
			Class, Code, Message, Type string
			Status                     int
		}
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("the boto3 script's output: %v\n%s", err, raw)
	}
	ok := got.OK
	for k, want := range map[string]string{"Expiration": "2026-05-04T12:15:00+00:00", "Subject": "8f3e9a1c-alice", "Audience": "zarrgw",
		"Provider": "https://id.example.org", "Arn": "arn:aws:sts::000000000000:assumed-role/reader/alice-laptop", "RequestId": requestID} {
		if ok[k] != want {
			t.Errorf("boto3 read %s %q, want %q", k, ok[k], want)
		}
	}
	s, err := is.Open(ok["AccessKeyId"], ok["SessionToken"])
	if err != nil || s.SecretAccessKey != ok["SecretAccessKey"] {
		t.Errorf("the credentials boto3 read do not open: %v", err)
	}
	for what, tc := range map[string]struct {
		got                        any
		class, code, message, kind string
		status                     int
	}{
		"expired": {got.Expired, "ExpiredTokenException", "ExpiredTokenException", "Token expired", "Sender", 400},
		"invalid": {got.Invalid, "InvalidIdentityTokenException", "InvalidIdentityToken", "The token's signature", "Sender", 400},
		"denied":  {got.Denied, "ClientError", "AccessDenied", "Not authorized", "Sender", 403},
		"session": {got.Session, "ClientError", "ValidationError", "1 validation error detected: Value 'alice laptop'", "Sender", 400},
	} {
		g := tc.got.(struct {
			Class, Code, Message, Type string
			Status                     int
		})
		if g.Class != tc.class || g.Code != tc.code || !strings.HasPrefix(g.Message, tc.message) || g.Type != tc.kind || g.Status != tc.status {
			t.Errorf("boto3's %s error: %+v; want %s %s %q %s %d", what, g, tc.class, tc.code, tc.message, tc.kind, tc.status)
		}
	}
}
