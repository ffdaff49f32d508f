package references

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
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
	"targets":{"type":"object","description":"URL prefixes of target files mapped to declared stores (store.TYPE.NAME), which read them with their own credentials: { \"s3://bucket/\" = store.s3.raw }; the rest of a target's URL is its key in that store"},
	"allow_targets":{"type":"array","items":{"type":"string","minLength":1},"description":"directories and URL prefixes (https://host/dir/, s3://bucket/dir/) the set's targets may be read from, by URL with the environment's credentials, beyond the set's own directory and targets; every other target is refused"},
	"allow_addresses":{"type":"array","items":{"type":"string","minLength":1},"description":"loopback, private or link-local addresses or CIDR ranges (10.0.0.0/8) that host names of the set's location and of allow_targets may resolve to; by default only public addresses are connected to (an IP literal written in those URLs is allowed as written)"},
	"max_set_bytes":{"type":"integer","minimum":1,"description":"the most bytes of the set's documents read: a JSON set whole, the Parquet form's .zmetadata and each of its record files (default 67108864: parsing a JSON set holds about 15 times its size, up to 32 times; larger sets are what the Parquet form is for)"},
	"max_generated":{"type":"integer","minimum":0,"description":"the most references the gen entries of a JSON set make, in all (default 1000000)"},
	"max_generated_bytes":{"type":"integer","minimum":0,"description":"the most bytes of keys and URLs the templates and gen entries of a JSON set make, in all; and of paths and inline values one record file of the Parquet form holds (default 268435456)"},
	"max_gap":{"type":"integer","minimum":0,"description":"ranges of one file at most this many bytes apart are read in one request when several chunks are read (default 65536)"},
	"max_block":{"type":"integer","minimum":0,"description":"the most bytes one such request reads (default 4194304; 0 reads every range alone)"},
	"record_files":{"type":"integer","minimum":1,"maximum":1024,"description":"the Parquet form: how many record files are kept loaded (default 4; each costs about 3.5 MB per 100 000 rows)"}}}`),
	},
	New: open,
}

type config struct {
	References        string            `json:"references"`
	Targets           map[string]string `json:"targets"`
	AllowTargets      []string          `json:"allow_targets"`
	AllowAddresses    []string          `json:"allow_addresses"`
	MaxSetBytes       *int64            `json:"max_set_bytes"`
	MaxGenerated      *int64            `json:"max_generated"`
	MaxGeneratedBytes *int64            `json:"max_generated_bytes"`
	MaxGap            *int64            `json:"max_gap"`
	MaxBlock          *int64            `json:"max_block"`
	RecordFiles       int               `json:"record_files"`
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
	s, err := reach(ctx, cfg, opener, dir)
	if err != nil {
		return nil, fmt.Errorf("%s store: %w", Name, err)
	}
	d, err := opener.OpenURL(store.WithAddressCheck(ctx, s.addressCheck(dir)), dir)
	if err != nil {
		return nil, fmt.Errorf("%s store: reference set %s: %w", Name, cfg.References, err)
	}
	src, keep, err := openSource(ctx, d, key, cfg.References, cfg.limits())
	if p, ok := src.(*Parquet); ok && cfg.RecordFiles > 0 {
		p.RecordCache(cfg.RecordFiles)
	}
	if !keep {
		d.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("%s store: %w", Name, err)
	}
	s.src = src
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

// reach returns the store, its set not yet read, with what cfg lets its
// targets reach: the set's directory dir, targets and allow_targets, and
// the addresses of allow_addresses.
func reach(ctx context.Context, cfg config, opener store.URLOpener, dir string) (*Store, error) {
	s := New(nil, opener, dir)
	if len(cfg.Targets) > 0 {
		declared, ok := store.DeclaredOpenerFrom(ctx)
		if !ok {
			return nil, fmt.Errorf("targets need the host's declared stores (it runs in zarrgw's process only)")
		}
		for prefix, ref := range cfg.Targets {
			if parts := strings.Split(ref, "."); len(parts) != 3 || parts[0] != "store" || prefix == "" {
				return nil, fmt.Errorf("targets[%q] = %q: map a URL prefix to a declared store, as store.TYPE.NAME", prefix, ref)
			}
		}
		if _, err := s.Targets(cfg.Targets, declared); err != nil {
			return nil, err
		}
	}
	addresses := make([]netip.Prefix, 0, len(cfg.AllowAddresses))
	for _, a := range cfg.AllowAddresses {
		p, err := parseAddresses(a)
		if err != nil {
			return nil, fmt.Errorf("allow_addresses: %w", err)
		}
		addresses = append(addresses, p)
	}
	return s.Allow(cfg.AllowTargets, addresses)
}

// parseAddresses reads an address ("127.0.0.1") or a CIDR range
// ("10.0.0.0/8").
func parseAddresses(text string) (netip.Prefix, error) {
	if p, err := netip.ParsePrefix(text); err == nil {
		return p.Masked(), nil
	}
	a, err := netip.ParseAddr(text)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("%q is neither an IP address nor a CIDR range such as \"10.0.0.0/8\"", text)
	}
	return netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()), nil
}

// limits are cfg's bounds on what the set's documents take and on what
// templates and gen entries make.
func (cfg config) limits() Limits {
	l := DefaultLimits
	if cfg.MaxSetBytes != nil {
		l.SetBytes = *cfg.MaxSetBytes
	}
	if cfg.MaxGenerated != nil {
		l.Generated = *cfg.MaxGenerated
	}
	if cfg.MaxGeneratedBytes != nil {
		l.Bytes = *cfg.MaxGeneratedBytes
	}
	return l
}

// openSource reads the reference set named name, key in d: the Parquet
// form when key is a directory holding .zmetadata (always when name ends
// in "/"), else a JSON file. keep says the source reads d after this and
// d must stay open.
func openSource(ctx context.Context, d store.Store, key, name string, limits Limits) (src Source, keep bool, err error) {
	_, statErr := d.Stat(ctx, key+"/"+zmetadataKey)
	if statErr == nil || strings.HasSuffix(name, "/") {
		sub, err := store.Sub(d, key+"/")
		if err != nil {
			return nil, false, fmt.Errorf("reference set %s: %w", name, err)
		}
		p, err := OpenParquetWithin(ctx, sub, name, limits)
		if err != nil {
			return nil, false, err
		}
		return p, true, nil
	}
	doc, err := readWithin(ctx, d, key, limits.SetBytes)
	if err != nil {
		if !errors.Is(statErr, store.ErrNotFound) { // a bucket may answer "denied" for what it lacks: say both
			return nil, false, fmt.Errorf("reference set %s: %w (as a Parquet directory: %v)", name, err, statErr)
		}
		return nil, false, fmt.Errorf("reference set %s: %w", name, err)
	}
	set, err := ParseJSONWithin(doc, limits)
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
