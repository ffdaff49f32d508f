// Command cachebench is the client side of bench/cache/run.sh: a TCP
// proxy that adds latency to every answer (a bucket in another region),
// a timed read of every chunk of an array through the key API with a
// fixed number of client threads, and a Zipf-skewed read mix that
// reports how many store requests the gateway's cache saved.
//
//	cachebench proxy -listen 127.0.0.1:9001 -upstream 127.0.0.1:9000 -latency 50ms
//	cachebench read -base http://127.0.0.1:8080/d/s3cache -prefix a/c -grid 16,16 -threads 4
//	cachebench zipf -base http://127.0.0.1:8080/d/zipf -prefix z/c -n 2000 -s 1.1 -threads 16 -duration 15s \
//	    -metrics http://127.0.0.1:8080/metrics -store store.s3.slow
//
// read and zipf check every answer's status and length (-size) and print
// one line of figures; proxy runs until interrupted.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net/http"
	"os"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/rs/zerolog"
)

func main() {
	if len(os.Args) < 2 {
		log.Fatal("usage: cachebench proxy|read|zipf [flags]")
	}
	switch os.Args[1] {
	case "proxy":
		proxy(os.Args[2:])
	case "read":
		read(os.Args[2:])
	case "zipf":
		zipf(os.Args[2:])
	default:
		log.Fatalf("cachebench: unknown command %q", os.Args[1])
	}
}

// proxy is toxiproxy's proxy with its latency toxic on answers: every
// answer of the upstream reaches the client latency later.
func proxy(args []string) {
	fs := flag.NewFlagSet("proxy", flag.ExitOnError)
	listen := fs.String("listen", "127.0.0.1:0", "address to listen on")
	upstream := fs.String("upstream", "", "host:port to forward to")
	latency := fs.Duration("latency", 50*time.Millisecond, "latency added to every answer")
	fs.Parse(args)
	api := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop())
	p := toxiproxy.NewProxy(api, "store", *listen, *upstream)
	if err := p.Start(); err != nil {
		log.Fatalf("proxy: %v", err)
	}
	spec := fmt.Sprintf(`{"name":"latency","type":"latency","stream":"downstream","attributes":{"latency":%d}}`, latency.Milliseconds())
	if _, err := p.Toxics.AddToxicJson(strings.NewReader(spec)); err != nil {
		log.Fatalf("proxy: %v", err)
	}
	fmt.Printf("proxy %s -> %s, %v latency on answers\n", p.Listen, *upstream, *latency)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	<-sig
	p.Stop()
}

// client keeps enough idle connections for every thread.
var client = &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 256}}

// fetch GETs url and checks the status and, if size > 0, the length.
func fetch(url string, size int) (int, error) {
	resp, err := client.Get(url)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	if size > 0 && int(n) != size {
		return 0, fmt.Errorf("GET %s: %d bytes, want %d", url, n, size)
	}
	return int(n), nil
}

