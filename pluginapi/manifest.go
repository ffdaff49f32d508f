package pluginapi

import (
	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
	pb "github.com/zarrgw/zarrgw/pluginapi/zarrgwv1"
)

func manifestToPB(m extension.Manifest, kind codec.Kind) *pb.Manifest {
	return &pb.Manifest{
		Kind:         string(m.Kind),
		Name:         m.Name,
		Aliases:      m.Aliases,
		Uris:         m.URIs,
		Version:      m.Version,
		ConfigSchema: m.ConfigSchema,
		CodecKind:    pb.CodecKind(kind),
	}
}

func manifestFromPB(p *pb.Manifest) extension.Manifest {
	m := extension.Manifest{
		Kind:    extension.Kind(p.Kind),
		Name:    p.Name,
		Aliases: p.Aliases,
		URIs:    p.Uris,
		Version: p.Version,
	}
	if len(p.ConfigSchema) > 0 {
		m.ConfigSchema = p.ConfigSchema
	}
	return m
}

// codecKindFromPB maps the wire kind; the numbering is shared on purpose.
func codecKindFromPB(k pb.CodecKind) codec.Kind {
	switch k {
	case pb.CodecKind_CODEC_KIND_ARRAY_TO_ARRAY, pb.CodecKind_CODEC_KIND_ARRAY_TO_BYTES, pb.CodecKind_CODEC_KIND_BYTES_TO_BYTES:
		return codec.Kind(k)
	}
	return 0
}
