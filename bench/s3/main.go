// Command s3bench measures S3 GETs and PUTs against several endpoints with
// one client, round by round, and prints the best round of each and the
// ratios bench/RESULTS.md records. bench/s3/run.sh starts the servers
// and runs it.
//
// Every request is a plain HTTP request of one shared Go client: for an
// S3 endpoint either through a URL presigned with aws-sdk-go-v2 (kind s3)
// or with the SDK's signature in the Authorization header (kind s3h, the
// form SDKs and CLIs send), each signed once per key and round before the
// clock starts, so the client's signing is not measured (the server
// verifies every request); for the key API and unsigned S3 requests as
// they are. PUTs are also made through the SDK's PutObject with its
// defaults (payload hash and checksum computed by the client, the same
// for every S3 endpoint).
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// endpoint is a server under test.
type endpoint struct {
	name   string
	s3     *s3.Client        // nil for the key API and unsigned S3
	pre    *s3.PresignClient // presigned URLs (kind s3)
	header bool              // signed in the Authorization header (kind s3h)
	base   string            // the key API's /d/DATASET/ URL, the bucket's URL unsigned, or the S3 endpoint
	bucket string
	creds  aws.Credentials
	region string
}

// request is a prepared request: its URL and, signed in the header, the
// headers to send.
type request struct {
	url    string
	header http.Header
}

func main() {
	var (
		targets  = flag.String("targets", "", "comma-separated NAME=s3:URL (presigned), NAME=s3h:URL (signed in the header), NAME=keys:URL/d/DATASET/ (the key API) or NAME=anon:URL/BUCKET/ (unsigned S3 requests)")
		bucket   = flag.String("bucket", "bench", "the bucket of the S3 endpoints")
		keyID    = flag.String("key-id", "", "S3 access key ID")
		secret   = flag.String("secret", "", "S3 secret access key")
		region   = flag.String("region", "us-east-1", "S3 region")
		small    = flag.Int("small", 1000, "small objects small/k0 .. small/kN-1")
		conns    = flag.Int("conns", 32, "concurrent requests of the small GETs")
		duration = flag.Duration("duration", 10*time.Second, "length of a round of small GETs")
		bigN     = flag.Int("big-n", 4, "64 MiB transfers in a round")
		rounds   = flag.Int("rounds", 5, "rounds; each endpoint's best is kept")
		what     = flag.String("what", "small-get,big-get,big-put,big-put-sdk", "what to measure")
		ratios   = flag.String("ratios", "", "comma-separated A/B: the ratios of endpoints' best results to print (each endpoint over the first when empty)")
	)
	flag.Parse()
	var eps []*endpoint
	for _, t := range strings.Split(*targets, ",") {
		name, spec, _ := strings.Cut(t, "=")
		kind, url, _ := strings.Cut(spec, ":")
		ep := &endpoint{name: name, bucket: *bucket, base: url, region: *region,
			creds: aws.Credentials{AccessKeyID: *keyID, SecretAccessKey: *secret}}
		switch kind {
		case "s3", "s3h":
			ep.s3 = s3.New(s3.Options{Region: *region, BaseEndpoint: aws.String(url), UsePathStyle: true,
				Credentials: credentials.NewStaticCredentialsProvider(*keyID, *secret, "")})
			ep.pre = s3.NewPresignClient(ep.s3)
			ep.header = kind == "s3h"
		case "keys", "anon":
		default:
			fail("target %q: want NAME=s3:URL, NAME=s3h:URL, NAME=keys:URL or NAME=anon:URL", t)
		}
		eps = append(eps, ep)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256, MaxConnsPerHost: 256}}
	big := make([]byte, 64<<20)
	rand.Read(big)

	best := map[string]map[string]float64{} // what -> endpoint -> best
	keep := func(w, name string, v float64) {
		if best[w] == nil {
			best[w] = map[string]float64{}
		}
		if v > best[w][name] {
			best[w][name] = v
		}
	}
	for r := 1; r <= *rounds; r++ {
		for _, w := range strings.Split(*what, ",") {
			for i := range eps {
				ep := eps[(i+r)%len(eps)] // each round in another order
				var v float64
				switch w {
				case "small-get":
					v = smallGets(client, ep, *small, *conns, *duration)
				case "big-get":
					v = bigGets(client, ep, *bigN)
				case "big-put":
					v = bigPuts(client, ep, big, *bigN)
				case "big-put-sdk":
					if ep.s3 == nil || ep.header {
						continue // the SDK signs in the header itself: measured once per server
					}
					v = sdkPuts(ep, big, *bigN)
				default:
					fail("unknown measurement %q", w)
				}
				fmt.Printf("round %d %-11s %-19s %10.1f %s\n", r, w, ep.name, v, unit(w))
				keep(w, ep.name, v)
			}
		}
	}
	fmt.Println()
	for _, w := range strings.Split(*what, ",") {
		var parts []string
		for _, ep := range eps {
			if v, ok := best[w][ep.name]; ok {
				parts = append(parts, fmt.Sprintf("%s %.1f", ep.name, v))
			}
		}
		fmt.Printf("best %-11s %s %s\n", w, strings.Join(parts, ", "), unit(w))
		pairs := strings.Split(*ratios, ",")
		if *ratios == "" {
			pairs = nil
			for _, ep := range eps[1:] {
				pairs = append(pairs, eps[0].name+"/"+ep.name)
			}
		}
		for _, p := range pairs {
			a, b, _ := strings.Cut(p, "/")
			va, oka := best[w][a]
			vb, okb := best[w][b]
			if oka && okb && vb > 0 {
				fmt.Printf("ratio %-11s %s / %s = %.2f\n", w, a, b, va/vb)
			}
		}
	}
}

