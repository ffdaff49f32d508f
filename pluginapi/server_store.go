package pluginapi

import (
	"context"
	"fmt"
	"iter"

	"github.com/zarrgw/zarrgw/core/store"
	pb "github.com/zarrgw/zarrgw/pluginapi/zarrgwv1"
)

// listBatch is how many keys one List message carries.
const listBatch = 1000

// storeService serves stores over the Store service: a plugin's stores and
// transformers, or, on the host, the store below a transformer.
type storeService struct {
	pb.UnimplementedStoreServer
	open   func(context.Context, *pb.StoreRef) (store.Store, error)
	close  func(*pb.StoreRef) error
	arenas *arenas // nil where the host maps none (the next store's server)
}

// fromArena copies a value out of the arena: a store may keep what it is
// given, and the host reuses the memory after the call.
func (s *storeService) fromArena(h *pb.SetHeader) ([]byte, error) {
	if h.Size != 0 {
		return nil, fmt.Errorf("set %q: value both in frames and in an arena", h.Key)
	}
	src, err := s.arenas.bytes(h.Arena)
	if err != nil {
		return nil, fmt.Errorf("set %q: %w", h.Key, err)
	}
	return append([]byte(nil), src...), nil
}

func (s *storeService) Capabilities(ctx context.Context, req *pb.StoreRequest) (*pb.StoreCapabilities, error) {
	st, err := s.open(ctx, req.Store)
	if err != nil {
		return nil, toStatus(err)
	}
	return capsToPB(st.Capabilities()), nil
}

// Get reads with one call of the store, whole value or range alike, and
// places the value in the host's shared memory when a slot was lent and
// it fits, in frames otherwise: a store.BufferReader reads a whole value
// straight into the slot, any other store with Get and a copy. A whole
// value is never Stat-ed first to read it into the slot with GetInto: for
// a cloud store that is a HEAD before every GET, a round trip per read.
func (s *storeService) Get(req *pb.GetRequest, stream pb.Store_GetServer) error {
	st, err := s.open(stream.Context(), req.Store)
	if err != nil {
		return toStatus(err)
	}
	out := s.arenas.region(req.Output)
	if done, err := s.getBuffer(stream, st, req, out); done || err != nil {
		return err
	}
	v, err := st.Get(stream.Context(), string(req.Key), rangeFromPB(req.Range))
	if err != nil {
		return toStatus(err)
	}
	if dst, sp, ok := out.alloc(len(v.Data)); ok && len(v.Data) > 0 {
		copy(dst, v.Data)
		return stream.Send(&pb.DataFrame{Version: v.Version, Size: int64(len(v.Data)), Arena: sp, ModTimeUnixNano: timeToPB(v.ModTime)})
	}
	return sendFrames(stream, v)
}

// sendFrames sends a value in frames: the first one carries its version,
// size and time.
func sendFrames(stream pb.Store_GetServer, v store.Value) error {
	for i, part := range split(v.Data) {
		f := &pb.DataFrame{Data: part}
		if i == 0 {
			f.Version, f.Size, f.ModTimeUnixNano = v.Version, int64(len(v.Data)), timeToPB(v.ModTime)
		}
		if err := stream.Send(f); err != nil {
			return err
		}
	}
	return nil
}

// getBuffer serves a whole-value Get of a store.BufferReader: its one
// read lands in the slot the host lent, when the value fits, with no copy
// in this process; a value that does not fit goes in frames.
func (s *storeService) getBuffer(stream pb.Store_GetServer, st store.Store, req *pb.GetRequest, out *outRegion) (bool, error) {
	br, ok := st.(store.BufferReader)
	if !ok || out == nil || req.GetRange().GetKind() != pb.RangeKind_RANGE_KIND_WHOLE {
		return false, nil
	}
	buf, sp, ok := out.alloc(len(out.mem))
	if !ok {
		return false, nil
	}
	v, err := br.GetBuffer(stream.Context(), string(req.Key), buf)
	if err != nil {
		return true, toStatus(err)
	}
	if len(v.Data) > 0 && &v.Data[0] == &buf[0] {
		sp.Length = uint64(len(v.Data))
		return true, stream.Send(&pb.DataFrame{Version: v.Version, Size: int64(len(v.Data)), Arena: sp, ModTimeUnixNano: timeToPB(v.ModTime)})
	}
	return true, sendFrames(stream, v)
}

func (s *storeService) Stat(ctx context.Context, req *pb.StoreRequest) (*pb.StatResponse, error) {
	st, err := s.open(ctx, req.Store)
	if err != nil {
		return nil, toStatus(err)
	}
	info, err := st.Stat(ctx, string(req.Key))
	if err != nil {
		return nil, toStatus(err)
	}
	return &pb.StatResponse{Size: info.Size, Version: info.Version, ModTimeUnixNano: timeToPB(info.ModTime)}, nil
}

// Set writes only once the whole value has arrived: a host that dies or
// gives up half way leaves the store as it was.
func (s *storeService) Set(stream pb.Store_SetServer) error {
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	h := first.Header
	if h == nil {
		return toStatus(fmt.Errorf("set without a header"))
	}
	data, err := gather(h.Size, first.Data, func() ([]byte, error) {
		f, err := stream.Recv()
		return f.GetData(), err
	})
	if err == nil && h.Arena != nil {
		data, err = s.fromArena(h)
	}
	if err != nil {
		return toStatus(fmt.Errorf("set %q: receive value: %w", string(h.Key), err))
	}
	st, err := s.open(stream.Context(), h.Store)
	if err != nil {
		return toStatus(err)
	}
	version, err := st.Set(stream.Context(), string(h.Key), data, store.Condition{IfMatch: h.IfMatch, IfNoneMatch: h.IfNoneMatch})
	if err != nil {
		return toStatus(err)
	}
	return stream.SendAndClose(&pb.SetResponse{Version: version})
}

