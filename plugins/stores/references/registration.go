package references

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/store"
)

// Name is the store type in configurations: store "references" "era5".
const Name = "references"

// Registration registers the store: configuration {"references":
// LOCATION}, the reference set's path or URL (s3://, az://, https://). It
// runs in the host's process: it reaches the reference set and its target
// files through the store.URLOpener of the context it is opened with, as
// the host's other stores reach them, with their credentials.
var Registration = store.Registration{
	Manifest: extension.Manifest{
		Kind: extension.Store,
		Name: Name,
		ConfigSchema: json.RawMessage(`{"type":"object","required":["references"],"additionalProperties":false,"properties":{
	"references":{"type":"string","description":"the kerchunk reference set (JSON, version 0 or 1): a path, or an s3://, az://, http(s):// URL; relative target files are found beside it"},
	"targets":{"type":"object","description":"URL prefixes of target files mapped to declared stores (store.TYPE.NAME), which read them with their own credentials: { \"s3://bucket/\" = store.s3.raw }; the rest of a target's URL is its key in that store. Targets no prefix matches are opened by URL with the environment's credentials"},
	"max_gap":{"type":"integer","minimum":0,"description":"ranges of one file at most this many bytes apart are read in one request when several chunks are read (default 65536)"},
	"max_block":{"type":"integer","minimum":0,"description":"the most bytes one such request reads (default 4194304; 0 reads every range alone)"}}}`),
	},
	New: open,
}

type config struct {
	References string            `json:"references"`
	Targets    map[string]string `json:"targets"`
	MaxGap     *int64            `json:"max_gap"`
	MaxBlock   *int64            `json:"max_block"`
}

// Config is the configuration of a store over the reference set at loc.
func Config(loc string) json.RawMessage {
	b, _ := json.Marshal(config{References: loc}) // a string cannot fail to marshal
	return b
}

func open(ctx context.Context, raw json.RawMessage) (store.Store, error) {
	var cfg config
	if err := extension.DecodeConfig(raw, &cfg); err != nil {
		return nil, fmt.Errorf("%s store: configuration: %w", Name, err)
	}
	opener, ok := store.URLOpenerFrom(ctx)
	if !ok {
		return nil, fmt.Errorf("%s store: opened without the host's store opener (it runs in zarrgw's process only)", Name)
	}
	dir, key, err := splitFile(strings.TrimSuffix(cfg.References, "/"))
	if err != nil {
		return nil, fmt.Errorf("%s store: references: %w", Name, err)
	}
	d, err := opener.OpenURL(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("%s store: reference set %s: %w", Name, cfg.References, err)
	}
	defer d.Close()
	doc, err := d.Get(ctx, key, store.ByteRange{})
	if err != nil {
		return nil, fmt.Errorf("%s store: reference set %s: %w", Name, cfg.References, err)
	}
	set, err := ParseJSON(doc.Data)
	if err != nil {
		return nil, fmt.Errorf("%s store: %s: %w", Name, cfg.References, err)
	}
	s := New(set, opener, dir)
	if len(cfg.Targets) > 0 {
		declared, ok := store.DeclaredOpenerFrom(ctx)
		if !ok {
			return nil, fmt.Errorf("%s store: targets need the host's declared stores (it runs in zarrgw's process only)", Name)
		}
		for prefix, ref := range cfg.Targets {
			if parts := strings.Split(ref, "."); len(parts) != 3 || parts[0] != "store" || prefix == "" {
				return nil, fmt.Errorf("%s store: targets[%q] = %q: map a URL prefix to a declared store, as store.TYPE.NAME", Name, prefix, ref)
			}
		}
		s.Targets(cfg.Targets, declared)
	}
	gap, block := int64(DefaultMaxGap), int64(DefaultMaxBlock)
	if cfg.MaxGap != nil {
		gap = *cfg.MaxGap
	}
	if cfg.MaxBlock != nil {
		block = *cfg.MaxBlock
	}
	return s.Coalesce(gap, block), nil
}
