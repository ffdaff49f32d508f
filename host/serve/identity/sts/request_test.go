package sts_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/zarrgw/zarrgw/host/serve/identity/sts"
)

// form is a valid request's parameters.
func form() url.Values {
	return url.Values{"Action": {"AssumeRoleWithWebIdentity"}, "Version": {"2011-06-15"},
		"RoleArn": {"arn:aws:iam::000000000000:role/reader"}, "RoleSessionName": {"alice-laptop"},
		"WebIdentityToken": {webToken}, "DurationSeconds": {"900"}}
}

func post(body string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8") // boto3's
	return r
}

// countingBody fails the test if anything reads it.
type countingBody struct{ reads int }

func (b *countingBody) Read(p []byte) (int, error) { b.reads++; return 0, io.EOF }

func TestIsSTSRequest(t *testing.T) {
	for _, tc := range []struct {
		method, target, contentType string
		want                        bool
	}{
		{"POST", "/", "application/x-www-form-urlencoded", true},
		{"POST", "/", "application/x-www-form-urlencoded; charset=utf-8", true},
		{"POST", "/", "Application/X-WWW-Form-Urlencoded", true},
		{"POST", "/?Action=AssumeRoleWithWebIdentity", "application/x-www-form-urlencoded", true},
		{"GET", "/?Action=AssumeRoleWithWebIdentity&Version=2011-06-15", "", true},
		{"GET", "/?Version=2011-06-15&Action=AssumeRoleWithWebIdentity", "", true},
		{"GET", "/?Action=GetCallerIdentity", "", true}, // answered InvalidAction by STS's parser
		// S3 requests
		{"POST", "/?delete", "application/x-www-form-urlencoded", false},
		{"POST", "/?delete", "application/xml", false},
		{"POST", "/", "multipart/form-data; boundary=x", false},
		{"POST", "/", "", false},
		{"POST", "/bucket", "application/x-www-form-urlencoded", false},
		{"POST", "/bucket/key?uploads", "application/x-www-form-urlencoded", false},
		{"GET", "/", "", false},
		{"GET", "/?list-type=2&prefix=Action", "", false},
		{"GET", "/?XAction=1", "", false},
		{"GET", "/bucket?Action=AssumeRoleWithWebIdentity", "", false},
		{"PUT", "/?Action=AssumeRoleWithWebIdentity", "application/x-www-form-urlencoded", false},
		{"HEAD", "/", "", false},
	} {
		body := &countingBody{}
		r := httptest.NewRequest(tc.method, tc.target, body)
		if tc.contentType != "" {
			r.Header.Set("Content-Type", tc.contentType)
		}
		if got := sts.IsSTSRequest(r); got != tc.want {
			t.Errorf("%s %s (%s): %v, want %v", tc.method, tc.target, tc.contentType, got, tc.want)
		}
		if body.reads != 0 {
			t.Errorf("%s %s: the body was read", tc.method, tc.target)
		}
	}
}

func TestParseForms(t *testing.T) {
	want := sts.AssumeRoleRequest{RoleArn: "arn:aws:iam::000000000000:role/reader", RoleSessionName: "alice-laptop",
		WebIdentityToken: webToken, DurationSeconds: 900}
	q := form()
	q.Del("DurationSeconds")
	split := url.Values{"Action": {"AssumeRoleWithWebIdentity"}, "Version": {"2011-06-15"}}
	rest := form()
	rest.Del("Action")
	rest.Del("Version")
	splitReq := post(rest.Encode())
	splitReq.URL.RawQuery = split.Encode()
	for what, tc := range map[string]struct {
		r    *http.Request
		want sts.AssumeRoleRequest
	}{
		"form":                  {post(form().Encode()), want},
		"query":                 {httptest.NewRequest(http.MethodGet, "/?"+form().Encode(), nil), want},
		"no duration":           {post(q.Encode()), sts.AssumeRoleRequest{RoleArn: want.RoleArn, RoleSessionName: want.RoleSessionName, WebIdentityToken: webToken}},
		"action in the query":   {splitReq, want},
		"ProviderId is ignored": {post(form().Encode() + "&ProviderId=www.amazon.com"), want},
	} {
		got, err := sts.ParseAssumeRole(tc.r)
		if err != nil || got != tc.want {
			t.Errorf("%s: %+v, %v; want %+v", what, got, err, tc.want)
		}
	}
	if got, _ := sts.ParseAssumeRole(post(form().Encode())); got.Principal() != "reader" {
		t.Errorf("Principal() = %q", got.Principal())
	}
}

