package pluginapi

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/pluginapi/telemetry"
	pb "github.com/zarrgw/zarrgw/pluginapi/zarrgwv1"
)

// server is the plugin side: the extensions it serves and what it has
// built from them.
type server struct {
	ext       Extensions
	codecs    *codec.Registry
	resolver  codec.Resolver
	manifests []*pb.Manifest
	built     *cache[codec.Codec]
	stores    *storeInstances
	arenas    arenas
	watch     *hostWatch
}

func newServer(ext Extensions) (*server, error) {
	s := &server{ext: ext, codecs: codec.NewRegistry(), built: newCache[codec.Codec](1024), watch: newHostWatch()}
	s.resolver = ext.Resolver
	if s.resolver == nil {
		s.resolver = s.codecs
	}
	seen := map[string]bool{}
	add := func(m extension.Manifest, want extension.Kind) error {
		if m.Kind != want || m.Name == "" {
			return fmt.Errorf("manifest %q of kind %q served as a %s", m.Name, m.Kind, want)
		}
		for _, n := range m.Names() {
			if seen[string(want)+"\x00"+n] {
				return fmt.Errorf("two %ss answer to %q", want, n)
			}
			seen[string(want)+"\x00"+n] = true
		}
		return nil
	}
	for _, c := range ext.Codecs {
		if err := add(c.Manifest, extension.Codec); err != nil {
			return nil, err
		}
		s.codecs.Register(c)
		s.manifests = append(s.manifests, manifestToPB(c.Manifest, s.codecKind(c)))
	}
	for _, st := range ext.Stores {
		if err := add(st.Manifest, extension.Store); err != nil {
			return nil, err
		}
		s.manifests = append(s.manifests, manifestToPB(st.Manifest, 0))
	}
	for _, t := range ext.Transformers {
		if err := add(t.Manifest, extension.Transformer); err != nil {
			return nil, err
		}
		s.manifests = append(s.manifests, manifestToPB(t.Manifest, 0))
	}
	s.stores = newStoreInstances(s)
	return s, nil
}

// codecKind is the kind of the codec built from an empty configuration,
// for listings; unknown when that configuration is refused (the host
// learns each built codec's kind in any case).
func (s *server) codecKind(c codec.Registration) codec.Kind {
	if c.New == nil {
		return 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	if built, err := c.New(ctx, nil, s.resolver); err == nil {
		return codec.KindOf(built)
	}
	return 0
}

func (s *server) register(broker *plugin.GRPCBroker, g *grpc.Server) {
	s.stores.broker = broker
	pb.RegisterPluginServer(g, &pluginService{srv: s})
	pb.RegisterCodecServer(g, &codecService{srv: s})
	pb.RegisterStoreServer(g, &storeService{open: s.stores.open, close: s.stores.close, arenas: &s.arenas})
}

// codec returns the codec built from ref, building it on first use.
func (s *server) codec(ctx context.Context, ref *pb.CodecRef) (codec.Codec, error) {
	key := ref.GetName() + "\x00" + string(ref.GetConfiguration())
	if c, ok := s.built.get(key); ok {
		return c, nil
	}
	reg, ok := s.codecs.Lookup(ref.GetName())
	if !ok {
		return nil, fmt.Errorf("%w: %s", codec.ErrUnavailable, ref.GetName())
	}
	c, err := reg.New(ctx, json.RawMessage(ref.GetConfiguration()), s.resolver)
	if err != nil {
		return nil, fmt.Errorf("codec %s: %w", ref.GetName(), err)
	}
	if telemetry.Enabled() {
		c = telemetry.Codec(c) // a span per encode and decode, batched ones too
	}
	s.built.put(key, c)
	return c, nil
}

// codecFor returns the codec ref names, built on first use, and the spec
// it is called with.
func (s *server) codecFor(ctx context.Context, ref *pb.CodecRef, spec *pb.ChunkSpec) (codec.Codec, codec.Spec, error) {
	built, err := s.codec(ctx, ref)
	if err != nil {
		return nil, codec.Spec{}, err
	}
	in, err := specFromPB(spec)
	if err != nil {
		return nil, codec.Spec{}, fmt.Errorf("codec %s: %w", built.Name(), err)
	}
	return built, in, nil
}

// manifest finds the manifest of kind answering to name.
func (s *server) manifest(kind extension.Kind, name string) (*pb.Manifest, bool) {
	for _, m := range s.manifests {
		if m.Kind == string(kind) && manifestFromPB(m).AnswersTo(name) {
			return m, true
		}
	}
	return nil, false
}

// pluginService answers what the plugin serves and checks configurations.
type pluginService struct {
	pb.UnimplementedPluginServer
	srv *server
}

func (p *pluginService) Info(context.Context, *pb.InfoRequest) (*pb.InfoResponse, error) {
	return &pb.InfoResponse{
		Manifests:       p.srv.manifests,
		ProtocolVersion: uint32(ProtocolVersions[len(ProtocolVersions)-1]),
		Features:        &pb.Features{Batch: true, SharedMemory: true},
	}, nil
}

func (p *pluginService) Validate(ctx context.Context, req *pb.ValidateRequest) (*pb.ValidateResponse, error) {
	kind := extension.Kind(req.Kind)
	m, ok := p.srv.manifest(kind, req.Name)
	if !ok {
		return nil, toStatus(fmt.Errorf("this plugin serves no %s named %q", req.Kind, req.Name))
	}
	fields, err := ValidateConfig(m.ConfigSchema, req.Configuration)
	if err != nil {
		return nil, toStatus(err)
	}
	// A codec is also built, which catches what a schema cannot say; stores
	// and transformers are not, since opening one has effects.
	if len(fields) == 0 && kind == extension.Codec {
		if _, err := p.srv.codec(ctx, &pb.CodecRef{Name: req.Name, Configuration: req.Configuration}); err != nil {
			fields = append(fields, FieldError{Message: err.Error()})
		}
	}
	resp := &pb.ValidateResponse{}
	for _, f := range fields {
		resp.Errors = append(resp.Errors, &pb.FieldError{Path: f.Path, Message: f.Message})
	}
	return resp, nil
}

// cache holds what a plugin built, keyed by what it was built from. When
// full it starts over: entries are cheap to rebuild, and a host cycling
// through endless configurations must not grow the plugin without bound.
type cache[T any] struct {
	mu  sync.Mutex
	m   map[string]T
	max int
}

func newCache[T any](max int) *cache[T] { return &cache[T]{m: map[string]T{}, max: max} }

func (c *cache[T]) get(key string) (T, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[key]
	return v, ok
}

func (c *cache[T]) put(key string, v T) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.max {
		clear(c.m)
	}
	c.m[key] = v
}
