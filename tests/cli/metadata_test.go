package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// bombDoc is the zarr.json of an array of uint8 whose shape and chunk
// shape are given as JSON lists.
func bombDoc(shape, chunks string) string {
	return `{"zarr_format":3,"node_type":"array","shape":` + shape + `,"data_type":"uint8",
"chunk_grid":{"name":"regular","configuration":{"chunk_shape":` + chunks + `}},
"chunk_key_encoding":{"name":"default"},"fill_value":0,"codecs":[{"name":"bytes"}]}`
}

// bombs is a hierarchy of arrays whose metadata asks for sizes beyond 64
// bits: 2^124 elements in chunks of one (cat panicked with "slice bounds
// out of range" in a goroutine, killing the process), and 2^62 x 4
// bytes of float32 chunked by sharding (cat streamed terabytes).
func bombs(t *testing.T) string {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "zarr.json"), `{"zarr_format":3,"node_type":"group"}`)
	write(t, filepath.Join(dir, "square", "zarr.json"), bombDoc("[4611686018427387904,4611686018427387904]", "[1,1]"))
	write(t, filepath.Join(dir, "sharded", "zarr.json"), `{"zarr_format":3,"node_type":"array","shape":[1099511627776,1099511627776],"data_type":"float32",
"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[1073741824,1073741824]}},"chunk_key_encoding":{"name":"default"},"fill_value":0,
"codecs":[{"name":"sharding_indexed","configuration":{"chunk_shape":[1073741824,1073741824],"codecs":[{"name":"bytes","configuration":{"endian":"little"}}],
"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}]}}]}`)
	return dir
}

// cat refuses such arrays with one line naming the array and the field,
// before reading anything.
func TestCatRefusesMetadataBombs(t *testing.T) {
	dir := bombs(t)
	for _, name := range []string{"square", "sharded"} {
		stdout, stderr, code := runCapped(t, "cat", "--slice", "0:2", "--path", name, dir)
		want := "zarrgw: array /" + name + ": invalid array metadata: shape ["
		if code == 0 || stdout != "" || !strings.HasPrefix(stderr, want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("cat of %s: exit %d, %d bytes out, stderr:\n%.2000s\nwant a failure and one line starting %q", name, code, len(stdout), stderr, want)
		}
	}
}

// runCapped runs zarrgw and keeps at most 1 MiB of its standard output:
// beyond it, the pipe is closed and the command fails on its next write
// (a bomb that is obeyed streams terabytes).
func runCapped(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "ZARRGW_CLI_CONFIG_FILE=", "XDG_CONFIG_HOME="+t.TempDir())
	out := &capped{left: 1 << 20}
	var errOut strings.Builder
	cmd.Stdout, cmd.Stderr = out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil && !errors.Is(err, errCapped):
		t.Fatalf("zarrgw %s: %v", strings.Join(args, " "), err)
	}
	return out.b.String(), errOut.String(), code
}

var errCapped = errors.New("more than the output kept")

type capped struct {
	b    strings.Builder
	left int
}

func (c *capped) Write(p []byte) (int, error) {
	if len(p) > c.left {
		return 0, errCapped
	}
	c.left -= len(p)
	return c.b.Write(p)
}

// inspect still lists them, with what keeps them from opening in place of
// their shard layout.
func TestInspectNamesMetadataBombs(t *testing.T) {
	out := must(t, "", "inspect", bombs(t))
	if !strings.Contains(out, "cannot open: array /sharded: invalid array metadata") {
		t.Errorf("inspect does not say the sharded bomb cannot be opened:\n%s", out)
	}
	if !strings.Contains(out, "square (array, v3) shape=[4611686018427387904,4611686018427387904]") {
		t.Errorf("inspect no longer lists the square bomb:\n%s", out)
	}
}

// The server block's max_chunk_bytes bounds the CLI too: create refuses
// chunks beyond it before writing anything, and cat refuses an array
// written with them (here by another tool, with no such bound).
func TestConfiguredChunkLimit(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	config := filepath.Join(dir, "zarrgw.hcl")
	write(t, config, `store "fs" "local" {
  root        = "`+data+`"
  create_root = true
}
dataset "d" {
  store = store.fs.local
}
server {
  listen          = "127.0.0.1:0"
  max_chunk_bytes = "1MiB"
}
`)
	fails(t, "", []string{"create", "--config", config, "d", "--path", "big", "--shape", "4096,4096", "--chunks", "1024,1024", "--dtype", "float32"},
		"array /big", "chunk_grid.chunk_shape [1024 1024]: a chunk decoded whole would hold 4MiB, more than the limit of 1MiB (max_chunk_bytes)")
	if _, err := os.Stat(filepath.Join(data, "big", "zarr.json")); !os.IsNotExist(err) {
		t.Errorf("create wrote the refused array's metadata (%v)", err)
	}
	write(t, filepath.Join(data, "big", "zarr.json"), strings.Replace(bombDoc("[4096,4096]", "[2048,2048]"), "uint8", "float32", 1))
	fails(t, "", []string{"cat", "--config", config, "d", "--path", "big", "--slice", "0:1,0:1"},
		"array /big", "a chunk decoded whole would hold 16MiB, more than the limit of 1MiB (max_chunk_bytes)")
	must(t, "", "create", "--config", config, "d", "--path", "small", "--shape", "4096,4096", "--chunks", "512,512", "--dtype", "float32")
}
