package pluginapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"runtime"
	"sync/atomic"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/zarrgw/zarrgw/core/store"
	pb "github.com/zarrgw/zarrgw/pluginapi/zarrgwv1"
)

// Store opens the plugin's store type name with config. The plugin opens
// its instance on the first call that needs it (this one: capabilities),
// and again after a restart.
func (c *Client) Store(ctx context.Context, name string, config json.RawMessage) (store.Store, error) {
	s, err := c.openStore(ctx, &pb.StoreRef{Name: name, Configuration: config}, nil)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Transformer opens the plugin's storage transformer name over next. The
// host serves next to the plugin through go-plugin's broker; the plugin
// never opens it itself. Closing the transformer closes next, as closing
// an in-process transformer does.
func (c *Client) Transformer(ctx context.Context, name string, config json.RawMessage, next store.Store) (store.Store, error) {
	s, err := c.openStore(ctx, &pb.StoreRef{Name: name, Configuration: config}, &nextServer{store: next})
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (c *Client) openStore(ctx context.Context, ref *pb.StoreRef, next *nextServer) (*remoteStore, error) {
	s := &remoteStore{c: c, ref: ref, next: next}
	caps, err := unaryStore(ctx, s, func(client pb.StoreClient, r *pb.StoreRef) (*pb.StoreCapabilities, error) {
		return client.Capabilities(ctx, &pb.StoreRequest{Store: r})
	})
	if err != nil {
		if next != nil {
			next.stop()
		}
		return nil, err
	}
	s.caps = capsFromPB(caps)
	if next != nil {
		s.cleanup = runtime.AddCleanup(s, forget, forgotten{c: c, name: ref.Name, config: ref.Configuration, next: next})
	}
	return s, nil
}

// unaryStore makes one call on the store s names in the plugin, retried
// once after a crash: for calls that only read, or whose second attempt
// ends where the first would have.
func unaryStore[T any](ctx context.Context, s *remoteStore, call func(pb.StoreClient, *pb.StoreRef) (T, error)) (T, error) {
	var out T
	err := retried(ctx, func() error {
		client, conn, ref, err := s.begin(ctx)
		if err != nil {
			return err
		}
		v, err := call(client, ref)
		if err != nil {
			return s.c.fail(ctx, conn, err)
		}
		out = v
		return nil
	})
	return out, err
}

// remoteStore is a store (or transformer) running in a plugin.
type remoteStore struct {
	store.NoOptional // for the files, which a plugin's store does not hand out
	c                *Client
	ref              *pb.StoreRef
	next             *nextServer        // nil for a store
	caps             store.Capabilities // with the optional operations it claims
	cleanup          runtime.Cleanup
	// noEraseMany: the plugin has no EraseMany (an older SDK's), so
	// batches are erased key by key
	noEraseMany atomic.Bool
}

// forgotten is what a transformer leaves behind: the server of its next
// store and its instance in the plugin.
type forgotten struct {
	c      *Client
	name   string
	config []byte
	next   *nextServer
}

// forget releases what a transformer nobody closed left behind once it is
// garbage collected (the array layer never closes the stores it opens).
// Its plugin instance is named by its own broker ID, so no one else uses
// it. The store below is the host's and stays open, as it would in process.
func forget(f forgotten) {
	id, conn := f.next.current()
	f.next.stop()
	if conn == nil {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), f.c.Timeout)
		defer cancel()
		ref := &pb.StoreRef{Name: f.name, Configuration: f.config, Next: id}
		pb.NewStoreClient(conn.cc).Close(ctx, &pb.StoreRequest{Store: ref})
	}()
}

