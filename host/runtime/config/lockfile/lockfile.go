// Package lockfile reads and writes lock files, zarrgw's counterpart of
// .terraform.lock.hcl: for each plugin, the SHA-256 of a binary given by
// path (and of the Python files beside a script), or the version and
// package hashes of an installed one, and the names it serves. It also
// says which lock file a configuration file has.
package lockfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/host/internal/atomicfile"
	"github.com/zarrgw/zarrgw/host/runtime/config/hclread"
	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
)

// FileName is the lock file of a configuration file named zarrgw.hcl.
// Before each configuration had a lock file of its own it was the lock
// file of every configuration of its directory: a configuration whose own
// lock file does not exist still reads it (SourceFor).
const FileName = "zarrgw.lock.hcl"

// PathFor is the lock file of the configuration file at path: NAME.hcl
// is locked in NAME.lock.hcl beside it (zarrgw.hcl in zarrgw.lock.hcl), so
// that configurations sharing a directory never share pins, as each has
// plugins of its own. A name not ending in .hcl gets .lock.hcl appended.
func PathFor(path string) string {
	return filepath.Join(filepath.Dir(path), NameFor(path))
}

// NameFor is the file name of the lock file of the configuration file
// at path.
func NameFor(path string) string {
	base := filepath.Base(path)
	if path == "" || base == "." || base == string(filepath.Separator) {
		return FileName
	}
	return strings.TrimSuffix(base, ".hcl") + ".lock.hcl"
}

// SourceFor is the lock file a configuration at path reads: its own
// when it exists, else the directory's zarrgw.lock.hcl when that exists
// (the shared lock file of earlier versions), else its own (missing, so
// empty).
func SourceFor(path string) string {
	return SourceIn(filepath.Dir(path), NameFor(path))
}

// SourceIn is SourceFor for the lock file called name (NameFor) of a
// configuration in dir.
func SourceIn(dir, name string) string {
	own := filepath.Join(dir, name)
	if _, err := os.Stat(own); err == nil {
		return own
	}
	shared := filepath.Join(dir, FileName)
	if shared != own {
		if _, err := os.Stat(shared); err == nil {
			return shared
		}
	}
	return own
}

// Lock pins plugin binaries to checksums, like Terraform's provider lock
// file, so the configuration itself need not carry them.
type Lock struct {
	// Plugins is keyed by source address.
	Plugins map[string]Entry
}

// Entry is one plugin's entry of a lock file.
type Entry struct {
	// SHA256 is the checksum of a binary given by path, in lower-case hex;
	// Modules, for one that is a Python script, the h1: hash of the Python
	// files beside it (entries written before it was recorded have none,
	// and their Python plugins must be locked again).
	SHA256  string
	Modules string
	// Version is the version "zarrgw init" installed of a plugin given by
	// version, Constraints the constraint it met then (for readers: it
	// decides nothing), and Hashes the hashes of its packages, "h1:..."
	// and "zh:...", for every platform recorded.
	Version     string
	Constraints string
	Hashes      []string
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

// String lists the names with their kinds: "codec xor, store zip".
func (s Served) String() string {
	var parts []string
	for _, a := range servedAttrs {
		for _, n := range *s.list(a.kind) {
			parts = append(parts, string(a.kind)+" "+n)
		}
	}
	if len(parts) == 0 {
		return "nothing known"
	}
	return strings.Join(parts, ", ")
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
	{Name: "sha256"}, {Name: "modules"}, {Name: "version"}, {Name: "constraints"}, {Name: "hashes"},
	{Name: "codecs"}, {Name: "stores"}, {Name: "transformers"},
}}

// Load reads a lock file; a missing file is an empty lock.
func Load(path string) (*Lock, hcl.Diagnostics) {
	return Read(hclparse.NewParser(), path)
}

// Parse decodes a lock file held in memory.
func Parse(src []byte, filename string) (*Lock, hcl.Diagnostics) {
	f, diags := hclread.ParseSource(hclparse.NewParser(), src, filename)
	if diags.HasErrors() {
		return empty(), diags
	}
	return decodeLock(f.Body)
}

