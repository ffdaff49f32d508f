package identity

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awscreds "github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
)

// A principal over its limit (burst 5, refilled once in 100 seconds) is
// answered 429 with Retry-After on the key and array APIs and SlowDown on
// the S3 API, while another principal's requests, interleaved with its
// refused ones, all succeed. Counted, not timed.
func TestRateLimitPerPrincipal(t *testing.T) {
	w := newWorld(t)
	u := w.gw.URL + "/d/climate/t/zarr.json"
	ok, limited := 0, 0
	for i := range 40 {
		code, _, h := w.call(t, "GET", u, "", "Authorization", "Bearer "+w.limitedToken)
		switch code {
		case 200:
			ok++
		case http.StatusTooManyRequests:
			limited++
			if s, err := strconv.Atoi(h.Get("Retry-After")); err != nil || s < 1 {
				t.Fatalf("429 with Retry-After %q", h.Get("Retry-After"))
			}
		default:
			t.Fatalf("request %d of the limited principal: %d", i, code)
		}
		if code, _ := w.bearer(t, u, w.steadyToken); code != 200 {
			t.Fatalf("request %d of the steady principal, beside the limited one: %d", i, code)
		}
	}
	// the burst, and at most one more refilled while the test ran
	if ok < 5 || ok > 6 || limited != 40-ok {
		t.Fatalf("the limited principal: %d answered, %d refused, want 5 (or 6) answered", ok, limited)
	}
	if code, _ := w.bearer(t, w.gw.URL+"/d/climate/t?slice=0:4&format=json", w.limitedToken); code != http.StatusTooManyRequests {
		t.Errorf("the array API over the limit: %d, want 429", code)
	}

	client := func(id, secret string) *s3.Client {
		return s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(w.gw.S3URL), UsePathStyle: true,
			Credentials: awscreds.NewStaticCredentialsProvider(id, secret, ""), RetryMaxAttempts: 1})
	}
	lim, steady := client("LIMITEDKEY", w.limitedSecret), client("STEADYKEY", w.steadySecret)
	list := func(c *s3.Client) error {
		_, err := c.ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: aws.String("climate"), Prefix: aws.String("t/")})
		return err
	}
	var api smithy.APIError
	if err := list(lim); !errors.As(err, &api) || api.ErrorCode() != "SlowDown" {
		t.Fatalf("the limited principal's S3 request: %v, want SlowDown", err)
	}
	for i := range 40 {
		if err := list(steady); err != nil {
			t.Fatalf("S3 request %d of the steady principal: %v", i, err)
		}
	}
	if code, body := w.bearer(t, w.gw.URL+"/metrics", w.steadyToken); code != 200 || !strings.Contains(body, `zarrgw_rate_limited_total{limiter="limited"}`) {
		t.Errorf("/metrics does not count the refusals by limiter")
	}
}
