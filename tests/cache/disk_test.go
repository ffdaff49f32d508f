package cache

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// diskConfig is a dataset whose cache has a memory tier too small for
// two values (so that reads go to the disk tier) and a disk tier in dir.
func diskConfig(b *backend, dir string) string {
	return b.stores() + fmt.Sprintf(`
dataset "d" {
  store = store.s3.slow
  transformer "cache" {
    memory = "64KiB"
    disk   = { path = %q, size = "64MiB" }
  }
  access {
    read = ["*"]
  }
}
dataset "w" {
  store = store.s3.direct
  access {
    read  = ["*"]
    write = ["*"]
  }
}
`, dir)
}

// entryFile finds the disk tier's file of key: every entry file under
// dir/zarrgw-cache-v1 starts with a header naming its key (see
// plugins/transformers/cache/disk/format.go: magic "zgwcache", the key's
// length at offset 12, the key at offset 36).
func entryFile(t *testing.T, dir, key string) string {
	t.Helper()
	var found []string
	root := filepath.Join(dir, "zarrgw-cache-v1")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".zce") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if len(b) < 36 || string(b[:8]) != "zgwcache" {
			return nil
		}
		k := int(binary.LittleEndian.Uint32(b[12:]))
		if 36+k <= len(b) && string(b[36:36+k]) == key {
			found = append(found, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 {
		t.Fatalf("entry files of %q under %s: %v, want one", key, root, found)
	}
	return found[0]
}

// entryFiles counts the disk tier's entry files.
func entryFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	filepath.WalkDir(filepath.Join(dir, "zarrgw-cache-v1"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".zce") {
			n++
		}
		return nil
	})
	return n
}

