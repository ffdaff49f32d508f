package hclread

import (
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// StoreRef identifies a store block: store "TYPE" "NAME".
type StoreRef struct{ Type, Name string }

// String returns the reference as written in HCL: store.TYPE.NAME.
func (r StoreRef) String() string { return "store." + r.Type + "." + r.Name }

// ProviderRoot is the root of identity_provider.NAME references.
const ProviderRoot = "identity_provider"

// Scope is what a configuration's expressions may refer to: var.NAME,
// store.TYPE.NAME, identity_provider.NAME and path.config.
type Scope struct {
	// Variables holds every declared variable: its value, or unknown when
	// it has none because of an error already reported, so that
	// references to it add no errors to that one.
	Variables map[string]cty.Value
	Stores    map[StoreRef]bool
	Providers map[string]bool
	// Dir is the configuration file's directory, which relative paths
	// are taken relative to.
	Dir string
}

// context puts the scope's names in an evaluation context. A store
// reference evaluates to its identity, "store.TYPE.NAME", an identity
// provider's to "identity_provider.NAME"; path.config is the absolute
// directory of the configuration file, as Terraform's path.module, so a
// file can name places beside itself.
func (s Scope) context() *hcl.EvalContext {
	byType := map[string]map[string]cty.Value{}
	for ref := range s.Stores {
		if byType[ref.Type] == nil {
			byType[ref.Type] = map[string]cty.Value{}
		}
		byType[ref.Type][ref.Name] = cty.StringVal(ref.String())
	}
	stores := map[string]cty.Value{}
	for typ, names := range byType {
		stores[typ] = cty.ObjectVal(names)
	}
	dir, err := filepath.Abs(s.Dir)
	if err != nil {
		dir = s.Dir
	}
	providers := map[string]cty.Value{}
	for name := range s.Providers {
		providers[name] = cty.StringVal(ProviderRoot + "." + name)
	}
	return &hcl.EvalContext{Variables: map[string]cty.Value{
		"var":        cty.ObjectVal(s.Variables),
		"store":      cty.ObjectVal(stores),
		"path":       cty.ObjectVal(map[string]cty.Value{"config": cty.StringVal(dir)}),
		ProviderRoot: cty.ObjectVal(providers),
	}}
}

// checkRefs reports references to anything but declared variables and
// stores, naming what is declared: HCL's own message ("object has no
// attribute") would not say that the declaration is missing.
func (s Scope) checkRefs(traversals []hcl.Traversal) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, t := range traversals {
		rng := t.SourceRange()
		switch t.RootName() {
		case "var":
			name, ok := attrStep(t, 1)
			if !ok {
				diags = append(diags, ErrorAt(rng, "Invalid variable reference", "Refer to a variable as var.NAME."))
				continue
			}
			if _, ok := s.Variables[name]; !ok {
				diags = append(diags, ErrorAt(rng, "Reference to undeclared variable",
					"No variable %q is declared.%s Declare it with a variable %q block.",
					name, KnownList("Declared variables", SortedKeys(s.Variables), name), name))
			}
		case "store":
			typ, ok1 := attrStep(t, 1)
			name, ok2 := attrStep(t, 2)
			if !ok1 || !ok2 {
				diags = append(diags, ErrorAt(rng, "Invalid store reference", "Refer to a store as store.TYPE.NAME."))
				continue
			}
			ref := StoreRef{typ, name}
			if !s.Stores[ref] {
				var declared []string
				for r := range s.Stores {
					declared = append(declared, r.String())
				}
				sort.Strings(declared)
				diags = append(diags, ErrorAt(rng, "Reference to undeclared store",
					"No store %q %q is declared.%s", typ, name, KnownList("Declared stores", declared, ref.String())))
			}
		case ProviderRoot:
			name, ok := attrStep(t, 1)
			if !ok || len(t) != 2 {
				diags = append(diags, ErrorAt(rng, "Invalid identity provider reference", "Refer to an identity provider as identity_provider.NAME."))
			} else if !s.Providers[name] {
				diags = append(diags, ErrorAt(rng, "Reference to undeclared identity provider",
					"No identity_provider %q is declared.%s", name, KnownList("Declared", SortedKeys(s.Providers), name)))
			}
		case "path":
			if name, ok := attrStep(t, 1); !ok || name != "config" || len(t) != 2 {
				diags = append(diags, ErrorAt(rng, "Invalid path reference", "path.config, the configuration file's directory, is the only path value."))
			}
		default:
			diags = append(diags, ErrorAt(rng, "Unknown reference",
				"%q is not defined here; only var.NAME, store.TYPE.NAME, identity_provider.NAME and path.config may be referred to.", t.RootName()))
		}
	}
	return diags
}

func attrStep(t hcl.Traversal, i int) (string, bool) {
	if len(t) <= i {
		return "", false
	}
	a, ok := t[i].(hcl.TraverseAttr)
	return a.Name, ok
}

// StoreRef parses a store identity, "store.TYPE.NAME", and reports whether
// that store is declared.
func (s Scope) StoreRef(text string) (StoreRef, bool) {
	parts := strings.Split(text, ".")
	if len(parts) != 3 || parts[0] != "store" {
		return StoreRef{}, false
	}
	ref := StoreRef{Type: parts[1], Name: parts[2]}
	return ref, s.Stores[ref]
}

// RelPath resolves a path written in the configuration: relative to the
// configuration file's directory, made absolute.
func (s Scope) RelPath(p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(s.Dir, p)
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return p
}

// FromVariable reports whether any of traversals refers to a variable.
func FromVariable(traversals []hcl.Traversal) bool {
	for _, t := range traversals {
		if t.RootName() == "var" {
			return true
		}
	}
	return false
}

// OnlyVariable returns the variable expr refers to, when it refers to
// exactly one.
func OnlyVariable(expr hcl.Expression) (string, bool) {
	var names []string
	for _, t := range expr.Variables() {
		if name, ok := attrStep(t, 1); ok && t.RootName() == "var" {
			names = append(names, name)
		}
	}
	if len(names) != 1 {
		return "", false
	}
	return names[0], true
}
