package plugins

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/launcher"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/pluginapi"
	"github.com/zarrgw/zarrgw/tests/support/process"
)

// gatedArray creates a uint8 array of one chunk whose chain ends in the
// test.gate codec of a plugin, filled with 1s.
func gatedArray(t *testing.T, l *launcher.Launcher, s store.Store) (*array.Array, array.Options) {
	t.Helper()
	opts := registry.Bundled().InProcess().WithPlugins(l).ArrayOptions()
	m := &meta.ArrayMeta{
		Format: meta.V3, Shape: []int{8}, ChunkShape: []int{8}, DataType: dtype.Named("uint8"),
		FillValue: []byte{0}, ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"},
		Attributes: json.RawMessage(`{}`),
		Codecs:     []meta.Extension{{Name: "bytes"}, {Name: "test.gate"}},
	}
	a, err := hierarchy.CreateArray(context.Background(), s, "gated", m, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.WriteAll(context.Background(), filled(8, 1)); err != nil {
		t.Fatal(err)
	}
	return a, opts
}

func filled(n int, v byte) *ndarray.Array {
	a := ndarray.New(dtype.Named("uint8"), []int{n})
	for i := range a.Data {
		a.Data[i] = v
	}
	return a
}

func snapshot(t *testing.T, s store.Store) map[string]string {
	t.Helper()
	keys, err := store.ListAll(context.Background(), s, "")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, k := range keys {
		v, err := s.Get(context.Background(), k, store.ByteRange{})
		if err != nil {
			t.Fatal(err)
		}
		out[k] = string(v.Data)
	}
	return out
}

// A plugin killed in the middle of a decode is restarted and the decode
// made once more; killed again there, the request in flight fails with an
// error naming it, and nothing of the half-done read-modify-write reaches
// the store; the next request works.
func TestPluginKilledMidDecode(t *testing.T) {
	dir := t.TempDir()
	l, _ := newLauncher(t)
	p := addPlugin(t, l, "example.org/test/gate", testPluginBin, map[string]string{"ZARRGW_TEST_DIR": dir}, "codec")
	s := store.NewMemory()
	a, _ := gatedArray(t, l, s)
	before := snapshot(t, s)

	gate, decoding := filepath.Join(dir, "gate"), filepath.Join(dir, "decoding")
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- a.Write(context.Background(), grid.Box([]int{2}, []int{3}), filled(3, 9)) }()
	var pids []int
	for range 2 { // the call, and its one retry in a new process
		pid, err := strconv.Atoi(waitFile(t, decoding))
		if err != nil {
			t.Fatal(err)
		}
		if len(pids) > 0 && pid == pids[0] {
			t.Fatalf("the retry ran in the killed process %d", pid)
		}
		pids = append(pids, pid)
		os.Remove(decoding)
		if len(pids) == 2 {
			os.Remove(gate)
		}
		killPID(t, pid)
	}
	err := <-done
	if err == nil || !errors.Is(err, pluginapi.ErrConnectionLost) || !strings.Contains(err.Error(), "example.org/test/gate") {
		t.Fatalf("write during the crashes: %v", err)
	}
	if after := snapshot(t, s); !sameMap(before, after) {
		t.Fatalf("the failed write changed the store: %v -> %v", before, after)
	}

	if err := a.Write(context.Background(), grid.Box([]int{2}, []int{3}), filled(3, 9)); err != nil {
		t.Fatalf("write after the restart: %v", err)
	}
	got, err := a.ReadAll(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := "\x01\x01\x09\x09\x09\x01\x01\x01"; string(got.Data) != want {
		t.Fatalf("read %q, want %q", got.Data, want)
	}
	if st := p.Status(); st.State != launcher.Running || st.Restarts != 2 || slices.Contains(pids, st.PID) {
		t.Fatalf("status after the restarts: %+v (killed pids %v)", st, pids)
	}
}

// A plugin that panics on its first decode only serves the read anyway:
// the launcher restarts it and the decode is made once more. The panic's
// stack trace is one log record naming the plugin and the call, not a
// record per line, and the restart is one record too.
func TestCrashOnceRead(t *testing.T) {
	dir := t.TempDir()
	l, logs := newLauncher(t)
	p := addPlugin(t, l, "example.org/test/crashonce", testPluginBin, map[string]string{"ZARRGW_TEST_DIR": dir}, "codec")
	opts := registry.Bundled().InProcess().WithPlugins(l).ArrayOptions()
	s := store.NewMemory()
	m := &meta.ArrayMeta{
		Format: meta.V3, Shape: []int{8}, ChunkShape: []int{8}, DataType: dtype.Named("uint8"),
		FillValue: []byte{0}, ChunkKey: meta.ChunkKeyEncoding{Name: "default", Separator: "/"},
		Attributes: json.RawMessage(`{}`),
		Codecs:     []meta.Extension{{Name: "bytes"}, {Name: "test.crashonce"}},
	}
	ctx := context.Background()
	a, err := hierarchy.CreateArray(ctx, s, "a", m, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.WriteAll(ctx, filled(8, 7)); err != nil {
		t.Fatal(err)
	}
	got, err := a.ReadAll(ctx)
	if err != nil {
		t.Fatalf("read through a plugin that crashed once: %v", err)
	}
	if string(got.Data) != strings.Repeat("\x07", 8) {
		t.Fatalf("read %q", got.Data)
	}
	if _, err := os.Stat(filepath.Join(dir, "crashed")); err != nil {
		t.Fatalf("the plugin never crashed: %v", err)
	}
	if st := p.Status(); st.Restarts != 1 {
		t.Fatalf("status %+v, want one restart", st)
	}
	l.Close() // every log line is in once the processes are gone
	records := logRecords(t, logs.String())
	var panics, restarts []map[string]any
	for _, r := range records {
		msg, _ := r["msg"].(string)
		switch {
		case strings.HasPrefix(msg, "plugin panicked"):
			panics = append(panics, r)
		case strings.Contains(msg, "restarting"):
			restarts = append(restarts, r)
		case strings.HasPrefix(msg, "goroutine ") || strings.HasPrefix(msg, "\t") || strings.HasPrefix(msg, "panic:"):
			t.Errorf("a line of the panic logged on its own: %q", msg)
		}
	}
	if len(panics) != 1 || len(restarts) != 1 {
		t.Fatalf("%d panic records and %d restart records, want one of each:\n%s", len(panics), len(restarts), logs.String())
	}
	r := panics[0]
	stack, _ := r["stack"].(string)
	for k, want := range map[string]string{
		"plugin":   "example.org/test/crashonce",
		"call":     "Codec/Batch",
		"panic":    "crash-once: the first decode fails",
		"function": "main.crashOnce.DecodeBytes",
	} {
		if got, _ := r[k].(string); !strings.HasPrefix(got, want) {
			t.Errorf("panic record: %s = %q, want %q", k, got, want)
		}
	}
	if !strings.Contains(stack, "goroutine ") || strings.Count(stack, "\n") < 5 {
		t.Errorf("panic record's stack:\n%s", stack)
	}
}

// logRecords decodes a JSON log, one record per line.
func logRecords(t *testing.T, log string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(log), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, r)
	}
	return out
}