// garbage overwrites a file with random bytes of its length (header and
// all); dataOnly keeps the header and changes the data's last bytes.
func garbage(t *testing.T, path string, dataOnly bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if dataOnly {
		copy(b[len(b)-64:], bytes.Repeat([]byte("garbage!"), 8))
	} else {
		rand.Read(b)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// The disk tier over S3 behind the latency proxy. Values read through a
// gateway are on disk; a new gateway on the same directory (after the
// first stopped) serves them from disk: no store GET (a HEAD per key
// confirms each entry's version: GETs alone are counted). A cache file
// overwritten with garbage, whole or only in its data, while the gateway
// runs or while it is stopped, or cut short, is never served: the read
// returns the stored bytes, refetched with one GET each. A second gateway
// on the directory in use fails to start, naming the directory.
func TestDiskTier(t *testing.T) {
	b := newBackend(t)
	dir := filepath.Join(t.TempDir(), "cache")
	file := writeConfig(t, diskConfig(b, dir))
	g := startGateway(t, file, b.env())
	const n = 8
	want := map[string][]byte{}
	var keys []string
	for i := range n {
		key := fmt.Sprintf("disk/k%d", i)
		v := make([]byte, 48<<10) // more than half the memory tier
		rand.Read(v)
		put(t, g.URL+"/d/w/"+key, v)
		keys, want[key] = append(keys, key), v
	}
	// read reads keys through d, checking the bytes, and returns what
	// reached the store.
	read := func(g *gateway, keys ...string) (calls, snapshot) {
		t.Helper()
		m0, p0 := g.slowCalls(t), b.count.snapshot()
		readAll(t, g.URL+"/d/d", keys, want, 1)
		return g.slowCalls(t).since(m0), b.count.snapshot().since(p0)
	}
	m, p := read(g, keys...)
	if m.gets() != n || p.gets < n {
		t.Fatalf("first read of %d keys: store calls %v, at the proxy %s; want a GET each", n, m, p)
	}
	if got := entryFiles(t, dir); got != n {
		t.Fatalf("%d entry files on disk after reading %d keys", got, n)
	}

	// a restart: the reads come from disk
	g.Stop(t)
	g.Start(t)
	m, p = read(g, keys...)
	c := g.cacheReads(t, "d")
	t.Logf("after a restart, %d keys read: store calls %v; at the proxy: %s; the cache's reads: %v", n, m, p, c)
	if m.gets() != 0 || p.gets != 0 {
		t.Fatalf("after a restart: %d store GETs (metrics %v, proxy %s); want none, the values are on disk", m.gets(), m, p)
	}
	if c["disk_hit"] != n {
		t.Fatalf("after a restart: the cache's metrics count %v, want %d disk hits", c, n)
	}

	// garbage while the gateway runs: the memory tier holds the last key
	// read at most, so these come from disk
	for i, dataOnly := range []bool{false, true} {
		key := keys[2+i]
		garbage(t, entryFile(t, dir, key), dataOnly)
		c0 := g.cacheReads(t, "d")
		m, p = read(g, key)
		c := g.cacheReads(t, "d").since(c0)
		t.Logf("%s overwritten (data only: %v) while serving, read: store calls %v; at the proxy: %s; the cache's reads: %v",
			key, dataOnly, m, p, c)
		if c["corrupt"] != 1 {
			t.Errorf("the damaged entry of %s: the cache's metrics count %v, want one corrupt", key, c)
		}
		if m.gets() != 1 || p.gets != 1 {
			t.Fatalf("read of %s after its cache file was damaged: %d store GETs (metrics %v, proxy %s); want one: refetched",
				key, m.gets(), m, p)
		}
		read(g, keys[0]) // out of the memory tier again
		m, p = read(g, key)
		if m.gets() != 0 {
			t.Fatalf("read of %s again, refetched just before: store calls %v; want no GET (kept on disk again)", key, m)
		}
	}

	// garbage and a cut while the gateway is stopped
	g.Stop(t)
	garbage(t, entryFile(t, dir, keys[5]), false)
	garbage(t, entryFile(t, dir, keys[6]), true)
	cut := entryFile(t, dir, keys[7])
	if fi, err := os.Stat(cut); err != nil {
		t.Fatal(err)
	} else if err := os.Truncate(cut, fi.Size()/2); err != nil {
		t.Fatal(err)
	}
	g.Start(t)
	m, p = read(g, keys...)
	c = g.cacheReads(t, "d")
	t.Logf("after damaging 3 files while stopped, a restart and %d keys read: store calls %v; at the proxy: %s; the cache's reads: %v",
		n, m, p, c)
	if m.gets() != 3 || p.gets != 3 {
		t.Fatalf("after a restart with 3 damaged files: %d store GETs (metrics %v, proxy %s); want 3", m.gets(), m, p)
	}
	if c["corrupt"] != 3 || c["disk_hit"] != n-3 {
		t.Errorf("after a restart with 3 damaged files: the cache's metrics count %v, want 3 corrupt and %d disk hits", c, n-3)
	}

	// a value replaced in S3 while the gateway was stopped: its disk entry
	// is never served (the HEAD after the restart finds another version)
	g.Stop(t)
	replaced := keys[4]
	want[replaced] = bytes.Repeat([]byte("replaced while stopped "), 2000)
	direct := startGateway(t, file, b.env()) // on the same disk directory, stopped before g starts
	put(t, direct.URL+"/d/w/"+replaced, want[replaced])
	direct.Stop(t)
	g.Start(t)
	m, p = read(g, replaced)
	t.Logf("%s replaced in S3 while stopped, read after a restart: store calls %v; at the proxy: %s", replaced, m, p)
	if m.gets() != 1 {
		t.Fatalf("read of %s, replaced in S3 while the gateway was stopped: store calls %v; want one GET (the new value)", replaced, m)
	}

	// a second gateway on the same directory
	out, code := startFails(t, file, b.env())
	if code == 0 || !strings.Contains(out, dir) {
		t.Fatalf("a second gateway on the disk directory in use: exit %d, output:\n%s\nwant a failure naming %s", code, out, dir)
	}
	t.Logf("the second gateway on %s: exit %d: %s", dir, code, lastLine(out))
	// the first still serves from disk
	if m, _ := read(g, keys[1]); m.gets() != 0 {
		t.Fatalf("the first gateway, after the second was refused: store calls %v", m)
	}
}

// startFails runs `zarrgw serve` on file, expecting it to exit without
// serving: its output and exit code. A gateway that serves instead is
// stopped and fails the test.
func startFails(t *testing.T, file string, env []string) (string, int) {
	t.Helper()
	cmd := exec.Command(zarrgwBin, "serve", "-c", file, "--listen", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), env...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = nil
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	served := false
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			out.WriteString(sc.Text() + "\n")
			if strings.HasPrefix(sc.Text(), "zarrgw: serving ") {
				served = true
				cmd.Process.Kill()
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-done
		cmd.Wait()
		t.Fatalf("zarrgw serve neither served nor ended within 60s; output:\n%s", out.String())
	}
	err = cmd.Wait()
	if served {
		t.Fatalf("a second gateway on the same disk directory served; output:\n%s", out.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), code
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
