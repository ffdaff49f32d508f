package sts

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The STS operation and API version answered.
const (
	Action  = "AssumeRoleWithWebIdentity"
	Version = "2011-06-15"
)

// MaxBody bounds an STS request's form body. A web identity token is at
// most 20000 characters (STS's own bound), and the other parameters are
// short; a larger body is refused before it is read.
const MaxBody = 64 << 10

// AssumeRoleRequest is a parsed AssumeRoleWithWebIdentity request.
//
// Policy and PolicyArns (session policies, which would narrow the session)
// are refused rather than ignored: ignoring them would grant a client more
// than it asked for. ProviderId names the issuer of an OAuth 2.0 access
// token (Amazon's or Facebook's); the gateway takes OpenID Connect ID
// tokens only, whose issuer is their "iss", so it is ignored.
type AssumeRoleRequest struct {
	RoleArn         string
	RoleSessionName string
	// WebIdentityToken is the caller's ID token: a credential, never to be
	// logged or repeated in an error (String leaves it out).
	WebIdentityToken string
	// DurationSeconds is the session length asked for; 0 when the request
	// gives none (Issuer applies its default and bounds).
	DurationSeconds int
}

// Principal is the gateway principal named by RoleArn ("" if RoleArn does
// not name one: ParseAssumeRole refuses such a request).
func (r AssumeRoleRequest) Principal() string {
	p, _ := PrincipalFromRoleArn(r.RoleArn)
	return p
}

// String leaves the web identity token out of logs.
func (r AssumeRoleRequest) String() string {
	return fmt.Sprintf("sts.AssumeRoleRequest{RoleArn: %q, RoleSessionName: %q, DurationSeconds: %d}", r.RoleArn, r.RoleSessionName, r.DurationSeconds)
}

// GoString leaves the web identity token out of %#v.
func (r AssumeRoleRequest) GoString() string { return r.String() }

// IsSTSRequest tells an STS call from an S3 request on the S3 listener,
// from the method, path, Content-Type and raw query only: it never reads
// the body, so an S3 request's body is untouched, and a slow client cannot
// hold up the decision. It is true for
//
//   - POST / with Content-Type application/x-www-form-urlencoded and an
//     empty query (or one with an Action parameter): what AWS SDKs, boto3
//     and the aws CLI send. No S3 operation posts a form to a service's or
//     bucket's root (a browser upload posts multipart/form-data, and
//     DeleteObjects has ?delete in its query), so nothing S3 is taken.
//     Whether the body's Action is AssumeRoleWithWebIdentity is
//     ParseAssumeRole's to say: another action is answered InvalidAction,
//     as STS answers it, rather than being handed to S3 to fail obscurely.
//   - GET / with an Action parameter in the query (the query form of STS
//     calls). S3's listings have no Action parameter.
//
// The path is "/" whether the bucket is in the host name or not: with
// virtual-hosted buckets, BUCKET.DOMAIN/ takes STS calls too, as AWS's
// endpoints don't, but no S3 request is lost by it.
func IsSTSRequest(r *http.Request) bool {
	if r.URL == nil || r.URL.Path != "/" {
		return false
	}
	switch r.Method {
	case http.MethodPost:
		return isForm(r.Header.Get("Content-Type")) && (r.URL.RawQuery == "" || hasParam(r.URL.RawQuery, "Action"))
	case http.MethodGet:
		return hasParam(r.URL.RawQuery, "Action")
	}
	return false
}

// isForm reports a Content-Type of application/x-www-form-urlencoded, with
// or without parameters (boto3 adds "; charset=utf-8").
func isForm(contentType string) bool {
	media, _, _ := strings.Cut(contentType, ";")
	return strings.EqualFold(strings.TrimSpace(media), "application/x-www-form-urlencoded")
}

// hasParam reports a parameter in a raw query without parsing it all; a
// percent-encoded name is not recognised, and such a request goes to S3.
func hasParam(raw, name string) bool {
	return strings.HasPrefix(raw, name+"=") || strings.Contains(raw, "&"+name+"=")
}