// begin returns a client on the live connection and the ref naming the
// store there; for a transformer it makes sure the next store is served on
// that connection's broker (a restarted plugin has a new one).
func (s *remoteStore) begin(ctx context.Context) (pb.StoreClient, *Conn, *pb.StoreRef, error) {
	conn, err := s.c.connect(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	ref := s.ref
	if s.next != nil {
		id, err := s.next.on(conn)
		if err != nil {
			return nil, nil, nil, err
		}
		ref = &pb.StoreRef{Name: s.ref.Name, Configuration: s.ref.Configuration, Next: id}
	}
	return pb.NewStoreClient(conn.cc), conn, ref, nil
}

func (s *remoteStore) Capabilities() store.Capabilities { return s.caps }

func (s *remoteStore) Get(ctx context.Context, key string, r store.ByteRange) (store.Value, error) {
	v, _, err := s.get(ctx, key, r, nil)
	return v, err
}

// GetInto is the optional copy-free read (store.Optional.Into): the plugin reads the value with one
// Get into shared memory (when a slot is free and it fits), and it is
// copied from there into dst, the one copy between the processes.
func (s *remoteStore) GetInto(ctx context.Context, key string, dst []byte) (bool, error) {
	_, ok, err := s.get(ctx, key, store.ByteRange{}, dst)
	return ok, err
}

// get reads a value into a new buffer, or into dst (non-nil) when its size
// is len(dst), reporting whether it was; once more if the plugin crashed.
func (s *remoteStore) get(ctx context.Context, key string, r store.ByteRange, dst []byte) (v store.Value, ok bool, err error) {
	err = retried(ctx, func() (err error) {
		v, ok, err = s.getOnce(ctx, key, r, dst)
		return err
	})
	return v, ok, err
}

func (s *remoteStore) getOnce(ctx context.Context, key string, r store.ByteRange, dst []byte) (store.Value, bool, error) {
	client, conn, ref, err := s.begin(ctx)
	if err != nil {
		return store.Value{}, false, err
	}
	req := &pb.GetRequest{Store: ref, Key: []byte(key), Range: rangeToPB(r)}
	var lent *slot
	if a := conn.sharedArena(ctx); a != nil {
		if lent, _ = a.borrow(); lent != nil {
			req.Output = lent.span(0, arenaSlotSize)
		}
	}
	v, ok, err := getOn(ctx, client, req, lent, dst)
	if lent != nil {
		lent.giveBack(abandoned(ctx, err))
	}
	if err != nil {
		return store.Value{}, false, s.c.fail(ctx, conn, err)
	}
	return v, ok, nil
}

// getOn reads a value from frames or from the slot lent for it, copying it
// out before the slot is given back: the caller owns what it gets.
func getOn(ctx context.Context, client pb.StoreClient, req *pb.GetRequest, lent *slot, dst []byte) (store.Value, bool, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // also ends a stream left unread when dst does not fit
	stream, err := client.Get(ctx, req)
	if err != nil {
		return store.Value{}, false, err
	}
	first, err := stream.Recv()
	if err != nil {
		return store.Value{}, false, err
	}
	if dst != nil && first.Size != int64(len(dst)) {
		return store.Value{}, false, nil
	}
	inline := first.Data
	if first.Arena != nil {
		if lent == nil || len(inline) > 0 || first.Size != int64(first.Arena.Length) {
			return store.Value{}, false, fmt.Errorf("value in an arena that was not lent for it")
		}
		if inline, err = lent.bytes(first.Arena, 0); err != nil {
			return store.Value{}, false, err
		}
	}
	next := func() ([]byte, error) {
		f, err := stream.Recv()
		return f.GetData(), err
	}
	if dst != nil {
		return store.Value{Data: dst, Version: first.Version, ModTime: timeFromPB(first.ModTimeUnixNano)}, true, gatherInto(dst, first.Size, inline, next)
	}
	if first.Arena != nil {
		inline = append([]byte(nil), inline...)
	}
	data, err := gather(first.Size, inline, next)
	return store.Value{Data: data, Version: first.Version, ModTime: timeFromPB(first.ModTimeUnixNano)}, true, err
}

func (s *remoteStore) Stat(ctx context.Context, key string) (store.Info, error) {
	resp, err := unaryStore(ctx, s, func(client pb.StoreClient, ref *pb.StoreRef) (*pb.StatResponse, error) {
		return client.Stat(ctx, &pb.StoreRequest{Store: ref, Key: []byte(key)})
	})
	if err != nil {
		return store.Info{}, err
	}
	return store.Info{Size: resp.Size, Version: resp.Version, ModTime: timeFromPB(resp.ModTimeUnixNano)}, nil
}

// Set writes, once more if the plugin's process died during the call
// (the one write of the store's interface that might have landed without
// saying so). A conditional write is made again with its condition, which
// refuses it should the first have landed: a refusal of the second
// attempt is then no refusal if the key holds the bytes written (the
// first attempt's, or a write of the same bytes the caller could not tell
// from it), else the caller would take a write that happened for one that
// did not. An unconditional one writes the same bytes to the same key
// again: the key holds them whether the first attempt landed or not, and
// against a concurrent writer the second is as a write made a moment
// later, which the caller could not have told apart.
func (s *remoteStore) Set(ctx context.Context, key string, data []byte, cond store.Condition) (version string, err error) {
	attempts := 0
	err = retried(ctx, func() (err error) {
		attempts++
		version, err = s.setOnce(ctx, key, data, cond)
		return err
	})
	if attempts > 1 && cond != (store.Condition{}) && errors.Is(err, store.ErrConflict) {
		if v, ok := s.holds(ctx, key, data); ok {
			return v, nil
		}
	}
	return version, err
}

// holds reports whether key holds data, with the value's version.
func (s *remoteStore) holds(ctx context.Context, key string, data []byte) (string, bool) {
	v, err := s.Get(ctx, key, store.ByteRange{})
	if err != nil || !bytes.Equal(v.Data, data) {
		return "", false
	}
	return v.Version, true
}

func (s *remoteStore) setOnce(ctx context.Context, key string, data []byte, cond store.Condition) (string, error) {
	client, conn, ref, err := s.begin(ctx)
	if err != nil {
		return "", err
	}
	h := &pb.SetHeader{Store: ref, Key: []byte(key), IfMatch: cond.IfMatch, IfNoneMatch: cond.IfNoneMatch, Size: int64(len(data))}
	var lent *slot
	if a := conn.sharedArena(ctx); a != nil && len(data) > 0 && len(data) <= arenaSlotSize {
		if lent, _ = a.borrow(); lent != nil {
			// The frames then carry nothing: Size counts frame bytes.
			h.Arena, h.Size = lent.span(0, copy(lent.mem, data)), 0
			data = nil
		}
	}
	version, err := setOn(ctx, client, h, data)
	if lent != nil {
		lent.giveBack(abandoned(ctx, err))
	}
	if err != nil {
		return "", s.c.fail(ctx, conn, err)
	}
	return version, nil
}

func setOn(ctx context.Context, client pb.StoreClient, h *pb.SetHeader, data []byte) (string, error) {
	// Cancelling on an early return ends the stream before its last frame,
	// so the plugin never writes a partial value.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := client.Set(ctx)
	if err != nil {
		return "", err
	}
	for i, part := range split(data) {
		f := &pb.SetFrame{Data: part}
		if i == 0 {
			f.Header = h
		}
		if err := stream.Send(f); err != nil {
			if err == io.EOF {
				break // the stream ended; CloseAndRecv has the reason
			}
			return "", err
		}
	}
	resp, err := stream.CloseAndRecv()
	if err != nil {
		return "", err
	}
	return resp.Version, nil
}

// Erase is made once more if the plugin's process died during the call:
// erasing a key that is gone already is no error, so a second attempt
// ends where the first would have.
func (s *remoteStore) Erase(ctx context.Context, key string) error {
	_, err := unaryStore(ctx, s, func(client pb.StoreClient, ref *pb.StoreRef) (*pb.Empty, error) {
		return client.Erase(ctx, &pb.StoreRequest{Store: ref, Key: []byte(key)})
	})
	return err
}

// eraseManyBytes bounds the keys of one EraseMany message, well below
// gRPC's 4 MiB default: a batch of a million keys goes in several calls.
const eraseManyBytes = 1 << 20

// EraseMany sends the keys in one call (or a few, for very many keys),
// which the plugin's store turns into its batch delete. A plugin built
// before EraseMany answers Unimplemented, and the keys are then erased
// one Erase call each, as before. Erasing is idempotent (missing keys are
// not errors), so a call the plugin's crash broke off is made again.
func (s *remoteStore) EraseMany(ctx context.Context, keys []string) error {
	for len(keys) > 0 && !s.noEraseMany.Load() {
		n, size := 0, 0
		for n < len(keys) && (n == 0 || size+len(keys[n]) <= eraseManyBytes) {
			size += len(keys[n])
			n++
		}
		req := &pb.EraseManyRequest{Keys: keysToPB(keys[:n])}
		err := retried(ctx, func() error {
			client, conn, ref, err := s.begin(ctx)
			if err != nil {
				return err
			}
			req.Store = ref
			_, err = client.EraseMany(ctx, req)
			if methodMissing(err) {
				s.noEraseMany.Store(true)
				return nil
			}
			if err != nil {
				return s.c.fail(ctx, conn, err)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if !s.noEraseMany.Load() {
			keys = keys[n:]
		}
	}
	if len(keys) == 0 {
		return nil
	}
	return store.EraseEach(ctx, s, keys, store.DefaultParallelism)
}

// methodMissing reports whether a call failed because the plugin has no
// such method (built with an older SDK): Unimplemented without the error
// detail that a store's own ErrUnsupported travels with.
func methodMissing(err error) bool {
	st, ok := status.FromError(err)
	return ok && st.Code() == codes.Unimplemented && len(st.Details()) == 0
}

// ErasePrefix is made once more if the plugin's process died during the
// call, as Erase is: what the first attempt erased is no error the second
// time.
func (s *remoteStore) ErasePrefix(ctx context.Context, prefix string) error {
	_, err := unaryStore(ctx, s, func(client pb.StoreClient, ref *pb.StoreRef) (*pb.Empty, error) {
		return client.ErasePrefix(ctx, &pb.StoreRequest{Store: ref, Key: []byte(prefix)})
	})
	return err
}

// List streams the keys; a listing the plugin's crash broke off before its
// first key is made again once (one already under way is not: the caller
// has seen part of it, in no order a second listing could resume from).
func (s *remoteStore) List(ctx context.Context, prefix string) iter.Seq2[string, error] {
	return listing(ctx, s, &pb.ListRequest{Key: []byte(prefix)}, keysOf, nil)
}

// ListSorted is the optional sorted listing, claimed only where the plugin's
// store lists sorted itself: otherwise store.ListSorted's walk of
// directories costs a call per directory, not one listing.
func (s *remoteStore) ListSorted(ctx context.Context, prefix, startAfter string) iter.Seq2[string, error] {
	return listing(ctx, s, &pb.ListRequest{Key: []byte(prefix), Sorted: true, StartAfter: []byte(startAfter)}, keysOf,
		func(k string) string { return k })
}

// ListInfo is the optional listing with sizes, claimed only where the plugin's
// store lists with sizes itself: otherwise store.ListInfo's Stat per key
// costs a call per key.
func (s *remoteStore) ListInfo(ctx context.Context, prefix, startAfter string) iter.Seq2[store.Entry, error] {
	return listing(ctx, s, &pb.ListRequest{Key: []byte(prefix), Sorted: true, StartAfter: []byte(startAfter), Sizes: true}, entriesOf,
		func(e store.Entry) string { return e.Key })
}

// listing yields the items of a List call, made once more should the
// plugin's crash break it off: from the start if it had yielded nothing,
// else, for a sorted listing (keyOf given), after the last key yielded.
func listing[T any](ctx context.Context, s *remoteStore, req *pb.ListRequest, items func(*pb.ListResponse) ([]T, error), keyOf func(T) string) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		ctx, cancel := context.WithCancel(ctx) // ends the stream when the caller stops early
		defer cancel()
		yielded, last := false, ""
		each := func(resp *pb.ListResponse) (bool, error) {
			batch, err := items(resp)
			for _, item := range batch {
				yielded = true
				if keyOf != nil {
					last = keyOf(item)
				}
				if !yield(item, nil) {
					return false, nil
				}
			}
			return true, err
		}
		stopped, err := s.list(ctx, req, each)
		if retryable(ctx, err) && (!yielded || keyOf != nil) {
			again := req
			if yielded {
				again = &pb.ListRequest{Key: req.Key, Sorted: req.Sorted, StartAfter: []byte(last), Sizes: req.Sizes}
			}
			stopped, err = s.list(ctx, again, each)
		}
		if err != nil && !stopped {
			var zero T
			yield(zero, err)
		}
	}
}

// list hands each response of one List stream to each, until each asks
// to stop (stopped) or fails.
func (s *remoteStore) list(ctx context.Context, req *pb.ListRequest, each func(*pb.ListResponse) (bool, error)) (stopped bool, err error) {
	client, conn, ref, err := s.begin(ctx)
	if err != nil {
		return false, err
	}
	// a request of its own: the same listing may be ranged over again, or
	// at once, and each call names the store on its own connection
	stream, err := client.List(ctx, &pb.ListRequest{Store: ref, Key: req.Key, Sorted: req.Sorted, StartAfter: req.StartAfter, Sizes: req.Sizes})
	for err == nil {
		var resp *pb.ListResponse
		if resp, err = stream.Recv(); err == nil {
			more, eerr := each(resp)
			if eerr != nil {
				return false, fmt.Errorf("plugin %s: list %q: %w", s.c.Name(), req.Key, eerr)
			}
			if !more {
				return true, nil
			}
		}
	}
	if err != io.EOF {
		return false, s.c.fail(ctx, conn, err)
	}
	return false, nil
}

func keysOf(resp *pb.ListResponse) ([]string, error) { return keysFromPB(resp.Keys), nil }

// entriesOf pairs each key with its information; a response without one
// for each key is an error, never a listing of empty values.
func entriesOf(resp *pb.ListResponse) ([]store.Entry, error) {
	if len(resp.Infos) != len(resp.Keys) {
		return nil, fmt.Errorf("%d sizes for %d keys", len(resp.Infos), len(resp.Keys))
	}
	out := make([]store.Entry, len(resp.Keys))
	for i, k := range resp.Keys {
		in := resp.Infos[i]
		out[i] = store.Entry{Key: string(k), Info: store.Info{Size: in.Size, Version: in.Version, ModTime: timeFromPB(in.ModTimeUnixNano)}}
	}
	return out, nil
}

func (s *remoteStore) ListDir(ctx context.Context, prefix string) (store.Dir, error) {
	resp, err := unaryStore(ctx, s, func(client pb.StoreClient, ref *pb.StoreRef) (*pb.ListDirResponse, error) {
		return client.ListDir(ctx, &pb.StoreRequest{Store: ref, Key: []byte(prefix)})
	})
	if err != nil {
		return store.Dir{}, err
	}
	return store.Dir{Keys: keysFromPB(resp.Keys), Prefixes: keysFromPB(resp.Prefixes)}, nil
}

// Close releases the plugin's instance. A plugin that has gone away has no
// instance left to release, so a lost connection is not an error here.
func (s *remoteStore) Close() error {
	s.cleanup.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), s.c.Timeout)
	defer cancel()
	client, conn, ref, err := s.begin(ctx)
	if err == nil {
		if _, cerr := client.Close(ctx, &pb.StoreRequest{Store: ref}); cerr != nil {
			err = s.c.fail(ctx, conn, cerr)
		}
	}
	if errors.Is(err, ErrConnectionLost) {
		err = nil
	}
	if s.next != nil {
		s.next.stop()
		err = errors.Join(err, s.next.store.Close())
	}
	return err
}
