package config

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/go-version"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/zarrgw/zarrgw/host/runtime/config/hclread"
	"github.com/zarrgw/zarrgw/host/runtime/config/lockfile"
	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
)

var pluginSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "path"}, {Name: "version"}, {Name: "sha256"}, {Name: "args"}, {Name: "env"}, {Name: "inherit_env"},
	{Name: "otel_headers"}, {Name: "modules"},
}}

var (
	sourceSegment = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	sha256Hex     = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// plugins decodes the plugin blocks, pins each to a checksum and, when a
// prober is given, learns what the pinned ones serve.
func (d *decoder) plugins(blocks []*hcl.Block) hcl.Diagnostics {
	var diags hcl.Diagnostics
	first := map[string]hcl.Range{}
	for _, b := range blocks {
		source, at := b.Labels[0], b.LabelRanges[0]
		if !validSource(source) {
			diags = append(diags, hclread.ErrorAt(at, "Invalid plugin address",
				"%q is not a plugin address: write slash-separated segments of letters, digits, dots, dashes and underscores, such as \"example.org/acme/bitshave\".", source))
			continue
		}
		if r, ok := first[source]; ok {
			diags = append(diags, hclread.Duplicate(fmt.Sprintf("plugin %q", source), at, r))
			continue
		}
		first[source] = at
		p, ok, more := d.plugin(b)
		diags = append(diags, more...)
		if ok {
			d.cfg.Plugins = append(d.cfg.Plugins, p)
		}
	}
	if diags.HasErrors() {
		return diags
	}
	for i := range d.cfg.Plugins {
		diags = append(diags, d.probe(&d.cfg.Plugins[i])...)
	}
	return diags
}

// probe starts a pinned plugin and records what it serves. A prober
// leaves alone (ErrNotProbed) a binary that is absent or differs from its
// pin, which VerifyPlugins reports; a plugin that fails is an error.
func (d *decoder) probe(p *Plugin) hcl.Diagnostics {
	if d.opts.Probe == nil || p.SHA256 == "" {
		return nil // never run a binary nobody vouched for
	}
	ms, err := d.opts.Probe(*p)
	if errors.Is(err, ErrNotProbed) {
		return nil // the names it provides stay assumed, with a warning
	}
	if err != nil {
		return hcl.Diagnostics{hclread.ErrorAt(p.DeclRange, "Plugin could not be probed",
			"Plugin %q did not say what it serves: %s.", p.Source, withoutPluginName(err, p.Source))}
	}
	p.Probed, p.Manifests, p.Serves = true, ms, ServedBy(ms)
	return nil
}

// withoutPluginName is err's message without the "plugin SOURCE: " it
// starts with, for messages that name the plugin already.
func withoutPluginName(err error, source string) string {
	msg := err.Error()
	for {
		rest, ok := strings.CutPrefix(msg, "plugin "+source+": ")
		if !ok {
			return msg
		}
		msg = rest
	}
}

func validSource(s string) bool {
	for _, seg := range strings.Split(s, "/") {
		if !sourceSegment.MatchString(seg) {
			return false
		}
	}
	return true
}

// plugin decodes one plugin block; the bool is false when it cannot be
// used at all.
func (d *decoder) plugin(b *hcl.Block) (Plugin, bool, hcl.Diagnostics) {
	p := Plugin{Source: b.Labels[0], DeclRange: b.DefRange}
	content, diags := b.Body.Content(pluginSchema)
	attrs := content.Attributes
	path, ok, more := d.ev.Attr(attrs, "path", cty.String)
	diags = append(diags, more...)
	if ok && path.AsString() == "" {
		diags = append(diags, hclread.ErrorAt(attrs["path"].Expr.Range(), "Empty plugin path", "Give the path of the plugin's binary."))
	} else if ok {
		// Absolute, so that exec never searches $PATH for a bare name.
		p.Path = d.ev.RelPath(path.AsString())
	}
	sum, ok, more := d.ev.Attr(attrs, "sha256", cty.String)
	diags = append(diags, more...)
	if ok {
		hex := strings.ToLower(sum.AsString())
		if !lockfile.IsSHA256(hex) {
			diags = append(diags, hclread.ErrorAt(attrs["sha256"].Expr.Range(), "Invalid sha256",
				"Plugin %q: sha256 must be the 64 hexadecimal digits of the binary's SHA-256, not %q (%d characters).",
				p.Source, sum.AsString(), len(sum.AsString())))
		} else {
			p.SHA256, p.PinnedBy = hex, PinConfig
		}
	}
	diags = append(diags, d.pluginModules(&p, attrs)...)
	args, ok, more := d.ev.Attr(attrs, "args", cty.List(cty.String))
	diags = append(diags, more...)
	if ok {
		p.Args = hclread.StringList(args)
	}
	env, ok, more := d.ev.Attr(attrs, "env", cty.Map(cty.String))
	diags = append(diags, more...)
	if ok {
		p.Env = map[string]string{}
		for k, e := range env.AsValueMap() {
			if !envName.MatchString(k) {
				diags = append(diags, hclread.ErrorAt(attrs["env"].Expr.Range(), "Invalid environment variable name",
					"Plugin %q: %q is not an environment variable name.", p.Source, k))
			}
			if !e.IsNull() {
				p.Env[k] = e.AsString()
			}
		}
	}
	inherit, ok, more := d.ev.Attr(attrs, "inherit_env", cty.Bool)
	diags = append(diags, more...)
	if ok {
		p.InheritEnv = inherit.True()
	}
	headers, ok, more := d.ev.Attr(attrs, "otel_headers", cty.Bool)
	diags = append(diags, more...)
	if ok {
		p.OTELHeaders = headers.True()
	}
	diags = append(diags, d.pluginVersion(&p, b, attrs)...)
	if diags.HasErrors() {
		return p, false, diags
	}
	// An unpinned plugin still counts as declared: names that only it may
	// serve are then not reported as unknown besides its own error.
	return p, true, append(diags, d.pin(&p, attrs["sha256"])...)
}

// pluginModules decodes a block's modules, the pin of a Python plugin's
// files, given beside the sha256 that pins its script.
func (d *decoder) pluginModules(p *Plugin, attrs hcl.Attributes) hcl.Diagnostics {
	v, ok, diags := d.ev.Attr(attrs, "modules", cty.String)
	if !ok || diags.HasErrors() {
		return diags
	}
	if attrs["sha256"] == nil {
		return append(diags, hclread.ErrorAt(attrs["modules"].Expr.Range(), "modules without sha256",
			"Plugin %q: modules pins the Python files beside a script that sha256 pins in the same block; give both, or record both with:\n  %s",
			p.Source, d.lockCommand()))
	}
	p.Modules = v.AsString()
	return append(diags, lockfile.CheckModulesHash(p.Source, attrs["modules"], p.Modules, attrs["version"] == nil)...)
}

// pluginVersion decodes a block's version constraint: such a plugin is
// installed by "zarrgw init" rather than given by path, and its address
// must be one a mirror can lay out (HOST/NAMESPACE/TYPE).
func (d *decoder) pluginVersion(p *Plugin, b *hcl.Block, attrs hcl.Attributes) hcl.Diagnostics {
	v, ok, diags := d.ev.Attr(attrs, "version", cty.String)
	switch {
	case diags.HasErrors():
		return diags
	case !ok && attrs["path"] == nil:
		return append(diags, hclread.ErrorAt(p.DeclRange, "Plugin without a binary",
			"Plugin %q: give version = \"...\" (a version constraint, for a plugin installed by \"zarrgw init\") or path = \"...\" (a binary on this machine).", p.Source))
	case !ok:
		return diags
	case attrs["path"] != nil:
		return append(diags, hclread.ErrorAt(attrs["version"].Expr.Range(), "Both path and version",
			"Plugin %q: a plugin is either a binary given by path or installed by version, not both.", p.Source))
	case attrs["sha256"] != nil:
		return append(diags, hclread.ErrorAt(attrs["sha256"].Expr.Range(), "sha256 of an installed plugin",
			"Plugin %q: sha256 pins a binary given by path; the hashes of an installed plugin are in %s.", p.Source, d.cfg.LockPath()))
	}
	if _, err := version.NewConstraint(v.AsString()); err != nil {
		return append(diags, hclread.ErrorAt(attrs["version"].Expr.Range(), "Invalid version constraint",
			"Plugin %q: %q is not a version constraint (%s): write for instance \"~> 1.2\", \">= 1.2, < 2.0\" or \"= 1.2.3\".", p.Source, v.AsString(), err))
	}
	if _, err := pluginpkg.ParseAddress(p.Source); err != nil {
		return append(diags, hclread.ErrorAt(b.LabelRanges[0], "Invalid address for an installed plugin", "%s.", err))
	}
	p.Constraints = v.AsString()
	return diags
}
