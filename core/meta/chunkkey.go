package meta

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// parseChunkKeyEncoding reads a v3 chunk_key_encoding: "default" or "v2",
// as a bare name, {"name", "configuration": {"separator"}}, or the flat
// form {"name", "separator"} that zarr-python also accepts.
func parseChunkKeyEncoding(raw json.RawMessage) (ChunkKeyEncoding, error) {
	var name, sep string
	t := bytes.TrimSpace(raw)
	if len(t) > 0 && t[0] == '"' {
		var err error
		if name, err = parseString(t); err != nil {
			return ChunkKeyEncoding{}, err
		}
	} else {
		f, err := decodeObject(t)
		if err != nil {
			return ChunkKeyEncoding{}, err
		}
		if name, sep, err = chunkKeyFields(f); err != nil {
			return ChunkKeyEncoding{}, err
		}
	}
	return chunkKeyEncoding(name, sep)
}

func chunkKeyFields(f fields) (name, sep string, err error) {
	flat, hasFlat := f.take("separator")
	ext, err := extensionFromFields(f, "name")
	if err != nil {
		return "", "", err
	}
	if hasFlat {
		if sep, err = parseString(flat); err != nil {
			return "", "", fmt.Errorf("separator: %w", err)
		}
	}
	if ext.Configuration != nil {
		cfg, _ := decodeObject(ext.Configuration)
		if raw, ok := cfg.take("separator"); ok {
			if sep, err = parseString(raw); err != nil {
				return "", "", fmt.Errorf("separator: %w", err)
			}
		}
		if len(cfg) > 0 {
			return "", "", fmt.Errorf("unknown configuration key %q", cfg.sortedKeys()[0])
		}
	}
	return ext.Name, sep, nil
}

func chunkKeyEncoding(name, sep string) (ChunkKeyEncoding, error) {
	switch name {
	case "default":
		if sep == "" {
			sep = "/"
		}
	case "v2":
		if sep == "" {
			sep = "."
		}
	default:
		return ChunkKeyEncoding{}, fmt.Errorf("unsupported chunk key encoding %q", name)
	}
	if sep != "/" && sep != "." {
		return ChunkKeyEncoding{}, fmt.Errorf("invalid separator %q (want \"/\" or \".\")", sep)
	}
	return ChunkKeyEncoding{Name: name, Separator: sep}, nil
}

// marshalChunkKeyEncoding writes the configuration form. An unset encoding
// is the v3 default; the draft encoding has no v3 spelling.
func marshalChunkKeyEncoding(c ChunkKeyEncoding) ([]byte, error) {
	name := c.Name
	if name == "" {
		name = "default"
	}
	if name == "draft" {
		return nil, errors.New("chunk_key_encoding: the draft v3 chunk key layout cannot be written as v3")
	}
	enc, err := chunkKeyEncoding(name, c.Separator)
	if err != nil {
		return nil, fmt.Errorf("chunk_key_encoding: %w", err)
	}
	o := newObject()
	o.add("name", quote(enc.Name))
	cfg := newObject()
	cfg.add("separator", quote(enc.Separator))
	o.add("configuration", cfg.bytes())
	return o.bytes(), nil
}