// A plugin that never answers fails the call at the caller's deadline,
// with the deadline error and the plugin's name, instead of hanging.
func TestHungPluginHonoursDeadline(t *testing.T) {
	l, _ := newLauncher(t)
	p := addPlugin(t, l, "example.org/test/hang", testPluginBin, nil, "codec")
	c, err := p.Codec(context.Background(), "test.hang", nil)
	if err != nil {
		t.Fatal(err)
	}
	spec := codec.Spec{DataType: dtype.Named("uint8"), Shape: []int{3}, DecodedSize: 3}
	for _, size := range []int{3, 8 << 20} { // a batched call and a streamed one
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		_, err = c.(codec.BytesBytes).DecodeBytes(ctx, spec, make([]byte, size))
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "example.org/test/hang") {
			t.Fatalf("%d bytes: %v", size, err)
		}
	}
}

func sameMap(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || v != w {
			return false
		}
	}
	return true
}

// A plugin process that stops answering altogether (here: stopped with
// SIGSTOP) is replaced: the call fails at its deadline, a liveness check
// finds the process silent, and the next call runs in a new process
// instead of waiting out its deadline as well.
func TestUnresponsivePluginIsReplaced(t *testing.T) {
	l, _ := newLauncher(t)
	p := addPlugin(t, l, "example.org/test/stopped", testPluginBin, nil, "codec")
	c, err := p.Codec(context.Background(), "test.gate", nil)
	if err != nil {
		t.Fatal(err)
	}
	spec := codec.Spec{DataType: dtype.Named("uint8"), Shape: []int{3}, DecodedSize: 3}
	decode := func(timeout time.Duration) error {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		_, err := c.(codec.BytesBytes).DecodeBytes(ctx, spec, []byte{1, 2, 3})
		return err
	}
	if err := decode(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	pid := p.Status().PID
	stopPlugin(t, pid)
	if err := decode(2 * time.Second); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("call to a stopped plugin: %v", err)
	}
	// The liveness check gives up on it within PingTimeout: wait until the
	// launcher sees that, not for a guess of how long it takes.
	waitState(t, p, launcher.Exited)
	start := time.Now()
	if err := decode(10 * time.Second); err != nil {
		t.Fatalf("call after the liveness check: %v", err)
	}
	if st := p.Status(); st.PID == pid || st.Restarts != 1 {
		t.Fatalf("status %+v: the stopped process %d was not replaced", st, pid)
	}
	t.Logf("next call answered by a new process in %v", time.Since(start).Round(time.Millisecond))
}