// ParseAssumeRole reads an AssumeRoleWithWebIdentity request: a POST whose
// body is a form (at most MaxBody bytes), or a GET with the parameters in
// the query. A POST's query may hold parameters too; a parameter given
// more than once, in either place or both, is refused, since which one
// counts could not be told. Errors are *Error, with STS's codes:
//
//   - MissingAction, or InvalidAction for another action or a Version
//     other than 2011-06-15 (MissingParameter without a Version);
//   - ValidationError, in STS's words ("1 validation error detected: Value
//     null at 'roleArn' failed to satisfy constraint: Member must not be
//     null"), for a missing RoleArn, RoleSessionName or WebIdentityToken,
//     a RoleSessionName outside [\w+=,.@-]{2,64}, a token outside 4..20000
//     characters, a DurationSeconds that is not a positive whole number,
//     and "Request ARN is invalid" for a RoleArn not ending in role/NAME;
//   - InvalidParameterValue for Policy or PolicyArns (not supported);
//   - MalformedQueryString for a form that does not parse (400, where AWS
//     documents 404);
//   - RequestEntityTooLarge (413) for a body over MaxBody;
//   - MethodNotAllowed (405) for a method other than GET and POST.
//
// The configured bounds of DurationSeconds are Issuer's to check.
//
// A GET carries the web identity token in its URL: whatever logs requests
// must leave out the query of an STS request (IsSTSRequest tells which).
func ParseAssumeRole(r *http.Request) (AssumeRoleRequest, error) {
	params, err := requestParams(r)
	if err != nil {
		return AssumeRoleRequest{}, err
	}
	if err := checkAction(params); err != nil {
		return AssumeRoleRequest{}, err
	}
	req := AssumeRoleRequest{
		RoleArn:          params.Get("RoleArn"),
		RoleSessionName:  params.Get("RoleSessionName"),
		WebIdentityToken: params.Get("WebIdentityToken"),
	}
	var problems []string
	switch {
	case req.RoleArn == "":
		problems = append(problems, "Value null at 'roleArn' failed to satisfy constraint: Member must not be null")
	case len(req.RoleArn) > 2048:
		problems = append(problems, "Value at 'roleArn' failed to satisfy constraint: Member must have length less than or equal to 2048")
	}
	switch n := req.RoleSessionName; {
	case n == "":
		problems = append(problems, "Value null at 'roleSessionName' failed to satisfy constraint: Member must not be null")
	case len(n) < 2:
		problems = append(problems, fmt.Sprintf("Value %s at 'roleSessionName' failed to satisfy constraint: Member must have length greater than or equal to 2", quoted(n)))
	case len(n) > 64:
		problems = append(problems, fmt.Sprintf("Value %s at 'roleSessionName' failed to satisfy constraint: Member must have length less than or equal to 64", quoted(n)))
	case !roleSessionName(n):
		problems = append(problems, fmt.Sprintf("Value %s at 'roleSessionName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]*", quoted(n)))
	}
	// the token's value is never repeated: it is a credential
	switch n := len(req.WebIdentityToken); {
	case n == 0:
		problems = append(problems, "Value null at 'webIdentityToken' failed to satisfy constraint: Member must not be null")
	case n < 4:
		problems = append(problems, "Value at 'webIdentityToken' failed to satisfy constraint: Member must have length greater than or equal to 4")
	case n > 20000:
		problems = append(problems, "Value at 'webIdentityToken' failed to satisfy constraint: Member must have length less than or equal to 20000")
	}
	if v, ok := params["DurationSeconds"]; ok {
		d, err := strconv.ParseInt(v[0], 10, 32)
		if err != nil || d < 1 {
			problems = append(problems, fmt.Sprintf("Value %s at 'durationSeconds' failed to satisfy constraint: Member must be a positive whole number of seconds", quoted(v[0])))
		}
		req.DurationSeconds = int(d)
	}
	if len(problems) > 0 {
		return AssumeRoleRequest{}, validation(problems...)
	}
	if _, err := PrincipalFromRoleArn(req.RoleArn); err != nil {
		return AssumeRoleRequest{}, invalidArn(err)
	}
	for name := range params {
		if name == "Policy" || strings.HasPrefix(name, "PolicyArns.") {
			return AssumeRoleRequest{}, NewError(CodeInvalidParameterValue,
				"Session policies (Policy, PolicyArns) are not supported: the session has the access of the principal its role names. Send the request without them.")
		}
	}
	return req, nil
}

// requestParams is the request's parameters, each given once.
func requestParams(r *http.Request) (url.Values, error) {
	params, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, &Error{Code: CodeMalformedQueryString, Message: "The query string does not parse.", Status: http.StatusBadRequest, Type: Sender, Err: err}
	}
	switch r.Method {
	case http.MethodGet:
	case http.MethodPost:
		body, err := readForm(r)
		if err != nil {
			return nil, err
		}
		for name, v := range body {
			params[name] = append(params[name], v...)
		}
	default:
		return nil, NewError(CodeMethodNotAllowed, fmt.Sprintf("STS requests are POST or GET; %s is not allowed.", quoted(r.Method)))
	}
	var repeated []string
	for name, v := range params {
		if len(v) > 1 {
			repeated = append(repeated, name)
		}
	}
	if len(repeated) > 0 {
		sort.Strings(repeated)
		return nil, validation(fmt.Sprintf("Parameters given more than once: %s", quoted(strings.Join(repeated, ", "))))
	}
	return params, nil
}