func TestParseErrors(t *testing.T) {
	with := func(change func(url.Values)) string {
		v := form()
		change(v)
		return v.Encode()
	}
	set := func(name, value string) string { return with(func(v url.Values) { v.Set(name, value) }) }
	del := func(names ...string) string {
		return with(func(v url.Values) {
			for _, n := range names {
				v.Del(n)
			}
		})
	}
	type errCase struct {
		r       *http.Request
		code    string
		status  int
		message string // what the message starts with
	}
	cases := map[string]errCase{
		"no action":        {post(del("Action")), "MissingAction", 400, "The request must contain the parameter Action."},
		"another action":   {post(set("Action", "GetCallerIdentity")), "InvalidAction", 400, "Could not find operation 'GetCallerIdentity' for version 2011-06-15"},
		"assume role":      {httptest.NewRequest(http.MethodGet, "/?Action=AssumeRole&Version=2011-06-15", nil), "InvalidAction", 400, "Could not find operation 'AssumeRole'"},
		"no version":       {post(del("Version")), "MissingParameter", 400, "The request must contain the parameter Version."},
		"another version":  {post(set("Version", "2010-01-01")), "InvalidAction", 400, "Could not find operation AssumeRoleWithWebIdentity for version '2010-01-01'"},
		"no role arn":      {post(del("RoleArn")), "ValidationError", 400, "1 validation error detected: Value null at 'roleArn' failed to satisfy constraint: Member must not be null"},
		"empty role arn":   {post(set("RoleArn", "")), "ValidationError", 400, "1 validation error detected: Value null at 'roleArn'"},
		"no session name":  {post(del("RoleSessionName")), "ValidationError", 400, "1 validation error detected: Value null at 'roleSessionName' failed to satisfy constraint: Member must not be null"},
		"no token":         {post(del("WebIdentityToken")), "ValidationError", 400, "1 validation error detected: Value null at 'webIdentityToken' failed to satisfy constraint: Member must not be null"},
		"nothing":          {post(del("RoleArn", "RoleSessionName", "WebIdentityToken")), "ValidationError", 400, "3 validation errors detected: Value null at 'roleArn' failed to satisfy constraint: Member must not be null; Value null at 'roleSessionName'"},
		"session name a b": {post(set("RoleSessionName", "alice laptop")), "ValidationError", 400, "1 validation error detected: Value 'alice laptop' at 'roleSessionName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]*"},
		"session name a/b": {post(set("RoleSessionName", "alice/laptop")), "ValidationError", 400, "1 validation error detected: Value 'alice/laptop' at 'roleSessionName' failed to satisfy constraint: Member must satisfy regular expression pattern"},
		"session name é":   {post(set("RoleSessionName", "alicé")), "ValidationError", 400, "1 validation error detected: Value (not shown) at 'roleSessionName' failed to satisfy constraint: Member must satisfy regular expression pattern"},
		"session name 1":   {post(set("RoleSessionName", "a")), "ValidationError", 400, "1 validation error detected: Value 'a' at 'roleSessionName' failed to satisfy constraint: Member must have length greater than or equal to 2"},
		"session name 65":  {post(set("RoleSessionName", strings.Repeat("a", 65))), "ValidationError", 400, "1 validation error detected: Value (not shown) at 'roleSessionName' failed to satisfy constraint: Member must have length less than or equal to 64"},
		"token of 3":       {post(set("WebIdentityToken", "abc")), "ValidationError", 400, "1 validation error detected: Value at 'webIdentityToken' failed to satisfy constraint: Member must have length greater than or equal to 4"},
		"token of 20001":   {post(set("WebIdentityToken", strings.Repeat("t", 20001))), "ValidationError", 400, "1 validation error detected: Value at 'webIdentityToken' failed to satisfy constraint: Member must have length less than or equal to 20000"},
		"duration abc":     {post(set("DurationSeconds", "abc")), "ValidationError", 400, "1 validation error detected: Value 'abc' at 'durationSeconds' failed to satisfy constraint: Member must be a positive whole number of seconds"},
		"duration 0":       {post(set("DurationSeconds", "0")), "ValidationError", 400, "1 validation error detected: Value '0' at 'durationSeconds'"},
		"duration -900":    {post(set("DurationSeconds", "-900")), "ValidationError", 400, "1 validation error detected: Value '-900' at 'durationSeconds'"},
		"duration 2^40":    {post(set("DurationSeconds", "1099511627776")), "ValidationError", 400, "1 validation error detected: Value '1099511627776' at 'durationSeconds'"},
		"duration empty":   {post(set("DurationSeconds", "")), "ValidationError", 400, "1 validation error detected: Value '' at 'durationSeconds'"},
		"a user arn":       {post(set("RoleArn", "arn:aws:iam::000000000000:user/reader")), "ValidationError", 400, "Request ARN is invalid: the ARN names no role"},
		"not an arn":       {post(set("RoleArn", "reader")), "ValidationError", 400, "Request ARN is invalid: a role ARN looks like"},
		"anyone":           {post(set("RoleArn", "arn:aws:iam::0:role/*")), "ValidationError", 400, "Request ARN is invalid: \"*\" (anyone)"},
		"long arn":         {post(set("RoleArn", "arn:aws:iam::0:role/"+strings.Repeat("r", 2048))), "ValidationError", 400, "1 validation error detected: Value at 'roleArn' failed to satisfy constraint: Member must have length less than or equal to 2048"},
		"policy":           {post(set("Policy", `{"Version":"2012-10-17"}`)), "InvalidParameterValue", 400, "Session policies (Policy, PolicyArns) are not supported"},
		"policy arns":      {post(set("PolicyArns.member.1.arn", "arn:aws:iam::aws:policy/ReadOnly")), "InvalidParameterValue", 400, "Session policies"},
		"twice":            {post(form().Encode() + "&RoleArn=arn:aws:iam::0:role/writer"), "ValidationError", 400, "1 validation error detected: Parameters given more than once: 'RoleArn'"},
		"twice, two places": {func() *http.Request {
			r := post(form().Encode())
			r.URL.RawQuery = "Action=AssumeRoleWithWebIdentity"
			return r
		}(), "ValidationError", 400, "1 validation error detected: Parameters given more than once: 'Action'"},
		"bad escape":       {post(form().Encode() + "&x=%zz"), "MalformedQueryString", 400, "The form body does not parse."},
		"bad query escape": {httptest.NewRequest(http.MethodGet, "/?Action=%zz", nil), "MalformedQueryString", 400, "The query string does not parse."},
		"put":              {httptest.NewRequest(http.MethodPut, "/?"+form().Encode(), nil), "MethodNotAllowed", 405, "STS requests are POST or GET; 'PUT' is not allowed."},
		"json body": {func() *http.Request {
			r := post(`{"Action":"x"}`)
			r.Header.Set("Content-Type", "application/json")
			return r
		}(), "ValidationError", 400, "1 validation error detected: An STS POST's body is application/x-www-form-urlencoded, not 'application/json'."},
		"empty body": {post(""), "MissingAction", 400, "The request must contain the parameter Action."},
	}
	// bodies over MaxBody: announced, unannounced (chunked), and cut by
	// the gateway's own smaller bound
	big := form().Encode() + "&Padding=" + strings.Repeat("x", sts.MaxBody)
	cases["large, announced"] = errCase{post(big), "RequestEntityTooLarge", 413, "The request body is larger than 65536 bytes."}
	chunked := post(big)
	chunked.ContentLength = -1
	cases["large, chunked"] = errCase{chunked, "RequestEntityTooLarge", 413, "The request body is larger than 65536 bytes."}
	bounded := post(form().Encode())
	bounded.ContentLength = -1
	bounded.Body = http.MaxBytesReader(httptest.NewRecorder(), bounded.Body, 100)
	cases["the gateway's bound"] = errCase{bounded, "RequestEntityTooLarge", 413, "The request body is larger"}
	broken := post("")
	broken.ContentLength = -1
	broken.Body = io.NopCloser(iotest.ErrReader(errors.New("connection reset")))
	cases["a broken body"] = errCase{broken, "ValidationError", 400, "The request body could not be read."}

	for what, tc := range cases {
		_, err := sts.ParseAssumeRole(tc.r)
		var e *sts.Error
		if !errors.As(err, &e) {
			t.Errorf("%s: %v, want an *sts.Error", what, err)
			continue
		}
		if e.Code != tc.code || e.Status != tc.status || e.Type != "Sender" || !strings.HasPrefix(e.Message, tc.message) {
			t.Errorf("%s: %s %d %s %q\nwant %s %d Sender %q...", what, e.Code, e.Status, e.Type, e.Message, tc.code, tc.status, tc.message)
		}
		if strings.Contains(e.Message, webToken) || strings.Contains(err.Error(), webToken) {
			t.Errorf("%s: the error repeats the web identity token: %v", what, err)
		}
	}
	// exactly MaxBody is accepted
	v := form()
	pad := sts.MaxBody - len(v.Encode()) - len("&Padding=")
	v.Set("Padding", strings.Repeat("x", pad))
	r := post(v.Encode())
	if r.ContentLength != sts.MaxBody {
		t.Fatalf("the body is %d bytes", r.ContentLength)
	}
	if _, err := sts.ParseAssumeRole(r); err != nil {
		t.Errorf("a body of exactly %d bytes: %v", sts.MaxBody, err)
	}
}

