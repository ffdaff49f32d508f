package plugins

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/host/runtime/launcher"
)

// A codec plugin whose process dies with a crowd of decodes in flight (8,
// then 16; test.crowd exits the process when the last of them arrives)
// costs "zarrgw cat" nothing: every decode that died with it is made
// again in the one process that replaces it, and the command prints the
// exact values. Twenty runs in a row each way, on a quiet machine and
// with two processes spinning on the CPUs, reading in turn an array of
// small chunks (decodes that travel in batches) and one of chunks too
// large for a batch (each decode on a stream of its own). It fails if a
// decode of the crowd is not made again, or is made again on the dying
// connection, or if the plugin is restarted more than once.
func TestCrowdDiesInFlight(t *testing.T) {
	const runs = 20
	for _, n := range []int{8, 16} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			dir := t.TempDir()
			cfg := writeCrowdConfig(t, dir, n)
			arrays := []crowdArray{
				{path: "batched", rows: 64, cols: 64, chunkRows: 8, chunkCols: 8},
				// as many chunks as decodes to crowd, each above batchItemMax
				{path: "streamed", rows: n, cols: 1<<20 + 64, chunkRows: 1, chunkCols: 1<<20 + 64},
			}
			for i := range arrays {
				arrays[i].create(t, dir, cfg)
			}
			for _, load := range []struct {
				name  string
				loops int
			}{{"quiet", 0}, {"busy", 2}} {
				stop := busyLoops(t, load.loops)
				for run := range runs {
					a := arrays[run%len(arrays)]
					what := fmt.Sprintf("%s run %d of %d (%s)", load.name, run+1, runs, a.path)
					if err := crowdRead(dir, cfg, a, n); err != nil {
						stop()
						t.Fatalf("%s: %v", what, err)
					}
				}
				stop()
			}
		})
	}
}

// crowdArray is an array of uint8 of the crowd test.
type crowdArray struct {
	path                             string
	rows, cols, chunkRows, chunkCols int
	data                             []byte
}

// create makes the array and writes a pattern no fill value or shifted
// copy matches into it.
func (a *crowdArray) create(t *testing.T, dir, cfg string) {
	t.Helper()
	a.data = make([]byte, a.rows*a.cols)
	for i := range a.data {
		a.data[i] = byte(i*7%251 + 1)
	}
	// With the marker in place test.crowd is a plain identity: create's
	// probe of the chain and write's decodes do not wait for a crowd.
	// crowdRead removes it.
	if err := os.WriteFile(filepath.Join(dir, "crowded"), []byte("0 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	crowdRun(t, dir, nil, "create", "-c", cfg, "lab", "--path", a.path, "--dtype", "uint8",
		"--shape", fmt.Sprintf("%d,%d", a.rows, a.cols), "--chunks", fmt.Sprintf("%d,%d", a.chunkRows, a.chunkCols))
	crowdRun(t, dir, a.data, "write", "-c", cfg, "lab", "--path", a.path, "--format", "raw")
}

// crowdRead reads a whole with "zarrgw cat", its plugin set to die with n
// decodes in flight, and checks what it printed, that the plugin died so
// and that it was restarted once.
func crowdRead(dir, cfg string, a crowdArray, n int) error {
	os.Remove(filepath.Join(dir, "crowded"))
	// GOMAXPROCS n: the read keeps 2n chunks in flight, the host batches
	// on n slots and the plugin (which inherits GOMAXPROCS) runs n items
	// of a batch at once.
	cmd := exec.Command(zarrgwBin, "cat", "-c", cfg, "lab", "--path", a.path, "--format", "raw")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(n))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("zarrgw cat failed: %v\n%s", err, errOut.String())
	}
	if !bytes.Equal(out.Bytes(), a.data) {
		return fmt.Errorf("cat printed %d bytes that differ from the %d written", out.Len(), len(a.data))
	}
	if died, err := crowdDeath(dir); err != nil || died != n {
		return fmt.Errorf("the plugin died with %d decodes in flight, want %d (%v)", died, n, err)
	}
	// One death, one restart, whatever the number of calls that died.
	if restarts := strings.Count(errOut.String(), "restarting"); restarts != 1 {
		return fmt.Errorf("%d restarts, want 1:\n%s", restarts, errOut.String())
	}
	return nil
}

// writeCrowdConfig writes a configuration whose dataset's chunks go
// through test.crowd, which dies once n decodes are in flight.
func writeCrowdConfig(t *testing.T, dir string, n int) string {
	t.Helper()
	sum, err := launcher.Checksum(testPluginBin)
	if err != nil {
		t.Fatal(err)
	}
	src := fmt.Sprintf(`plugin "example.org/test/crowd" {
  path   = %q
  sha256 = %q
  args   = ["crowd"]
  env = {
    ZARRGW_TEST_DIR   = %q
    ZARRGW_TEST_CROWD = "%d"
  }
}
store "fs" "local" {
  root        = "./data"
  create_root = true
}
dataset "lab" {
  store  = store.fs.local
  prefix = "lab.zarr"
  codec "bytes" {}
  codec "test.crowd" {}
}
`, testPluginBin, sum, dir, n)
	path := filepath.Join(dir, "zarrgw.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func crowdRun(t *testing.T, dir string, stdin []byte, args ...string) {
	t.Helper()
	cmd := exec.Command(zarrgwBin, args...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(stdin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("zarrgw %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// crowdDeath returns how many decodes were in flight when test.crowd's
// process died, or why it cannot tell.
func crowdDeath(dir string) (int, error) {
	b, err := os.ReadFile(filepath.Join(dir, "crowded"))
	if err != nil {
		return 0, fmt.Errorf("the plugin never died: %w", err)
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 0, fmt.Errorf("crowded holds %q", b)
	}
	return strconv.Atoi(f[1])
}

// busyLoops starts n processes that spin on the CPU until the returned
// function (also run when the test ends) kills them.
func busyLoops(t *testing.T, n int) (stop func()) {
	t.Helper()
	var procs []*os.Process
	for range n {
		cmd := exec.Command("/bin/sh", "-c", "while :; do :; done")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, cmd.Process)
	}
	stop = func() {
		for _, p := range procs {
			p.Kill()
			p.Wait()
		}
		procs = nil
	}
	t.Cleanup(stop)
	return stop
}
