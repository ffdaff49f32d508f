// Package zlibcodec is the numcodecs "zlib" codec: a zlib stream (RFC 1950,
// deflate with an Adler-32 trailer) holding the chunk.
package zlibcodec

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/zlib"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/plugins/codecs/internal/bounded"
)

// Registration registers the codec as "numcodecs.zlib" and "zlib", and under its draft v3 URI.
var Registration = codec.Registration{
	Manifest: extension.Manifest{
		Kind:    extension.Codec,
		Name:    "numcodecs.zlib",
		Aliases: []string{"zlib"},
		URIs:    []string{"https://purl.org/zarr/spec/codec/zlib/1.0"},
		ConfigSchema: json.RawMessage(`{"type":"object","properties":{
	"level":{"type":"integer","minimum":-1,"maximum":9,"default":1}}}`),
	},
	New: New,
}

// Codec is the zlib codec; safe for concurrent use.
type Codec struct {
	level   int
	writers sync.Pool // *zlib.Writer at this level
}

// New builds the codec from {"level": -1..9} (default 1, as numcodecs;
// -1 is zlib's default compression).
func New(_ context.Context, configuration json.RawMessage, _ codec.Resolver) (codec.Codec, error) {
	cfg := struct {
		Level *int `json:"level"`
	}{}
	if len(configuration) > 0 && string(configuration) != "null" {
		if err := json.Unmarshal(configuration, &cfg); err != nil {
			return nil, fmt.Errorf("zlib: configuration: %w", err)
		}
	}
	level := 1
	if cfg.Level != nil {
		level = *cfg.Level
	}
	if level < -1 || level > 9 {
		return nil, fmt.Errorf("zlib: level %d out of range -1..9", level)
	}
	return &Codec{level: level}, nil
}

func (c *Codec) Name() string { return "numcodecs.zlib" }

// Configuration returns {"level": n}.
func (c *Codec) Configuration() json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"level":%d}`, c.level))
}

// EncodeBytes compresses b into one zlib stream.
func (c *Codec) EncodeBytes(_ context.Context, _ codec.Spec, b []byte) ([]byte, error) {
	var out bytes.Buffer
	out.Grow(len(b)/2 + 64)
	w, _ := c.writers.Get().(*zlib.Writer)
	if w == nil {
		var err error
		if w, err = zlib.NewWriterLevel(&out, c.level); err != nil {
			return nil, fmt.Errorf("zlib: %w", err)
		}
	} else {
		w.Reset(&out)
	}
	defer c.writers.Put(w)
	if _, err := w.Write(b); err != nil {
		return nil, fmt.Errorf("zlib: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("zlib: %w", err)
	}
	return out.Bytes(), nil
}

var readers sync.Pool // io.ReadCloser implementing zlib.Resetter

// DecodeBytes decompresses b within the spec's size limits; the Adler-32
// trailer is verified.
func (c *Codec) DecodeBytes(_ context.Context, in codec.Spec, b []byte) ([]byte, error) {
	src := bytes.NewReader(b)
	r, _ := readers.Get().(io.ReadCloser)
	var err error
	if r == nil {
		r, err = zlib.NewReader(src)
	} else {
		err = r.(zlib.Resetter).Reset(src, nil)
	}
	if err != nil {
		return nil, fmt.Errorf("zlib: %w: header: %v", codec.ErrCorrupt, err)
	}
	defer readers.Put(r)
	out, err := bounded.ReadAll(r, in, 4*len(b))
	if err != nil {
		return nil, fmt.Errorf("zlib: %w", err)
	}
	return out, nil
}