func unit(w string) string {
	if w == "small-get" {
		return "req/s"
	}
	return "MB/s"
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "s3bench: "+format+"\n", args...)
	os.Exit(1)
}

// emptySHA256 is the payload hash of a request without a body.
const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// request prepares a request for key: presigned for method, or signed in
// its headers, on an S3 endpoint; plain on the key API and unsigned S3.
// A header signature holds for the 15 minutes S3 allows a request's
// date to be from the clock, longer than a round.
func (ep *endpoint) request(method, key string) request {
	if !ep.header {
		return request{url: ep.url(method, key)}
	}
	u := strings.TrimSuffix(ep.base, "/") + "/" + ep.bucket + "/" + key
	r, err := http.NewRequest(method, u, nil)
	if err != nil {
		fail("%v", err)
	}
	payload := emptySHA256
	if method == http.MethodPut {
		payload = "UNSIGNED-PAYLOAD" // as the SDK sends a body over TLS; the body is not hashed by either side
	}
	r.Header.Set("X-Amz-Content-Sha256", payload)
	// as S3 clients sign: the path as it is sent, not escaped again
	signer := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true })
	if err := signer.SignHTTP(context.Background(), ep.creds, r, payload, "s3", ep.region, time.Now()); err != nil {
		fail("sign %s %s: %v", method, key, err)
	}
	return request{url: u, header: r.Header}
}

// url of a key: presigned for method on an S3 endpoint, plain on the key
// API.
func (ep *endpoint) url(method, key string) string {
	if ep.pre == nil {
		return ep.base + key
	}
	ctx := context.Background()
	in := &s3.GetObjectInput{Bucket: aws.String(ep.bucket), Key: aws.String(key)}
	r, err := ep.pre.PresignGetObject(ctx, in, s3.WithPresignExpires(time.Hour))
	if method == http.MethodPut {
		r, err = ep.pre.PresignPutObject(ctx, &s3.PutObjectInput{Bucket: in.Bucket, Key: in.Key}, s3.WithPresignExpires(time.Hour))
	}
	if err != nil {
		fail("presign %s %s: %v", method, key, err)
	}
	return r.URL
}

// do sends a request and reads the answer, failing unless it is 2xx.
func do(client *http.Client, method string, pr request, body []byte) int64 {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, pr.url, rd)
	if err != nil {
		fail("%v", err)
	}
	if pr.header != nil {
		req.Header = pr.header // only read by the client: shared by the requests of the key
	}
	if body != nil {
		req.ContentLength = int64(len(body))
	}
	resp, err := client.Do(req)
	if err != nil {
		fail("%s %s: %v", method, pr.url, err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode/100 != 2 {
		fail("%s %s: %d %v", method, pr.url, resp.StatusCode, err)
	}
	return n
}

// smallGets GETs the small objects round-robin from conns goroutines for
// d and returns the requests per second.
func smallGets(client *http.Client, ep *endpoint, n, conns int, d time.Duration) float64 {
	reqs := make([]request, n)
	for i := range reqs {
		reqs[i] = ep.request(http.MethodGet, fmt.Sprintf("small/k%d", i))
	}
	var count atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for c := 0; c < conns; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := c; time.Now().Before(deadline); i += conns {
				if do(client, http.MethodGet, reqs[i%n], nil) != 4096 {
					fail("%s: small/k%d is not 4096 bytes", ep.name, i%n)
				}
				count.Add(1)
			}
		}()
	}
	wg.Wait()
	return float64(count.Load()) / time.Since(start).Seconds()
}

// bigGets GETs big/obj (64 MiB) n times in a row; MB/s.
func bigGets(client *http.Client, ep *endpoint, n int) float64 {
	pr := ep.request(http.MethodGet, "big/obj")
	start := time.Now()
	var total int64
	for range n {
		total += do(client, http.MethodGet, pr, nil)
	}
	return float64(total) / 1e6 / time.Since(start).Seconds()
}

// bigPuts PUTs 64 MiB n times in a row under the endpoint's own key; MB/s.
func bigPuts(client *http.Client, ep *endpoint, data []byte, n int) float64 {
	pr := ep.request(http.MethodPut, "big/put-"+ep.name)
	start := time.Now()
	for range n {
		do(client, http.MethodPut, pr, data)
	}
	return float64(n*len(data)) / 1e6 / time.Since(start).Seconds()
}

// sdkPuts PUTs 64 MiB n times through the SDK's PutObject; MB/s.
func sdkPuts(ep *endpoint, data []byte, n int) float64 {
	start := time.Now()
	for range n {
		_, err := ep.s3.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(ep.bucket),
			Key: aws.String("big/sdk-" + ep.name), Body: bytes.NewReader(data)})
		if err != nil {
			fail("%s: PutObject: %v", ep.name, err)
		}
	}
	return float64(n*len(data)) / 1e6 / time.Since(start).Seconds()
}