// Read is Load with parser p, which keeps the file's source for printing
// diagnostics with snippets (a configuration's parser, so that its
// diagnostics and its lock file's print alike).
func Read(p *hclparse.Parser, path string) (*Lock, hcl.Diagnostics) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return empty(), nil
	}
	f, diags := hclread.ParseFile(p, path)
	if diags.HasErrors() {
		return empty(), diags
	}
	return decodeLock(f.Body)
}

func empty() *Lock { return &Lock{Plugins: map[string]Entry{}} }

func decodeLock(body hcl.Body) (*Lock, hcl.Diagnostics) {
	l := empty()
	content, diags := body.Content(lockSchema)
	for _, b := range content.Blocks {
		source := b.Labels[0]
		if prev, ok := l.Plugins[source]; ok {
			diags = append(diags, hclread.Duplicate(fmt.Sprintf("plugin %q", source), b.LabelRanges[0], prev.DeclRange))
			continue
		}
		p, more := decodeEntry(source, b)
		diags = append(diags, more...)
		if !more.HasErrors() {
			l.Plugins[source] = p
		}
	}
	return l, diags
}

// decodeEntry decodes one entry: a binary given by path (sha256),
// or an installed plugin (version, constraints, hashes); and what it serves.
func decodeEntry(source string, b *hcl.Block) (Entry, hcl.Diagnostics) {
	p := Entry{DeclRange: b.DefRange}
	content, diags := b.Body.Content(lockPluginSchema)
	attrs := content.Attributes
	str := func(name string) string {
		a := attrs[name]
		if a == nil {
			return ""
		}
		v, more := hclread.ConstantOf(a.Expr, cty.String)
		diags = append(diags, more...)
		if more.HasErrors() || v.IsNull() {
			return ""
		}
		return v.AsString()
	}
	p.SHA256, p.Version, p.Constraints = strings.ToLower(str("sha256")), str("version"), str("constraints")
	switch {
	case diags.HasErrors():
	case (p.SHA256 == "") == (p.Version == ""):
		diags = append(diags, hclread.ErrorAt(b.DefRange, "Invalid lock entry",
			"Plugin %q: an entry gives either sha256 (a binary given by path) or version (an installed plugin).", source))
	case p.SHA256 != "" && !IsSHA256(p.SHA256):
		diags = append(diags, hclread.ErrorAt(attrs["sha256"].Expr.Range(), "Invalid sha256",
			"Plugin %q: sha256 must be 64 hexadecimal digits, not %q.", source, str("sha256")))
	case p.Version != "":
		diags = append(diags, p.decodeHashes(source, attrs["hashes"])...)
	}
	if a := attrs["modules"]; a != nil && !diags.HasErrors() {
		p.Modules = str("modules")
		diags = append(diags, CheckModulesHash(source, a, p.Modules, p.SHA256 != "")...)
	}
	served, more := decodeServed(attrs)
	p.Serves = served
	return p, append(diags, more...)
}

// CheckModulesHash checks the modules = "h1:..." of a plugin given by path
// (byPath), in its block or its lock entry.
func CheckModulesHash(source string, a *hcl.Attribute, h1 string, byPath bool) hcl.Diagnostics {
	switch {
	case !byPath:
		return hcl.Diagnostics{hclread.ErrorAt(a.Expr.Range(), "modules of an installed plugin",
			"Plugin %q: modules pins the Python files beside a script given by path; an installed plugin's package hashes cover all its files.", source)}
	case !strings.HasPrefix(h1, pluginpkg.H1) || len(h1) == len(pluginpkg.H1):
		return hcl.Diagnostics{hclread.ErrorAt(a.Expr.Range(), "Invalid modules hash",
			"Plugin %q: modules is the \"h1:\" hash of a Python plugin's files, not %q.", source, h1)}
	}
	return nil
}

