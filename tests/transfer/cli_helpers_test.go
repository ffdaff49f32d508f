package transfer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	bin "github.com/zarrgw/zarrgw/tests/support/binary"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/plugins/stores/fsstore"
	"github.com/zarrgw/zarrgw/tests/support/process"
)

// tree maps every file below dir to the SHA-256 of its bytes and every
// directory to "dir": two equal trees are byte for byte the same. A dir
// that does not exist is an empty map.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return out
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out[rel] = "dir"
			return nil
		}
		b, err := os.ReadFile(p)
		sum := sha256.Sum256(b)
		out[rel] = hex.EncodeToString(sum[:])
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// writeV2Source writes a v2 hierarchy below dir: a root group with
// attributes, an int32 array g/a of 40x30 in 10x10 chunks written to row
// 20 only (its last two chunk rows are not stored: a rewrite in larger
// chunks or shards stores none below row 20), and b, 1-D, whole. Every
// element stored differs from the fill value, so a rewrite stores every
// chunk it writes values into.
func writeV2Source(t *testing.T, dir string) {
	t.Helper()
	ctx := context.Background()
	s, err := fsstore.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hierarchy.CreateGroup(ctx, s, "", meta.V2, json.RawMessage(`{"title":"ours"}`)); err != nil {
		t.Fatal(err)
	}
	for _, a := range []struct {
		path          string
		shape, chunks []int
		rows          int
	}{{"g/a", []int{40, 30}, []int{10, 10}, 20}, {"b", []int{100}, []int{25}, 100}} {
		m := &meta.ArrayMeta{Format: meta.V2, Shape: a.shape, ChunkShape: a.chunks, DataType: dtype.Named("int32"),
			FillValue: make([]byte, 4), ChunkKey: meta.ChunkKeyEncoding{Name: "v2", Separator: "."}, Attributes: json.RawMessage(`{}`),
			Codecs: []meta.Extension{{Name: "bytes", Configuration: json.RawMessage(`{"endian":"little"}`)},
				{Name: "numcodecs.zlib", Configuration: json.RawMessage(`{"level":1}`)}}}
		arr, err := hierarchy.CreateArray(ctx, s, a.path, m, array.Options{Codecs: registry.Codecs()})
		if err != nil {
			t.Fatal(err)
		}
		counts := append([]int{a.rows}, a.shape[1:]...)
		data := ndarray.New(m.DataType, counts)
		for i := 0; i < len(data.Data); i += 4 {
			data.Data[i] = byte(i/4%250) + 1
		}
		if err := arr.Write(ctx, grid.Box(make([]int, len(counts)), counts), data); err != nil {
			t.Fatal(err)
		}
	}
}

// zarrgwIn runs zarrgw with the journal of resumed copies under cache.
func zarrgwIn(t *testing.T, cache string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(zarrgw, args...)
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache)
	return bin.Run(t, cmd)
}

// signalAt sends sig to c's process once reached says so (asked with the
// process stopped, so that what it sees is still so when the signal
// lands) and waits for it to exit. ended reports that it exited first.
func signalAt(t *testing.T, c *exec.Cmd, sig syscall.Signal, reached func() bool) (ended bool) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	for {
		select {
		case <-done:
			return true
		case <-time.After(time.Millisecond):
		}
		if process.Stop(c.Process) != nil {
			continue // it ended; done says so next
		}
		if reached() {
			c.Process.Signal(sig) // pending until it runs again
			process.Continue(c.Process)
			select {
			case <-done:
			case <-time.After(time.Minute):
				c.Process.Kill()
				t.Fatalf("still running a minute after %v", sig)
			}
			return false
		}
		process.Continue(c.Process)
	}
}
