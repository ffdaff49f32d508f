package gateway_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// The same 4 KiB GET over loopback HTTP, through net/http's server and
// client as `zarrgw serve` runs it: what the handler benchmark leaves out
// (the response writer, header formatting, the connection's buffers).
// Profile it with -cpuprofile; bench/gateway/run.sh measures the whole
// server with wrk against nginx and Go's FileServer.
//
//	go test -run '^$' -bench SmallGetHTTP -benchmem ./host/serve/gateway
func BenchmarkSmallGetHTTP(b *testing.B) {
	srv := httptest.NewServer(smallGateway(b, ""))
	b.Cleanup(srv.Close)
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	b.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr}
	urls := make([]string, 100)
	for i := range urls {
		urls[i] = fmt.Sprintf("%s/d/small/k%d", srv.URL, i)
	}
	b.ReportAllocs()
	b.SetParallelism(8)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		buf := make([]byte, 8192)
		i := 0
		for pb.Next() {
			resp, err := client.Get(urls[i%len(urls)])
			if err != nil {
				b.Fatal(err)
			}
			n, _ := io.ReadFull(resp.Body, buf)
			resp.Body.Close()
			if resp.StatusCode != 200 || n != 4096 {
				b.Fatalf("status %d, %d bytes", resp.StatusCode, n)
			}
			i++
		}
	})
}