// readForm reads and parses a POST's form body, refusing one over MaxBody
// without reading it all.
func readForm(r *http.Request) (url.Values, error) {
	if !isForm(r.Header.Get("Content-Type")) {
		return nil, validation(fmt.Sprintf("An STS POST's body is application/x-www-form-urlencoded, not %s.", quoted(r.Header.Get("Content-Type"))))
	}
	tooLarge := NewError(CodeRequestEntityTooLarge, fmt.Sprintf("The request body is larger than %d bytes.", MaxBody))
	if r.ContentLength > MaxBody {
		return nil, tooLarge
	}
	if r.Body == nil {
		return url.Values{}, nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
	var maxBytes *http.MaxBytesError
	switch {
	case errors.As(err, &maxBytes): // the gateway's own, smaller bound
		return nil, tooLarge
	case err != nil:
		return nil, &Error{Code: CodeValidationError, Message: "The request body could not be read.", Status: http.StatusBadRequest, Type: Sender,
			Err: fmt.Errorf("reading the STS request body: %w", err)}
	case len(body) > MaxBody:
		return nil, tooLarge
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, &Error{Code: CodeMalformedQueryString, Message: "The form body does not parse.", Status: http.StatusBadRequest, Type: Sender, Err: err}
	}
	return form, nil
}

// checkAction checks Action and Version.
func checkAction(params url.Values) error {
	action, ok := params["Action"]
	if !ok || action[0] == "" {
		return NewError(CodeMissingAction, "The request must contain the parameter Action.")
	}
	if action[0] != Action {
		return NewError(CodeInvalidAction, fmt.Sprintf("Could not find operation %s for version %s: this endpoint answers %s only.",
			quoted(action[0]), Version, Action))
	}
	version, ok := params["Version"]
	if !ok || version[0] == "" {
		return NewError(CodeMissingParameter, "The request must contain the parameter Version.")
	}
	if version[0] != Version {
		return NewError(CodeInvalidAction, fmt.Sprintf("Could not find operation %s for version %s: the version is %s.",
			Action, quoted(version[0]), Version))
	}
	return nil
}

// PrincipalFromRoleArn is the gateway principal a role ARN names: the ARN
// is arn:PARTITION:SERVICE:REGION:ACCOUNT:role/NAME, with any partition,
// service, region and account (AWS tools want an ARN's shape, and
// "arn:aws:iam::000000000000:role/reader" names principal "reader"), and
// NAME is everything after "role/", "/" and ":" included, since principal
// names may hold them. NAME must be a plausible principal name: not empty,
// not "*" (anyone), printable, no space around it.
func PrincipalFromRoleArn(arn string) (string, error) {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" {
		return "", errors.New("a role ARN looks like arn:aws:iam::ACCOUNT:role/PRINCIPAL")
	}
	name, ok := strings.CutPrefix(parts[5], "role/")
	switch {
	case !ok:
		return "", errors.New("the ARN names no role: it must end in role/PRINCIPAL")
	case name == "":
		return "", errors.New("the role name after role/ is empty")
	case name == "*":
		return "", errors.New(`"*" (anyone) is no principal to assume`)
	case strings.TrimSpace(name) != name:
		return "", errors.New("the role name has space around it")
	case len(name) > maxField:
		return "", fmt.Errorf("the role name is longer than %d bytes", maxField)
	case !utf8.ValidString(name) || strings.IndexFunc(name, unicode.IsControl) >= 0:
		return "", errors.New("the role name has control characters or invalid UTF-8")
	}
	return name, nil
}

// roleSessionName checks STS's pattern [\w+=,.@-]{2,64}.
func roleSessionName(s string) bool {
	if len(s) < 2 || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !isWordChar(r) && !strings.ContainsRune("+=,.@-", r) {
			return false
		}
	}
	return true
}

// isWordChar is \w in ASCII, as STS's patterns mean it.
func isWordChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_'
}

// quoted repeats a client's value in a message, as STS does ('value'),
// when it is short printable ASCII; anything else is not repeated.
func quoted(s string) string {
	if len(s) > 64 || strings.IndexFunc(s, func(r rune) bool { return r < 0x20 || r > 0x7e }) >= 0 {
		return "(not shown)"
	}
	return "'" + s + "'"
}