func TestPrincipalFromRoleArn(t *testing.T) {
	for arn, want := range map[string]string{
		"arn:aws:iam::000000000000:role/reader":   "reader",
		"arn:minio:iam:::role/reader":             "reader",
		"arn:aws-cn:iam::123:role/team/reader":    "team/reader",
		"arn:x:y:z:w:role/a:b":                    "a:b",
		"arn:aws:iam::000000000000:role/R_1+=,.@": "R_1+=,.@",
	} {
		if got, err := sts.PrincipalFromRoleArn(arn); got != want || err != nil {
			t.Errorf("%s: %q, %v; want %q", arn, got, err, want)
		}
	}
	for _, arn := range []string{
		"", "reader", "role/reader", "arn:aws:iam:role/reader", "arn:aws:iam::0:reader", "arn:aws:iam::0:user/reader",
		"arn:aws:iam::0:role/", "arn:aws:iam::0:role/*", "arn:aws:iam::0:role/ reader", "arn:aws:iam::0:role/a\nb",
		"arn:aws:iam::0:role/\xff", "ARN:aws:iam::0:role/reader", "arn:aws:iam::0:role/" + strings.Repeat("r", 2049),
		"arn:aws:iam::0:Role/reader",
	} {
		if got, err := sts.PrincipalFromRoleArn(arn); err == nil || got != "" {
			t.Errorf("%q: %q, %v; want an error", arn, got, err)
		}
	}
}

// The largest valid request fits MaxBody: a 20000-character token with
// every other parameter at its longest, percent-encoded.
func TestMaxBodyFitsTheLargestRequest(t *testing.T) {
	v := form()
	v.Set("WebIdentityToken", strings.Repeat("~", 20000))                 // unreserved: sent as it is
	v.Set("RoleArn", "arn:aws:iam::0:role/"+strings.Repeat("/", 2048-20)) // sent as %2F, three times as long
	v.Set("RoleSessionName", strings.Repeat("@", 64))
	v.Set("DurationSeconds", strconv.Itoa(43200))
	if n := len(v.Encode()); n > sts.MaxBody {
		t.Fatalf("the largest valid request is %d bytes, over MaxBody", n)
	}
	if _, err := sts.ParseAssumeRole(post(v.Encode())); err != nil {
		t.Fatal(err)
	}
}
