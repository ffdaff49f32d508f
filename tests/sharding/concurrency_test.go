package sharding

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/grid"
	"github.com/zarrgw/zarrgw/core/hierarchy"
	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/core/ndarray"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/app/location"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// The concurrency layout: a [16 16] int32 array of [8 8] shards, each of
// 16 inner chunks [2 2]. Writer w owns the inner chunks whose C-order
// number is w modulo the number of writers, in every shard.
var (
	hammerShape = []int{16, 16}
	hammerInner = []int{2, 2}
)

func hammerMeta(kind string) *meta.ArrayMeta {
	dt := dtype.Named("int32")
	if kind == "transformer" {
		return transformedMeta(dt, hammerShape, hammerInner, []int{4, 4}, []meta.Extension{bytesLE(dt)})
	}
	return shardedMeta(dt, hammerShape, []int{8, 8}, hammerInner, `[{"name":"bytes","configuration":{"endian":"little"}}]`, "end")
}

// ownedChunks lists the inner chunks writer w of n owns.
func ownedChunks(w, n int) [][]int {
	g, _ := grid.New(hammerShape, hammerInner)
	var out [][]int
	k := 0
	for c := range g.Chunks {
		if k%n == w {
			out = append(out, append([]int(nil), c...))
		}
		k++
	}
	return out
}

// value is what writer w writes in round r.
func value(w, r int) uint32 { return uint32(1000*(w+1) + r + 1) }

// writeRounds makes writer w of n write each of its inner chunks, one
// write per chunk, in every round.
func writeRounds(a *array.Array, w, n, rounds int) error {
	for r := range rounds {
		for _, c := range ownedChunks(w, n) {
			if err := writeChunk(a, c, value(w, r)); err != nil {
				return fmt.Errorf("writer %d round %d: %w", w, r, err)
			}
		}
	}
	return nil
}

// writeChunk sets every element of inner chunk c to v.
func writeChunk(a *array.Array, c []int, v uint32) error {
	data := ndarray.New(dtype.Named("int32"), hammerInner)
	for i := range data.Len() {
		binary.LittleEndian.PutUint32(data.Data[4*i:], v)
	}
	sel := grid.Box([]int{c[0] * 2, c[1] * 2}, hammerInner)
	if err := a.Write(ctx, sel, data); err != nil {
		return fmt.Errorf("chunk %v: %w", c, err)
	}
	return nil
}

// lostWrites reads the array and counts inner chunks whose owner's last
// write is missing.
func lostWrites(t *testing.T, s store.Store, n, rounds int) int {
	t.Helper()
	return countLostAt(t, s, n, rounds-1)
}

// countLost counts the first chunks of writers 0..n-1 (of 32) that do not
// hold their round-0 value.
func countLost(t *testing.T, s store.Store, n int) int {
	t.Helper()
	got := readAll(t, s)
	lost := 0
	for w := range n {
		c := ownedChunks(w, 32)[0]
		i := (c[0]*2)*hammerShape[1] + c[1]*2
		if binary.LittleEndian.Uint32(got.Data[4*i:]) != value(w, 0) {
			lost++
		}
	}
	return lost
}

