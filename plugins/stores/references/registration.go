package references

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/core/store"
)

// Name is the store type in configurations: store "references" "era5".
const Name = "references"

// Registration registers the store: configuration {"references":
// LOCATION}, the reference set's path or URL (s3://, az://, https://): a
// JSON file, or a directory in the Parquet form (parquet.go). It
// runs in the host's process: it reaches the reference set and its target
// files through the store.URLOpener of the context it is opened with, as
// the host's other stores reach them, with their credentials.
var Registration = store.Registration{
	Manifest: extension.Manifest{
		Kind: extension.Store,
		Name: Name,
		ConfigSchema: json.RawMessage(`{"type":"object","required":["references"],"additionalProperties":false,"properties":{
	"references":{"type":"string","description":"the kerchunk reference set: a JSON file (version 0 or 1), or a directory in the Parquet form (holding .zmetadata and ARRAY/refs.I.parq record files, read a few at a time: for sets of millions of chunks); a path, or an s3://, az://, http(s):// URL; relative target files are found beside it"},
	"targets":{"type":"object","description":"URL prefixes of target files mapped to declared stores (store.TYPE.NAME), which read them with their own credentials: { \"s3://bucket/\" = store.s3.raw }; the rest of a target's URL is its key in that store. Targets no prefix matches are opened by URL with the environment's credentials"},
	"max_gap":{"type":"integer","minimum":0,"description":"ranges of one file at most this many bytes apart are read in one request when several chunks are read (default 65536)"},
	"max_block":{"type":"integer","minimum":0,"description":"the most bytes one such request reads (default 4194304; 0 reads every range alone)"},
	"record_files":{"type":"integer","minimum":1,"maximum":1024,"description":"the Parquet form: how many record files are kept loaded (default 4; each costs about 3.5 MB per 100 000 rows)"}}}`),
	},
	New: open,
}

type config struct {
	References  string            `json:"references"`
	Targets     map[string]string `json:"targets"`
	MaxGap      *int64            `json:"max_gap"`
	MaxBlock    *int64            `json:"max_block"`
	RecordFiles int               `json:"record_files"`
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
	var declared store.DeclaredOpener
	if len(cfg.Targets) > 0 {
		if declared, ok = store.DeclaredOpenerFrom(ctx); !ok {
			return nil, fmt.Errorf("%s store: targets need the host's declared stores (it runs in zarrgw's process only)", Name)
		}
		for prefix, ref := range cfg.Targets {
			if parts := strings.Split(ref, "."); len(parts) != 3 || parts[0] != "store" || prefix == "" {
				return nil, fmt.Errorf("%s store: targets[%q] = %q: map a URL prefix to a declared store, as store.TYPE.NAME", Name, prefix, ref)
			}
		}
	}
	d, err := opener.OpenURL(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("%s store: reference set %s: %w", Name, cfg.References, err)
	}
	src, keep, err := openSource(ctx, d, key, cfg.References)
	if p, ok := src.(*Parquet); ok && cfg.RecordFiles > 0 {
		p.RecordCache(cfg.RecordFiles)
	}
	if !keep {
		d.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("%s store: %w", Name, err)
	}
	s := New(src, opener, dir)
	if len(cfg.Targets) > 0 {
		s.Targets(cfg.Targets, declared)
	}
	gap, block := int64(DefaultMaxGap), int64(DefaultMaxBlock)
	if cfg.MaxGap != nil {
		gap = *cfg.MaxGap
	}
	if cfg.MaxBlock != nil {
		block = *cfg.MaxBlock
	}
	s.Coalesce(gap, block)
	if keep { // the Parquet form reads its record files from d as long as it serves
		return &closingStore{Store: s, dir: d}, nil
	}
	return s, nil
}

// openSource reads the reference set named name, key in d: the Parquet
// form when key is a directory holding .zmetadata (always when name ends
// in "/"), else a JSON file. keep says the source reads d after this and
// d must stay open.
func openSource(ctx context.Context, d store.Store, key, name string) (src Source, keep bool, err error) {
	_, statErr := d.Stat(ctx, key+"/"+zmetadataKey)
	if statErr == nil || strings.HasSuffix(name, "/") {
		sub, err := store.Sub(d, key+"/")
		if err != nil {
			return nil, false, fmt.Errorf("reference set %s: %w", name, err)
		}
		p, err := OpenParquet(ctx, sub, name)
		if err != nil {
			return nil, false, err
		}
		return p, true, nil
	}
	doc, err := d.Get(ctx, key, store.ByteRange{})
	if err != nil {
		if !errors.Is(statErr, store.ErrNotFound) { // a bucket may answer "denied" for what it lacks: say both
			return nil, false, fmt.Errorf("reference set %s: %w (as a Parquet directory: %v)", name, err, statErr)
		}
		return nil, false, fmt.Errorf("reference set %s: %w", name, err)
	}
	set, err := ParseJSON(doc.Data)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", name, err)
	}
	return set, false, nil
}

// closingStore is a Store over a Parquet set: closing it closes the
// set's directory too.
type closingStore struct {
	*Store
	dir store.Store
}

func (c *closingStore) Close() error {
	return errors.Join(c.Store.Close(), c.dir.Close())
}
