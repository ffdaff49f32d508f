package security

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The disk tier of the cache transformer against many tiny byte ranges,
// through `zarrgw serve` over an fs store: every range is a file of at
// least one block on disk and an inode, so a tier that counted only the
// bytes it kept went many times over its size (20 000 one-byte ranges of
// a 1 MiB value: 80 MB on disk in 20 001 files for a metric of 1.8 MB).
// What /usr/bin/du counts of the tier's directory must stay within its
// size, its files within its entries, and its metric must say what du
// says.

const (
	// cacheDiskSize is each disk tier's size: the base code exceeded it
	// twenty times over.
	cacheDiskSize = 4 << 20
	// cacheRanges is how many one-byte ranges each test reads.
	cacheRanges = 20000
	// cacheSlack is what du may count beyond the tier's size.
	cacheSlack = 1.25
)

// cacheDataset is one dataset of the test: the value it reads, whether
// it reads it whole first, and the most entry files its tier may keep.
type cacheDataset struct {
	name       string
	key        string
	whole      bool   // read whole before the ranges
	maxEntries string // the disk block's max_entries, "" for the default
	wantFiles  int    // the most entry files allowed afterwards
}

var cacheDatasets = []cacheDataset{
	// The case: a 1 MiB value read whole, then its ranges, which
	// the whole value on disk answers.
	{name: "whole", key: "small", whole: true, wantFiles: 2},
	// Ranges of a value the cache knows to be small: read and kept whole.
	{name: "ranges", key: "small", wantFiles: 2},
	// Ranges of a value too large to read whole: one entry each, bounded
	// by blocks (entries allowed far beyond what the size holds) ...
	{name: "blocks", key: "large", maxEntries: "1000000", wantFiles: cacheDiskSize / 4096},
	// ... and by the default entry count (size / 16 KiB).
	{name: "entries", key: "large", wantFiles: cacheDiskSize / (16 << 10)},
}

func TestDiskCacheTinyRanges(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "data")
	values := map[string][]byte{"small": make([]byte, 1<<20), "large": make([]byte, 8<<20)}
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	for k, v := range values {
		rand.Read(v)
		if err := os.WriteFile(filepath.Join(root, k), v, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	config := filepath.Join(dir, "zarrgw.hcl")
	if err := os.WriteFile(config, []byte(cacheConfig(root, dir)), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, config)
	for _, ds := range cacheDatasets {
		t.Run(ds.name, func(t *testing.T) {
			url := s.url + "/d/" + ds.name + "/" + ds.key
			want := values[ds.key]
			if ds.whole {
				if got := getWhole(t, url); !bytes.Equal(got, want) {
					t.Fatalf("GET %s: %d bytes, not the value's %d", url, len(got), len(want))
				}
			}
			readRanges(t, url, want, cacheRanges)
			tier := filepath.Join(dir, "cache-"+ds.name)
			used, files := duBytes(t, tier), entryFiles(t, tier)
			metric := diskMetric(t, s.url, "zarrgw_store_cache_bytes", ds.name)
			t.Logf("%d one-byte ranges of %s (%d bytes): du %d bytes (size %d), %d entry files (at most %d), metric %d bytes",
				cacheRanges, ds.key, len(want), used, cacheDiskSize, files, ds.wantFiles, metric)
			if float64(used) > cacheSlack*cacheDiskSize {
				t.Errorf("du counts %d bytes in the disk tier, over %.2f x its size %d", used, cacheSlack, cacheDiskSize)
			}
			if files > ds.wantFiles {
				t.Errorf("%d entry files in the disk tier, want at most %d", files, ds.wantFiles)
			}
			// the metric counts the tier's own directory; du the one
			// configured too (one block)
			if metric > used || used-metric > 64<<10 {
				t.Errorf("the disk tier's metric says %d bytes, du %d", metric, used)
			}
			bound := int64(cacheDiskSize / (16 << 10)) // the default: one per 16 KiB
			if ds.maxEntries != "" {
				bound, _ = strconv.ParseInt(ds.maxEntries, 10, 64)
			}
			if n := diskMetric(t, s.url, "zarrgw_store_cache_max_entries", ds.name); n != bound {
				t.Errorf("the disk tier's max_entries metric says %d, want %d", n, bound)
			}
		})
	}
}

// cacheConfig serves root through one dataset per cacheDatasets, each
// with a memory tier too small for the values (so that reads reach the
// disk tier) and a disk tier of its own under dir.
func cacheConfig(root, dir string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "store \"fs\" \"local\" {\n  root = %q\n}\n", root)
	for _, ds := range cacheDatasets {
		entries := ""
		if ds.maxEntries != "" {
			entries = ", max_entries = " + ds.maxEntries
		}
		fmt.Fprintf(&b, `dataset %q {
  store = store.fs.local
  transformer "cache" {
    memory = "64KiB"
    disk   = { path = %q, size = %d%s }
  }
}
`, ds.name, filepath.Join(dir, "cache-"+ds.name), cacheDiskSize, entries)
	}
	fmt.Fprintf(&b, "server {\n  listen = \"127.0.0.1:0\"\n  %s\n}\n", budgetLines)
	return b.String()
}

func getWhole(t *testing.T, url string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d, %v", url, resp.StatusCode, err)
	}
	return b
}

// readRanges reads n one-byte ranges of url (bytes=i-i, spread over the
// value), with a few clients at once, and checks every byte.
func readRanges(t *testing.T, url string, want []byte, n int) {
	t.Helper()
	const clients = 8
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var problems []string
	for c := range clients {
		wg.Go(func() {
			for i := c; i < n; i += clients {
				off := int64(i) * 7919 % int64(len(want)) // distinct for n below the value's length
				if err := getByte(client, url, off, want[off]); err != nil {
					mu.Lock()
					problems = append(problems, err.Error())
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	for _, p := range problems {
		t.Error(p)
	}
	if len(problems) > 0 {
		t.FailNow()
	}
}

func getByte(client *http.Client, url string, off int64, want byte) error {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", off, off))
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	switch {
	case err != nil:
		return fmt.Errorf("range %d: %w", off, err)
	case resp.StatusCode != http.StatusPartialContent || len(b) != 1:
		return fmt.Errorf("range %d: %d, %q", off, resp.StatusCode, b)
	case b[0] != want:
		return fmt.Errorf("range %d: byte %#x, want %#x", off, b[0], want)
	}
	return nil
}

// duBytes is what /usr/bin/du counts under dir: the blocks of every file
// and directory, in bytes.
func duBytes(t *testing.T, dir string) int64 {
	t.Helper()
	out, err := exec.Command("/usr/bin/du", "-s", "-B1", dir).Output()
	if err != nil {
		t.Fatalf("du -s -B1 %s: %v", dir, err)
	}
	n, err := strconv.ParseInt(strings.Fields(string(out))[0], 10, 64)
	if err != nil {
		t.Fatalf("du: %q: %v", out, err)
	}
	return n
}

// entryFiles counts the regular files under dir but the lock file:
// the tier's entries, each one inode.
func entryFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && d.Name() != "lock" {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// diskMetric is the value of a metric of the dataset's disk tier.
func diskMetric(t *testing.T, base, name, dataset string) int64 {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /metrics: %d, %v", resp.StatusCode, err)
	}
	series := fmt.Sprintf(`%s{dataset=%q,tier="disk"} `, name, dataset)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, series); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			return int64(f)
		}
	}
	t.Fatalf("no %s in /metrics", series)
	return 0
}