func readAll(t *testing.T, s store.Store) *ndarray.Array {
	t.Helper()
	a, err := hierarchy.OpenArray(ctx, s, "arr", opts())
	if err != nil {
		t.Fatal(err)
	}
	got, err := a.ReadAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// countLostAt counts inner chunks whose owner's write of round r is
// missing.
func countLostAt(t *testing.T, s store.Store, n, r int) int {
	t.Helper()
	got := readAll(t, s)
	lost := 0
	for w := range n {
		for _, c := range ownedChunks(w, n) {
			i := (c[0]*2)*hammerShape[1] + c[1]*2
			if binary.LittleEndian.Uint32(got.Data[4*i:]) != value(w, r) {
				lost++
			}
		}
	}
	return lost
}

// TestConcurrentWriters: 8 goroutines, each with its own open array (so
// nothing in process serialises them), write disjoint inner chunks of the
// same shards over and over; every last write must be there.
func TestConcurrentWriters(t *testing.T) {
	const writers, rounds = 8, 10
	for _, kind := range []string{"codec", "transformer"} {
		for _, sk := range storeKinds {
			t.Run(kind+"/"+sk.name, func(t *testing.T) {
				s := &conflicts{Store: sk.open(t)}
				if _, err := hierarchy.CreateArray(ctx, s, "arr", hammerMeta(kind), opts()); err != nil {
					t.Fatal(err)
				}
				var wg sync.WaitGroup
				errs := make([]error, writers)
				for w := range writers {
					wg.Go(func() {
						a, err := hierarchy.OpenArray(ctx, s, "arr", opts())
						if err == nil {
							err = writeRounds(a, w, writers, rounds)
						}
						errs[w] = err
					})
				}
				wg.Wait()
				for _, err := range errs {
					if err != nil {
						t.Fatal(err)
					}
				}
				if lost := lostWrites(t, s, writers, rounds); lost != 0 {
					t.Fatalf("%d of %d inner chunks lost their last write", lost, 64)
				}
				t.Logf("%d conditional writes conflicted and were redone", s.n.Load())
			})
		}
	}
}

// conflicts counts the conditional writes that failed, to show the writers
// did contend.
type conflicts struct {
	store.Store
	n atomic.Int64
}

func (c *conflicts) Set(ctx context.Context, key string, data []byte, cond store.Condition) (string, error) {
	v, err := c.Store.Set(ctx, key, data, cond)
	if errors.Is(err, store.ErrConflict) {
		c.n.Add(1)
	}
	return v, err
}

// TestConcurrentProcesses: 8 writers in two OS processes (this test
// binary, re-run as TestWriterProcess, four writers in each) write
// disjoint inner chunks of the same shards, on the filesystem, on S3
// (versitygw) and on Azure (Azurite), where conditional writes are ETag
// preconditions: every last write must be there.
func TestConcurrentProcesses(t *testing.T) {
	const procs, perProc, rounds = 2, 4, 4
	for _, where := range []string{"fs", "s3", "azure"} {
		for _, kind := range []string{"codec", "transformer"} {
			t.Run(where+"/"+kind, func(t *testing.T) {
				loc, env := writerLocation(t, where)
				s, err := location.Open(ctx, registry.Bundled().InProcess(), loc)
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				if _, err := hierarchy.CreateArray(ctx, s, "arr", hammerMeta(kind), opts()); err != nil {
					t.Fatal(err)
				}
				cmds := make([]*exec.Cmd, procs)
				outs := make([]bytes.Buffer, procs)
				for p := range procs {
					cmd := exec.Command(os.Args[0], "-test.run=^TestWriterProcess$", "-test.count=1", "-test.v")
					cmd.Env = append(append(os.Environ(), env...),
						fmt.Sprintf("ZARRGW_SHARD_WRITER=%s,%d,%d,%d,%d", loc, p, perProc, procs*perProc, rounds))
					cmd.Stdout, cmd.Stderr = &outs[p], &outs[p]
					if err := cmd.Start(); err != nil {
						t.Fatal(err)
					}
					cmds[p] = cmd
				}
				for p, cmd := range cmds {
					if err := cmd.Wait(); err != nil {
						t.Fatalf("writer process %d: %v\n%s", p, err, outs[p].String())
					}
					if !strings.Contains(outs[p].String(), "--- PASS: TestWriterProcess") {
						t.Fatalf("writer process %d did not write:\n%s", p, outs[p].String())
					}
				}
				if lost := lostWrites(t, s, procs*perProc, rounds); lost != 0 {
					t.Fatalf("%d inner chunks lost their last write", lost)
				}
			})
		}
	}
}

// writerLocation is a fresh place to write, as a LOCATION, and the
// environment a process needs to reach it.
func writerLocation(t *testing.T, where string) (string, []string) {
	t.Helper()
	switch where {
	case "s3":
		srv := servers.StartS3(t)
		env := []string{"AWS_ENDPOINT_URL=" + srv.Endpoint, "AWS_ACCESS_KEY_ID=" + srv.AccessKey,
			"AWS_SECRET_ACCESS_KEY=" + srv.SecretKey, "AWS_REGION=" + srv.Region}
		for _, e := range env {
			k, v, _ := strings.Cut(e, "=")
			t.Setenv(k, v)
		}
		return "s3://" + srv.NewBucket(t), env
	case "azure":
		srv := servers.StartAzure(t)
		env := []string{"AZURE_STORAGE_CONNECTION_STRING=" + srv.ConnectionString()}
		t.Setenv("AZURE_STORAGE_CONNECTION_STRING", srv.ConnectionString())
		return "az://" + srv.NewContainer(t), env
	}
	return t.TempDir(), nil
}

// TestWriterProcess is the child of TestConcurrentProcesses, with one
// writer per goroutine, each with its own open array; run directly it
// does nothing.
func TestWriterProcess(t *testing.T) {
	spec := os.Getenv("ZARRGW_SHARD_WRITER")
	if spec == "" {
		t.Skip("runs only as a child of TestConcurrentProcesses")
	}
	f := strings.Split(spec, ",")
	proc, _ := strconv.Atoi(f[1])
	perProc, _ := strconv.Atoi(f[2])
	n, _ := strconv.Atoi(f[3])
	rounds, _ := strconv.Atoi(f[4])
	s, err := location.Open(ctx, registry.Bundled().InProcess(), f[0])
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, perProc)
	for i := range perProc {
		wg.Go(func() {
			a, err := hierarchy.OpenArray(ctx, s, "arr", opts())
			if err == nil {
				err = writeRounds(a, proc*perProc+i, n, rounds)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}