// Ending the launcher ends a plugin that no longer answers too: asked to
// shut down, it gets killGrace to exit, then SIGKILL; Close never hangs.
func TestCloseEndsStoppedPlugin(t *testing.T) {
	l, _ := newLauncher(t)
	p := addPlugin(t, l, "example.org/test/stopped", testPluginBin, nil, "codec")
	if err := p.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	pid := p.Status().PID
	stopPlugin(t, pid)
	closed := make(chan struct{})
	go func() {
		l.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("Close still waiting on a stopped plugin after 30s")
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Fatalf("process %d still exists after Close", pid)
	}
}

// stopPlugin stops the plugin process pid (SIGSTOP), to be killed when
// the test ends.
func stopPlugin(t *testing.T, pid int) {
	t.Helper()
	proc, err := os.FindProcess(pid)
	if err == nil {
		err = process.Stop(proc)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proc.Kill() })
}

// After a crash, every store call that is safe to make twice is made once
// more in the new process: a read, a conditional write (its condition
// refuses it should the first have landed), an unconditional write (of
// the same bytes to the same key), an erase and an erase of a prefix.
// None fails, and each crash costs one restart.
func TestStoreCallsAfterACrash(t *testing.T) {
	dir := t.TempDir()
	l, _ := newLauncher(t)
	p := addPlugin(t, l, "example.org/test/crashy", testPluginBin, map[string]string{"ZARRGW_TEST_DIR": dir}, "memory")
	ctx := context.Background()
	s, err := p.Store(ctx, "crashy", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// The read is made again: the new process finds no such key.
	if _, err := s.Get(ctx, "crash/read", store.ByteRange{}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("read across a crash: %v", err)
	}
	// Each crash empties the store (it is the memory of the process), so
	// each write is read back before the next crash.
	for _, w := range []struct {
		key, value string
		cond       store.Condition
	}{
		{"crash/blind", "x", store.Condition{}},
		{"crash/guarded", "y", store.Condition{IfNoneMatch: true}},
	} {
		if _, err := s.Set(ctx, w.key, []byte(w.value), w.cond); err != nil {
			t.Fatalf("write of %s across a crash: %v", w.key, err)
		}
		if v, err := s.Get(ctx, w.key, store.ByteRange{}); err != nil || string(v.Data) != w.value {
			t.Fatalf("after the write of %s: %q, %v", w.key, v.Data, err)
		}
	}
	if err := s.Erase(ctx, "crash/erased"); err != nil {
		t.Fatalf("erase across a crash: %v", err)
	}
	if err := s.ErasePrefix(ctx, "crash/"); err != nil {
		t.Fatalf("erase of a prefix across a crash: %v", err)
	}
	if st := p.Status(); st.Restarts != 5 {
		t.Fatalf("status %+v, want five restarts", st)
	}
}

// A conditional write whose process dies after the write landed, before
// it answered, is made again and refused by its own condition: the
// caller is told it succeeded (the key holds its bytes), with the value's
// version, not that it conflicted. A write whose condition failed before
// the crash, on a key holding other bytes, stays a conflict.
func TestConditionalWriteLandedBeforeACrash(t *testing.T) {
	dir := t.TempDir()
	l, _ := newLauncher(t)
	p := addPlugin(t, l, "example.org/test/crashafter", testPluginBin, map[string]string{"ZARRGW_TEST_DIR": dir}, "memory")
	ctx := context.Background()
	s, err := p.Store(ctx, "crashafter", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	version, err := s.Set(ctx, "crash/new", []byte("mine"), store.Condition{IfNoneMatch: true})
	if err != nil {
		t.Fatalf("a conditional write that landed before its process died: %v", err)
	}
	v, err := s.Get(ctx, "crash/new", store.ByteRange{})
	if err != nil || string(v.Data) != "mine" || v.Version != version {
		t.Fatalf("after it: %q version %q, %v; want \"mine\" version %q", v.Data, v.Version, err, version)
	}
	if _, err := s.Set(ctx, "crash/new", []byte("theirs"), store.Condition{IfNoneMatch: true}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a conditional write on a key holding other bytes: %v, want a conflict", err)
	}
	if st := p.Status(); st.Restarts != 1 {
		t.Fatalf("status %+v, want one restart", st)
	}
}
