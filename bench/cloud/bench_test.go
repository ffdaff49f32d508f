package cloud

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/launcher"
	"github.com/zarrgw/zarrgw/plugins/stores/s3store"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

const (
	parallel = 256
	size     = 1 << 20
)

// fixture is one versitygw with a bucket of 256 objects of 1 MiB, shared
// by the benchmarks of a run.
type fixture struct {
	srv    *servers.S3
	cfg    s3store.Config
	keys   []string
	values [][]byte
}

var (
	once   sync.Once
	shared *fixture
)

// setup starts the server once per run. It stays up until the process
// ends (the benchmarks' cleanups would stop it after the first one).
func setup(b *testing.B) *fixture {
	once.Do(func() {
		srv := servers.StartS3(keepAlive{b})
		f := &fixture{srv: srv}
		f.cfg = s3store.Config{Bucket: srv.NewBucket(b), Endpoint: srv.Endpoint, Region: srv.Region,
			AccessKeyID: srv.AccessKey, SecretAccessKey: srv.SecretKey}
		st, err := s3store.New(context.Background(), f.cfg)
		if err != nil {
			b.Fatal(err)
		}
		for i := range parallel {
			key := fmt.Sprintf("c/%d", i)
			value := bytes.Repeat([]byte{byte(i)}, size)
			if _, err := st.Set(context.Background(), key, value, store.Condition{}); err != nil {
				b.Fatal(err)
			}
			f.keys, f.values = append(f.keys, key), append(f.values, value)
		}
		shared = f
	})
	if shared == nil {
		b.Fatal("setup failed")
	}
	return shared
}

// keepAlive is a testing.TB whose cleanups and temporary directories
// last until TestMain ends, so the server outlives the benchmark that
// started it and is still stopped.
type keepAlive struct{ *testing.B }

func (keepAlive) Cleanup(f func()) { atEnd = append(atEnd, f) }