// decodeHashes reads an installed plugin's package hashes, each "h1:..."
// or "zh:...".
func (p *Entry) decodeHashes(source string, a *hcl.Attribute) hcl.Diagnostics {
	if a == nil {
		return hcl.Diagnostics{hclread.ErrorAt(p.DeclRange, "Lock entry without hashes",
			"Plugin %q: an installed plugin's entry lists the hashes of its packages.", source)}
	}
	v, diags := hclread.ConstantOf(a.Expr, cty.List(cty.String))
	if diags.HasErrors() || v.IsNull() {
		return diags
	}
	for _, h := range hclread.StringList(v) {
		if !pluginpkg.Known(h) {
			return append(diags, hclread.ErrorAt(a.Expr.Range(), "Invalid hash",
				"Plugin %q: %q is not a package hash: each is \"h1:\" or \"zh:\" and the hash.", source, h))
		}
		p.Hashes = append(p.Hashes, h)
	}
	return diags
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
		v, more := hclread.ConstantOf(attr.Expr, cty.List(cty.String))
		diags = append(diags, more...)
		if !more.HasErrors() && !v.IsNull() {
			*s.list(a.kind) = hclread.StringList(v)
		}
	}
	return s, diags
}

// Write writes l to path in canonical form, sorted by source address,
// formatted as Terraform formats its lock file. It replaces the file
// atomically, so a reader never sees half a lock.
func Write(path string, l *Lock) error {
	f := hclwrite.NewEmptyFile()
	body := f.Body()
	body.AppendUnstructuredTokens(hclwrite.Tokens{{
		Type: hclsyntax.TokenComment,
		Bytes: []byte("# Plugin versions, package hashes and binary checksums, and the names each\n" +
			"# plugin serves, written by \"zarrgw init\" and \"zarrgw plugins lock\".\n" +
			"# A plugin runs only if it matches. Commit this file with the configuration.\n"),
	}})
	sources := make([]string, 0, len(l.Plugins))
	for s := range l.Plugins {
		sources = append(sources, s)
	}
	sort.Strings(sources)
	for _, s := range sources {
		body.AppendNewline()
		writeEntry(body.AppendNewBlock("plugin", []string{s}).Body(), l.Plugins[s])
	}
	return atomicfile.WriteBytes(path, 0o644, hclwrite.Format(f.Bytes()))
}

func writeEntry(body *hclwrite.Body, p Entry) {
	if p.SHA256 != "" {
		body.SetAttributeValue("sha256", cty.StringVal(p.SHA256))
	}
	if p.Modules != "" {
		body.SetAttributeValue("modules", cty.StringVal(p.Modules))
	}
	if p.Version != "" {
		body.SetAttributeValue("version", cty.StringVal(p.Version))
		if p.Constraints != "" {
			body.SetAttributeValue("constraints", cty.StringVal(p.Constraints))
		}
		body.SetAttributeRaw("hashes", multilineList(sortedUnique(p.Hashes)))
	}
	for _, a := range servedAttrs {
		if names := *p.Serves.list(a.kind); len(names) > 0 {
			body.SetAttributeValue(a.name, hclread.StringListVal(names))
		}
	}
}

// multilineList is a list of strings one per line, as Terraform writes
// hashes, so that a change to one shows as one line in a diff.
func multilineList(ss []string) hclwrite.Tokens {
	toks := hclwrite.Tokens{{Type: hclsyntax.TokenOBrack, Bytes: []byte("[")}, {Type: hclsyntax.TokenNewline, Bytes: []byte("\n")}}
	for _, s := range ss {
		toks = append(toks, hclwrite.TokensForValue(cty.StringVal(s))...)
		toks = append(toks, &hclwrite.Token{Type: hclsyntax.TokenComma, Bytes: []byte(",")}, &hclwrite.Token{Type: hclsyntax.TokenNewline, Bytes: []byte("\n")})
	}
	return append(toks, &hclwrite.Token{Type: hclsyntax.TokenCBrack, Bytes: []byte("]")})
}

func sortedUnique(ss []string) []string {
	out := slices.Clone(ss)
	slices.Sort(out)
	return slices.Compact(out)
}

// sha256Hex is a SHA-256 as lock files and plugin blocks write it.
var sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)

// IsSHA256 reports whether s is a SHA-256 in lower-case hex.
func IsSHA256(s string) bool { return sha256Hex.MatchString(s) }
