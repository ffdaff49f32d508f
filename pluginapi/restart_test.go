package pluginapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-plugin"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/dtype"
	"github.com/zarrgw/zarrgw/core/store"
)

// restarting is a Connector that replaces a connection found broken by a
// fresh in-process plugin, as the launcher replaces a dead process by a
// new one: a fake of host/runtime/launcher, for restarts without a binary.
// Like the launcher, it closes the connection it replaces, which fails the
// calls still under way on it with gRPC's "the client connection is
// closing".
type restarting struct {
	t      *testing.T
	ext    Extensions
	mu     sync.Mutex
	conn   *Conn
	client *plugin.GRPCClient
	server *plugin.GRPCServer
	starts int
}

func (r *restarting) Name() string { return "restarting" }

func (r *restarting) Connect(context.Context) (*Conn, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.conn != nil && !r.conn.Broken() {
		return r.conn, nil
	}
	if r.client != nil {
		r.client.Close()
	}
	r.client, r.server, r.conn = dial(r.t, r.ext, plainPlugin)
	r.starts++
	return r.conn, nil
}

func (r *restarting) processes() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.starts
}

// kill ends the current plugin as a crash would: its connections close.
func (r *restarting) kill() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.server.Stop()
}

// stallingLister is a memory store whose first listing stops after
// listing after keys, until its call ends: its plugin can then be killed
// in the middle of a listing, with a known part of it sent.
type stallingLister struct {
	*store.Memory
	after   int
	stalled *atomic.Bool
}

func (d stallingLister) stalling(ctx context.Context, seq iter.Seq2[string, error]) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		n := 0
		for k, err := range seq {
			if n++; n > d.after && !d.stalled.Swap(true) {
				<-ctx.Done() // until the process dies
				yield("", ctx.Err())
				return
			}
			if !yield(k, err) {
				return
			}
		}
	}
}

func (d stallingLister) List(ctx context.Context, prefix string) iter.Seq2[string, error] {
	return d.stalling(ctx, d.Memory.List(ctx, prefix))
}

func (d stallingLister) ListSorted(ctx context.Context, prefix, startAfter string) iter.Seq2[string, error] {
	return d.stalling(ctx, d.Memory.ListSorted(ctx, prefix, startAfter))
}

// listingAcrossACrash lists through a plugin that is killed once the
// first message of keys (listBatch of them) has arrived, the rest of the
// listing held back, and returns the keys listed, the error, and how many
// processes served the listing.
func listingAcrossACrash(t *testing.T, sorted bool) (want, got []string, err error, starts int) {
	ctx := context.Background()
	mem := store.NewMemory()
	for i := range listBatch * 5 / 2 {
		k := fmt.Sprintf("k/%05d", i)
		want = append(want, k)
		if _, err := mem.Set(ctx, k, []byte{1}, store.Condition{}); err != nil {
			t.Fatal(err)
		}
	}
	r := &restarting{t: t}
	stalling := stallingLister{Memory: mem, after: listBatch + 10, stalled: &atomic.Bool{}}
	r.ext = Extensions{Stores: []store.Registration{storeExtension("stalling", func() store.Store { return stalling })}}
	s, err := NewClient(r).Store(ctx, "stalling", nil)
	if err != nil {
		t.Fatal(err)
	}
	seq := s.List(ctx, "k/")
	if sorted {
		seq = s.ListSorted(ctx, "k/", "")
	}
	for k, lerr := range seq {
		if lerr != nil {
			err = lerr
			break
		}
		if got = append(got, k); len(got) == listBatch && r.processes() == 1 {
			r.kill()
		}
	}
	return want, got, err, r.processes()
}

// A sorted listing that a crash broke off part way is resumed in the new
// process after the last key it gave: every key comes once, in order. It
// fails where a listing under way is never made again.
func TestSortedListingResumesAfterACrash(t *testing.T) {
	want, got, err, starts := listingAcrossACrash(t, true)
	if err != nil {
		t.Fatalf("listing across a crash failed after %d of %d keys: %v", len(got), len(want), err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d keys listed, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("key %d is %q, want %q", i, got[i], want[i])
		}
	}
	if starts != 2 {
		t.Fatalf("%d plugin processes, want 2 (one crash)", starts)
	}
}

// An unsorted listing a crash broke off part way cannot be resumed (the
// keys given came in no order a listing could start after): it fails,
// with the lost connection, after the keys it gave.
func TestUnsortedListingFailsAfterACrash(t *testing.T) {
	_, got, err, _ := listingAcrossACrash(t, false)
	if !errors.Is(err, ErrConnectionLost) || len(got) != listBatch {
		t.Fatalf("after %d keys: %v", len(got), err)
	}
}

// crowdCodec is an identity bytes->bytes codec whose decodes, in the
// first process only, wait until the process is killed; it counts them.
type crowdCodec struct {
	first    func() bool // whether this is the first process
	inFlight *atomic.Int64
}

func (crowdCodec) Name() string                   { return "test.crowd" }
func (crowdCodec) Configuration() json.RawMessage { return nil }

func (crowdCodec) EncodeBytes(_ context.Context, _ codec.Spec, b []byte) ([]byte, error) {
	return append([]byte(nil), b...), nil
}

func (c crowdCodec) DecodeBytes(ctx context.Context, _ codec.Spec, b []byte) ([]byte, error) {
	if c.first() {
		c.inFlight.Add(1)
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return append([]byte(nil), b...), nil
}

// Every decode in flight when the plugin dies (batched ones, and ones on
// streams of their own) is made again in the one process that replaces
// it, and returns the right bytes, although the connector closes the dead
// connection under the calls that have not yet seen it die. Fails where
// only Unavailable counts as a lost connection.
func TestCallsInFlightSurviveARestart(t *testing.T) {
	const n = 16
	// n batch slots in the host, n items of a batch at once in the plugin:
	// so many batched calls can all be in the plugin together.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(n))
	r := &restarting{t: t}
	var inFlight atomic.Int64
	c := crowdCodec{first: func() bool { return r.processes() == 1 }, inFlight: &inFlight}
	r.ext = Extensions{Codecs: []codec.Registration{codecExtension("test.crowd", c)}}
	built, err := NewClient(r).Codec(t.Context(), "test.crowd", nil)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, n)
	for i := range n {
		size := 64 // batched
		if i%2 == 1 {
			size = batchItemMax + 64 // on a stream of its own
		}
		in := make([]byte, size)
		for j := range in {
			in[j] = byte(i + j)
		}
		go func() {
			spec := codec.Spec{DataType: dtype.Named("uint8"), Shape: []int{size}, DecodedSize: int64(size)}
			out, err := built.(codec.BytesBytes).DecodeBytes(t.Context(), spec, in)
			if err == nil && !bytes.Equal(out, in) {
				err = fmt.Errorf("decode %d returned other bytes", i)
			}
			errs <- err
		}()
	}
	for start := time.Now(); inFlight.Load() < n; time.Sleep(time.Millisecond) {
		if time.Since(start) > time.Minute { // a guard against a hang, not a measure
			t.Fatalf("only %d of %d decodes reached the plugin", inFlight.Load(), n)
		}
	}
	r.kill()
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if got := r.processes(); got != 2 {
		t.Errorf("%d plugin processes, want 2: one restart for all", got)
	}
}