func (k keepAlive) TempDir() string {
	dir, err := os.MkdirTemp("", "zarrgw-bench-cloud-")
	if err != nil {
		k.Fatal(err)
	}
	k.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// round runs one Get of every object at once and checks the bytes.
func round(b *testing.B, f *fixture, get func(ctx context.Context, i int) ([]byte, error)) {
	var wg sync.WaitGroup
	errs := make([]error, parallel)
	for i := range parallel {
		wg.Go(func() {
			data, err := get(context.Background(), i)
			if err == nil && !bytes.Equal(data, f.values[i]) {
				err = fmt.Errorf("object %d came back different", i)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
}

func run(b *testing.B, get func(ctx context.Context, i int) ([]byte, error)) {
	f := setup(b)
	round(b, f, get) // warm the connection pool
	b.SetBytes(parallel * size)
	b.ResetTimer()
	for range b.N {
		round(b, f, get)
	}
}

// sdkClient is the bare SDK client: its defaults, or with the transport
// and checksum settings the store uses.
func sdkClient(b *testing.B, tuned bool) *awss3.Client {
	f := setup(b)
	opts := []func(*config.LoadOptions) error{
		config.WithRegion(f.srv.Region),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(f.srv.AccessKey, f.srv.SecretKey, "")),
	}
	if tuned {
		opts = append(opts,
			config.WithResponseChecksumValidation(aws.ResponseChecksumValidationWhenRequired),
			config.WithHTTPClient(awshttp.NewBuildableClient().WithTransportOptions(func(tr *http.Transport) {
				tr.MaxIdleConns, tr.MaxIdleConnsPerHost = 0, 256
			})))
	}
	cfg, err := config.LoadDefaultConfig(context.Background(), opts...)
	if err != nil {
		b.Fatal(err)
	}
	return awss3.NewFromConfig(cfg, func(o *awss3.Options) {
		o.BaseEndpoint, o.UsePathStyle = aws.String(f.srv.Endpoint), true
	})
}

// sdkGet reads object i with the bare client into a buffer of its size.
func sdkGet(c *awss3.Client, f *fixture) func(ctx context.Context, i int) ([]byte, error) {
	return func(ctx context.Context, i int) ([]byte, error) {
		out, err := c.GetObject(ctx, &awss3.GetObjectInput{Bucket: &f.cfg.Bucket, Key: &f.keys[i]})
		if err != nil {
			return nil, err
		}
		defer out.Body.Close()
		data := make([]byte, aws.ToInt64(out.ContentLength))
		_, err = io.ReadFull(out.Body, data)
		return data, err
	}
}

// storeGet reads object i through a store.
func storeGet(s store.Store, f *fixture) func(ctx context.Context, i int) ([]byte, error) {
	return func(ctx context.Context, i int) ([]byte, error) {
		v, err := s.Get(ctx, f.keys[i], store.ByteRange{})
		return v.Data, err
	}
}

func benchSDK(b *testing.B, tuned bool) {
	c := sdkClient(b, tuned)
	f := setup(b)
	run(b, sdkGet(c, f))
}

// BenchmarkSDKDefault is the bare SDK client as LoadDefaultConfig makes it
// (10 idle connections per host, response checksums when offered).
func BenchmarkSDKDefault(b *testing.B) { benchSDK(b, false) }

// BenchmarkSDKTuned is the bare SDK client with the store's connection
// pool and checksum settings: the like-for-like baseline.
func BenchmarkSDKTuned(b *testing.B) { benchSDK(b, true) }

// BenchmarkStore is the zarrgw s3 store in process.
func BenchmarkStore(b *testing.B) {
	f := setup(b)
	s, err := s3store.New(context.Background(), f.cfg)
	if err != nil {
		b.Fatal(err)
	}
	run(b, storeGet(s, f))
}

// BenchmarkStoreOutOfProcess is the zarrgw s3 store served by a plugin;
// the host reads through Get (which the plugin serves with one GET, into
// shared memory when a slot is free).
func BenchmarkStoreOutOfProcess(b *testing.B) {
	f := setup(b)
	s := pluginStore(b, f, s3store.Name)
	run(b, storeGet(s, f))
}

// BenchmarkStoreOutOfProcessInto reads into the caller's buffers.
func BenchmarkStoreOutOfProcessInto(b *testing.B) {
	f := setup(b)
	s := pluginStore(b, f, s3store.Name)
	bufs := make([][]byte, parallel)
	for i := range bufs {
		bufs[i] = make([]byte, size)
	}
	run(b, func(ctx context.Context, i int) ([]byte, error) {
		ok, err := store.GetInto(ctx, s, f.keys[i], bufs[i])
		if err == nil && !ok {
			err = fmt.Errorf("object %d: size differs", i)
		}
		return bufs[i], err
	})
}

func pluginStore(b *testing.B, f *fixture, name string) store.Store {
	l := launcher.New(launcher.Options{Logger: slog.New(slog.DiscardHandler), StartTimeout: time.Minute})
	b.Cleanup(func() { l.Close() })
	sum, err := launcher.Checksum(pluginBin)
	if err != nil {
		b.Fatal(err)
	}
	p, err := l.Add(launcher.Spec{Name: "example.org/bench/cloud", Path: pluginBin, SHA256: sum})
	if err != nil {
		b.Fatal(err)
	}
	raw, _ := json.Marshal(f.cfg)
	s, err := p.Store(context.Background(), name, raw)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	return s
}

// BenchmarkInterleaved alternates rounds of the tuned bare SDK client, of
// the store in process and of the store out of process, so that all see
// the same machine load (the benchmark machine is shared), and reports
// each one's throughput and its ratio to the SDK's. Use a benchtime that
// is a multiple of 3.
func BenchmarkInterleaved(b *testing.B) {
	f := setup(b)
	c := sdkClient(b, true)
	s, err := s3store.New(context.Background(), f.cfg)
	if err != nil {
		b.Fatal(err)
	}
	remote := pluginStore(b, f, s3store.Name)
	contenders := []struct {
		name string
		get  func(ctx context.Context, i int) ([]byte, error)
	}{
		{"sdk", sdkGet(c, f)},
		{"store", storeGet(s, f)},
		{"plugin", storeGet(remote, f)},
	}
	took := make([]time.Duration, len(contenders))
	for _, c := range contenders {
		round(b, f, c.get)
	}
	b.ResetTimer()
	for n := range b.N {
		// Rotate the order, so that each contender follows each other
		// one equally often (a round leaves garbage and busy processes
		// behind for the next).
		for k := range contenders {
			i := (n + k) % len(contenders)
			start := time.Now()
			round(b, f, contenders[i].get)
			took[i] += time.Since(start)
		}
	}
	mb := float64(b.N) * parallel * size / 1e6
	for i, c := range contenders {
		b.ReportMetric(mb/took[i].Seconds(), c.name+"-MB/s")
		if i > 0 {
			b.ReportMetric(took[0].Seconds()/took[i].Seconds(), c.name+"/sdk")
		}
	}
}
