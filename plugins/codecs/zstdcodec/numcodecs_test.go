package zstdcodec

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/core/codec/codectest"
	"github.com/zarrgw/zarrgw/tests/support/pyenv"
)

// Frames this build writes, at fast, default and strong levels, with and
// without a checksum, small and large, decode with numcodecs (libzstd, the
// zstd of zarr-python 2 and 3) to the values the test wrote; a frame whose
// checksum is off by one bit is refused by numcodecs, so the checksum is
// libzstd's own. One Python process for every frame.
func TestNumcodecsDecodesFrames(t *testing.T) {
	py := pyenv.Python(t, "numcodecs")
	dir := t.TempDir()
	want := map[string]string{}
	write := func(name string, frame, raw []byte) {
		for ext, b := range map[string][]byte{".zst": frame, ".raw": raw} {
			if err := os.WriteFile(filepath.Join(dir, name+ext), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, n := range []int{1, 300, 200000} {
		raw := make([]byte, 0, 2*n)
		for i := range n { // uint16 values of a quadratic, as the benchmark's arrays
			raw = binary.LittleEndian.AppendUint16(raw, uint16(3*i+i*i/7))
		}
		for _, level := range []int{-5, 0, 1, 19} {
			for _, checksum := range []bool{false, true} {
				c := newCodec(t, fmt.Sprintf(`{"level":%d,"checksum":%t}`, level, checksum))
				frame, err := c.EncodeBytes(t.Context(), codectest.BytesSpec(int64(len(raw)), int64(len(raw))), raw)
				if err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("n%d_level%d_checksum%t", n, level, checksum)
				write(name, frame, raw)
				want[name] = "equal"
				if checksum {
					bad := append([]byte(nil), frame...)
					bad[len(bad)-1] ^= 1
					write(name+"_bad", bad, raw)
					want[name+"_bad"] = "an error"
				}
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, "testdata/numcodecs_decode.py", dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("numcodecs_decode.py: %v", err)
	}
	var got map[string]string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("numcodecs_decode.py: output is not JSON: %v\n%.2000s", err, out)
	}
	if len(got) != len(want) {
		t.Errorf("numcodecs reported %d frames, want %d", len(got), len(want))
	}
	for name, w := range want {
		g, ok := got[name]
		switch {
		case !ok:
			t.Errorf("%s: no result", name)
		case w == "an error" && (g == "equal" || g == "differs"):
			t.Errorf("%s: numcodecs decoded a frame with a wrong checksum (%s)", name, g)
		case w == "equal" && g != "equal":
			t.Errorf("%s: numcodecs: %s", name, g)
		case w == "an error" && !strings.Contains(strings.ToLower(g), "checksum"):
			t.Logf("%s: refused: %s", name, g)
		}
	}
}
