package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	"github.com/zarrgw/zarrgw/core/extension"
)

// LockFileName is the lock file kept next to a configuration file.
const LockFileName = "zarrgw.lock.hcl"

// Lock pins plugin binaries to checksums, like Terraform's provider lock
// file, so the configuration itself need not carry them.
type Lock struct {
	// Plugins is keyed by source address.
	Plugins map[string]LockedPlugin
}

// LockedPlugin is one entry of a lock file.
type LockedPlugin struct {
	// SHA256 is the binary's checksum in lower-case hex.
	SHA256 string
	// Serves is what the binary said it serves when it was locked, so that
	// names resolve to it before it runs (or where its binary is absent).
	// Entries written before names were recorded have none.
	Serves    Served
	DeclRange hcl.Range
}

// Served lists the names of the extensions a plugin serves, by kind.
type Served struct {
	Codecs, Stores, Transformers []string
}

// servedAttrs are the lock file's attributes for Served, by kind.
var servedAttrs = []struct {
	name string
	kind extension.Kind
}{{"codecs", extension.Codec}, {"stores", extension.Store}, {"transformers", extension.Transformer}}

// list returns the names of kind.
func (s *Served) list(kind extension.Kind) *[]string {
	switch kind {
	case extension.Codec:
		return &s.Codecs
	case extension.Store:
		return &s.Stores
	}
	return &s.Transformers
}

// Has reports whether a name of kind is among them.
func (s Served) Has(kind extension.Kind, name string) bool {
	return slices.Contains(*s.list(kind), name)
}

// Empty reports whether no names are recorded.
func (s Served) Empty() bool { return len(s.Codecs)+len(s.Stores)+len(s.Transformers) == 0 }

// ServedBy lists the names of manifests, sorted, by kind.
func ServedBy(ms []extension.Manifest) Served {
	var s Served
	for _, m := range ms {
		l := s.list(m.Kind)
		*l = append(*l, m.Name)
	}
	for _, a := range servedAttrs {
		slices.Sort(*s.list(a.kind))
	}
	return s
}

var lockSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "plugin", LabelNames: []string{"source"}}}}

var lockPluginSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "sha256", Required: true}, {Name: "codecs"}, {Name: "stores"}, {Name: "transformers"},
}}

// LoadLock reads a lock file; a missing file is an empty lock.
func LoadLock(path string) (*Lock, hcl.Diagnostics) {
	return parseLockFile(hclparse.NewParser(), path)
}

// ParseLock decodes a lock file held in memory.
func ParseLock(src []byte, filename string) (*Lock, hcl.Diagnostics) {
	f, diags := hclparse.NewParser().ParseHCL(src, filename)
	if diags.HasErrors() {
		return &Lock{Plugins: map[string]LockedPlugin{}}, diags
	}
	return decodeLock(f.Body)
}

func parseLockFile(p *hclparse.Parser, path string) (*Lock, hcl.Diagnostics) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return &Lock{Plugins: map[string]LockedPlugin{}}, nil
	}
	f, diags := p.ParseHCLFile(path)
	if diags.HasErrors() {
		return &Lock{Plugins: map[string]LockedPlugin{}}, diags
	}
	return decodeLock(f.Body)
}

func decodeLock(body hcl.Body) (*Lock, hcl.Diagnostics) {
	l := &Lock{Plugins: map[string]LockedPlugin{}}
	content, diags := body.Content(lockSchema)
	for _, b := range content.Blocks {
		source := b.Labels[0]
		if prev, ok := l.Plugins[source]; ok {
			diags = append(diags, duplicate(fmt.Sprintf("plugin %q", source), b.LabelRanges[0], prev.DeclRange))
			continue
		}
		attrs, more := b.Body.Content(lockPluginSchema)
		diags = append(diags, more...)
		a := attrs.Attributes["sha256"]
		if a == nil {
			continue
		}
		v, more := constantOf(a.Expr, cty.String)
		diags = append(diags, more...)
		if more.HasErrors() || v.IsNull() {
			continue
		}
		sum := strings.ToLower(v.AsString())
		if !sha256Hex.MatchString(sum) {
			diags = append(diags, diagf(a.Expr.Range(), "Invalid sha256",
				"Plugin %q: sha256 must be 64 hexadecimal digits, not %q.", source, v.AsString()))
			continue
		}
		served, more := decodeServed(attrs.Attributes)
		diags = append(diags, more...)
		l.Plugins[source] = LockedPlugin{SHA256: sum, Serves: served, DeclRange: b.DefRange}
	}
	return l, diags
}

// decodeServed reads the lists of served names of a lock entry.
func decodeServed(attrs hcl.Attributes) (Served, hcl.Diagnostics) {
	var s Served
	var diags hcl.Diagnostics
	for _, a := range servedAttrs {
		attr := attrs[a.name]
		if attr == nil {
			continue
		}
		v, more := constantOf(attr.Expr, cty.List(cty.String))
		diags = append(diags, more...)
		if !more.HasErrors() && !v.IsNull() {
			*s.list(a.kind) = stringList(v)
		}
	}
	return s, diags
}

// WriteLock writes l to path in canonical form, sorted by source address.
// It replaces the file atomically, so a reader never sees half a lock.
func WriteLock(path string, l *Lock) error {
	f := hclwrite.NewEmptyFile()
	body := f.Body()
	body.AppendUnstructuredTokens(hclwrite.Tokens{{
		Type:  hclsyntax.TokenComment,
		Bytes: []byte("# Checksums of plugin binaries and the names they serve, written by\n# \"zarrgw plugins lock\". A plugin runs only if its binary matches.\n"),
	}})
	sources := make([]string, 0, len(l.Plugins))
	for s := range l.Plugins {
		sources = append(sources, s)
	}
	sort.Strings(sources)
	for _, s := range sources {
		body.AppendNewline()
		blk := body.AppendNewBlock("plugin", []string{s})
		p := l.Plugins[s]
		blk.Body().SetAttributeValue("sha256", cty.StringVal(p.SHA256))
		for _, a := range servedAttrs {
			if names := *p.Serves.list(a.kind); len(names) > 0 {
				blk.Body().SetAttributeValue(a.name, stringListVal(names))
			}
		}
	}
	return writeAtomic(path, f.Bytes())
}

func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