func (s *storeService) Erase(ctx context.Context, req *pb.StoreRequest) (*pb.Empty, error) {
	st, err := s.open(ctx, req.Store)
	if err != nil {
		return nil, toStatus(err)
	}
	return &pb.Empty{}, toStatus(st.Erase(ctx, string(req.Key)))
}

func (s *storeService) EraseMany(ctx context.Context, req *pb.EraseManyRequest) (*pb.Empty, error) {
	st, err := s.open(ctx, req.Store)
	if err != nil {
		return nil, toStatus(err)
	}
	return &pb.Empty{}, toStatus(st.EraseMany(ctx, keysFromPB(req.Keys)))
}

func (s *storeService) ErasePrefix(ctx context.Context, req *pb.StoreRequest) (*pb.Empty, error) {
	st, err := s.open(ctx, req.Store)
	if err != nil {
		return nil, toStatus(err)
	}
	return &pb.Empty{}, toStatus(st.ErasePrefix(ctx, string(req.Key)))
}

// List streams the keys in the order asked for: sorted and with sizes
// through the store's own listings where it has them, and through their
// fallbacks (a walk of directories, a Stat per key) in this process
// otherwise, should a host ask a store that does not claim them.
func (s *storeService) List(req *pb.ListRequest, stream pb.Store_ListServer) error {
	st, err := s.open(stream.Context(), req.Store)
	if err != nil {
		return toStatus(err)
	}
	ctx, prefix, after := stream.Context(), string(req.Key), string(req.StartAfter)
	switch {
	case req.Sizes:
		return sendListing(stream, store.ListInfo(ctx, st, prefix, after), addEntry)
	case req.Sorted:
		return sendListing(stream, store.ListSorted(ctx, st, prefix, after), addKey)
	}
	return sendListing(stream, st.List(ctx, prefix), addKey)
}

// sendListing sends what a listing yields in messages of listBatch keys.
func sendListing[T any](stream pb.Store_ListServer, seq iter.Seq2[T, error], add func(*pb.ListResponse, T)) error {
	batch := &pb.ListResponse{}
	for item, err := range seq {
		if err != nil {
			return toStatus(err)
		}
		add(batch, item)
		if len(batch.Keys) == listBatch {
			if err := stream.Send(batch); err != nil {
				return err
			}
			batch = &pb.ListResponse{}
		}
	}
	if len(batch.Keys) > 0 {
		return stream.Send(batch)
	}
	return nil
}

func addKey(batch *pb.ListResponse, key string) { batch.Keys = append(batch.Keys, []byte(key)) }

func addEntry(batch *pb.ListResponse, e store.Entry) {
	batch.Keys = append(batch.Keys, []byte(e.Key))
	batch.Infos = append(batch.Infos, &pb.KeyInfo{Size: e.Info.Size, Version: e.Info.Version, ModTimeUnixNano: timeToPB(e.Info.ModTime)})
}

func (s *storeService) ListDir(ctx context.Context, req *pb.StoreRequest) (*pb.ListDirResponse, error) {
	st, err := s.open(ctx, req.Store)
	if err != nil {
		return nil, toStatus(err)
	}
	dir, err := st.ListDir(ctx, string(req.Key))
	if err != nil {
		return nil, toStatus(err)
	}
	return &pb.ListDirResponse{Keys: keysToPB(dir.Keys), Prefixes: keysToPB(dir.Prefixes)}, nil
}

func (s *storeService) Close(_ context.Context, req *pb.StoreRequest) (*pb.Empty, error) {
	return &pb.Empty{}, toStatus(s.close(req.Store))
}

// capsToPB says what a store can do, and which of its listings it has
// itself: the client claims ListSorted and ListInfo only then.
func capsToPB(c store.Capabilities) *pb.StoreCapabilities {
	return &pb.StoreCapabilities{
		Read: c.Read, Write: c.Write, Erase: c.Erase, List: c.List,
		Ranges: c.Ranges, SuffixRanges: c.SuffixRanges, ConditionalWrite: c.ConditionalWrite,
		Md5Versions: c.MD5Versions,
		SortedList:  c.Sorted, SizedList: c.Info,
	}
}

func capsFromPB(p *pb.StoreCapabilities) store.Capabilities {
	return store.Capabilities{
		Read: p.Read, Write: p.Write, Erase: p.Erase, List: p.List,
		Ranges: p.Ranges, SuffixRanges: p.SuffixRanges, ConditionalWrite: p.ConditionalWrite,
		MD5Versions: p.Md5Versions,
		// the optional operations of a remote store: its own read into
		// the caller's buffer (from frames or shared memory, whatever the
		// plugin's store reads with), and the listings the plugin's store
		// has
		Optional: store.Optional{Into: true, Sorted: p.GetSortedList(), Info: p.GetSizedList()},
	}
}

func rangeToPB(r store.ByteRange) *pb.ByteRange {
	return &pb.ByteRange{Kind: pb.RangeKind(r.Kind), Offset: r.Offset, Length: r.Length}
}

func rangeFromPB(p *pb.ByteRange) store.ByteRange {
	return store.ByteRange{Kind: store.RangeKind(p.GetKind()), Offset: p.GetOffset(), Length: p.GetLength()}
}

func keysToPB(keys []string) [][]byte {
	out := make([][]byte, len(keys))
	for i, k := range keys {
		out[i] = []byte(k)
	}
	return out
}

func keysFromPB(keys [][]byte) []string {
	if keys == nil {
		return nil
	}
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = string(k)
	}
	return out
}
