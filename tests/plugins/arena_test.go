package plugins

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/launcher"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
)

// Payloads that fit travel through shared memory: after a decode and a
// store read, each plugin maps an arena whose file is already gone, so no
// other process can open it.
func TestSharedMemoryArena(t *testing.T) {
	l, _ := newLauncher(t)
	parts, err := registry.Bundled().OutOfProcess(l, zarrgwBin)
	if err != nil {
		t.Fatal(err)
	}
	codecs, openFS := parts.Codecs(), fsOpener(parts)
	ctx := context.Background()
	raw := bytes.Repeat([]byte("zarr"), 1<<18)
	spec := codec.Spec{DataType: dtype.Named("uint8"), Shape: []int{len(raw)}, DecodedSize: int64(len(raw))}
	local, _ := registry.Codecs().Codec(context.Background(), "zstd", json.RawMessage(`{"level":1}`))
	enc, err := local.(codec.BytesBytes).EncodeBytes(ctx, spec, raw)
	if err != nil {
		t.Fatal(err)
	}
	remote, err := codecs.Codec(context.Background(), "zstd", json.RawMessage(`{"level":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if dec, err := remote.(codec.BytesBytes).DecodeBytes(ctx, spec, enc); err != nil || !bytes.Equal(dec, raw) {
		t.Fatalf("decode: %v", err)
	}
	s, err := openFS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Set(ctx, "k", raw, store.Condition{}); err != nil {
		t.Fatal(err)
	}
	if v, err := s.Get(ctx, "k", store.ByteRange{}); err != nil || !bytes.Equal(v.Data, raw) {
		t.Fatalf("get: %v", err)
	}
	for _, name := range []string{"zarrgw/zstd", "zarrgw/fs"} {
		p, _ := l.Plugin(name)
		maps := mappings(t, p)
		if !strings.Contains(maps, "zarrgw-arena-") {
			t.Errorf("%s maps no arena:\n%s", name, maps)
		}
		for _, line := range strings.Split(maps, "\n") {
			if strings.Contains(line, "zarrgw-arena-") && !strings.HasSuffix(line, "(deleted)") {
				t.Errorf("%s: arena file still exists: %s", name, line)
			}
		}
	}
}

func mappings(t *testing.T, p *launcher.Plugin) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(p.Status().PID) + "/maps")
	if err != nil {
		t.Skip("no /proc:", err)
	}
	return string(b)
}