// read GETs every chunk key of a grid once, threads at a time, and prints
// the time it took.
func read(args []string) {
	fs := flag.NewFlagSet("read", flag.ExitOnError)
	base := fs.String("base", "", "the dataset's URL, http://HOST/d/NAME")
	prefix := fs.String("prefix", "a/c", "the chunk keys' prefix")
	gridFlag := fs.String("grid", "16,16", "the chunk grid")
	threads := fs.Int("threads", 4, "clients reading at once")
	size := fs.Int("size", 0, "each value's length, checked (0: not checked)")
	fs.Parse(args)
	var keys []string
	var g []int
	for _, s := range strings.Split(*gridFlag, ",") {
		n, err := strconv.Atoi(s)
		if err != nil {
			log.Fatalf("read: -grid %q", *gridFlag)
		}
		g = append(g, n)
	}
	var walk func(key string, d int)
	walk = func(key string, d int) {
		if d == len(g) {
			keys = append(keys, key)
			return
		}
		for i := range g[d] {
			walk(key+"/"+strconv.Itoa(i), d+1)
		}
	}
	walk(*base+"/"+*prefix, 0)
	var next atomic.Int64
	var total atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Pointer[error]
	start := time.Now()
	for range *threads {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(keys) || failed.Load() != nil {
					return
				}
				n, err := fetch(keys[i], *size)
				if err != nil {
					failed.Store(&err)
					return
				}
				total.Add(int64(n))
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	if err := failed.Load(); err != nil {
		log.Fatalf("read: %v", *err)
	}
	fmt.Printf("%.4f s, %d keys, %d bytes, %d threads\n", took.Seconds(), len(keys), total.Load(), *threads)
}

// zipf GETs chunk keys prefix/0 .. prefix/n-1 drawn from a Zipf
// distribution (rank r with weight 1/(1+r)^s, ranks shuffled over the
// keys) for a while, threads at a time, and prints the requests made, the
// store GETs the gateway's metrics counted over the same time, and the
// difference per second.
func zipf(args []string) {
	fs := flag.NewFlagSet("zipf", flag.ExitOnError)
	base := fs.String("base", "", "the dataset's URL, http://HOST/d/NAME")
	prefix := fs.String("prefix", "z/c", "the chunk keys' prefix (a 1-D array)")
	n := fs.Int("n", 2000, "number of keys")
	s := fs.Float64("s", 1.1, "Zipf exponent (> 1)")
	threads := fs.Int("threads", 16, "clients reading at once")
	duration := fs.Duration("duration", 15*time.Second, "how long to read")
	warmup := fs.Duration("warmup", 5*time.Second, "how long to read before measuring")
	size := fs.Int("size", 0, "each value's length, checked (0: not checked)")
	metrics := fs.String("metrics", "", "the gateway's /metrics URL")
	storeName := fs.String("store", "store.s3.slow", "the store whose GETs are counted")
	seed := fs.Uint64("seed", 1, "random seed")
	fs.Parse(args)
	perm := rand.New(rand.NewPCG(*seed, 0)).Perm(*n)
	run := func(d time.Duration) (int64, error) {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		var reqs atomic.Int64
		var wg sync.WaitGroup
		var failed atomic.Pointer[error]
		for t := range *threads {
			wg.Go(func() {
				z := rand.NewZipf(rand.New(rand.NewPCG(*seed, uint64(t)+1)), *s, 1, uint64(*n-1))
				for ctx.Err() == nil && failed.Load() == nil {
					k := perm[z.Uint64()]
					if _, err := fetch(fmt.Sprintf("%s/%s/%d", *base, *prefix, k), *size); err != nil {
						failed.Store(&err)
						return
					}
					reqs.Add(1)
				}
			})
		}
		wg.Wait()
		if err := failed.Load(); err != nil {
			return 0, *err
		}
		return reqs.Load(), nil
	}
	if *warmup > 0 {
		if _, err := run(*warmup); err != nil {
			log.Fatalf("zipf: %v", err)
		}
	}
	before := storeGets(*metrics, *storeName)
	start := time.Now()
	reqs, err := run(*duration)
	took := time.Since(start).Seconds()
	if err != nil {
		log.Fatalf("zipf: %v", err)
	}
	gets := storeGets(*metrics, *storeName) - before
	fmt.Printf("%d requests in %.1f s (%.1f/s), %d store GETs (%.1f/s), hit ratio %.3f, store requests saved %.1f/s\n",
		reqs, took, float64(reqs)/took, gets, float64(gets)/took, 1-float64(gets)/float64(reqs), float64(reqs-gets)/took)
}

var countLine = regexp.MustCompile(`^zarrgw_store_call_duration_seconds_count\{(.*)\} (\S+)$`)

// storeGets is the count of Get and GetInto calls of the store named in
// the gateway's metrics (0 without a URL).
func storeGets(url, storeName string) int64 {
	if url == "" {
		return 0
	}
	resp, err := client.Get(url)
	if err != nil {
		log.Fatalf("metrics: %v", err)
	}
	defer resp.Body.Close()
	var total int64
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		m := countLine.FindStringSubmatch(sc.Text())
		if m == nil || !strings.Contains(m[1], `store="`+storeName+`"`) ||
			!strings.Contains(m[1], `op="get"`) && !strings.Contains(m[1], `op="get_into"`) {
			continue
		}
		v, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			log.Fatalf("metrics: %q", sc.Text())
		}
		total += int64(v)
	}
	return total
}
