package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

var pluginSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "path", Required: true}, {Name: "sha256"}, {Name: "args"}, {Name: "env"}, {Name: "inherit_env"},
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
			diags = append(diags, diagf(at, "Invalid plugin address",
				"%q is not a plugin address: write slash-separated segments of letters, digits, dots, dashes and underscores, such as \"example.org/acme/bitshave\".", source))
			continue
		}
		if r, ok := first[source]; ok {
			diags = append(diags, duplicate(fmt.Sprintf("plugin %q", source), at, r))
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
		return hcl.Diagnostics{diagf(p.DeclRange, "Plugin could not be probed",
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
	path, ok, more := d.evalAttr(attrs, "path", cty.String)
	diags = append(diags, more...)
	if ok && path.AsString() == "" {
		diags = append(diags, diagf(attrs["path"].Expr.Range(), "Empty plugin path", "Give the path of the plugin's binary."))
	} else if ok {
		// Absolute, so that exec never searches $PATH for a bare name.
		p.Path = d.relPath(path.AsString())
	}
	sum, ok, more := d.evalAttr(attrs, "sha256", cty.String)
	diags = append(diags, more...)
	if ok {
		hex := strings.ToLower(sum.AsString())
		if !sha256Hex.MatchString(hex) {
			diags = append(diags, diagf(attrs["sha256"].Expr.Range(), "Invalid sha256",
				"Plugin %q: sha256 must be the 64 hexadecimal digits of the binary's SHA-256, not %q (%d characters).",
				p.Source, sum.AsString(), len(sum.AsString())))
		} else {
			p.SHA256, p.PinnedBy = hex, PinConfig
		}
	}
	args, ok, more := d.evalAttr(attrs, "args", cty.List(cty.String))
	diags = append(diags, more...)
	if ok {
		p.Args = stringList(args)
	}
	env, ok, more := d.evalAttr(attrs, "env", cty.Map(cty.String))
	diags = append(diags, more...)
	if ok {
		p.Env = map[string]string{}
		for k, e := range env.AsValueMap() {
			if !envName.MatchString(k) {
				diags = append(diags, diagf(attrs["env"].Expr.Range(), "Invalid environment variable name",
					"Plugin %q: %q is not an environment variable name.", p.Source, k))
			}
			if !e.IsNull() {
				p.Env[k] = e.AsString()
			}
		}
	}
	inherit, ok, more := d.evalAttr(attrs, "inherit_env", cty.Bool)
	diags = append(diags, more...)
	if ok {
		p.InheritEnv = inherit.True()
	}
	if diags.HasErrors() {
		return p, false, diags
	}
	// An unpinned plugin still counts as declared: names that only it may
	// serve are then not reported as unknown besides its own error.
	return p, true, append(diags, d.pin(&p, attrs["sha256"])...)
}

// pin completes p's checksum from the lock file: the two must agree when
// both give one, and a plugin needs one unless the lock file is being
// written, in which case it is pinned to its binary as it is now.
func (d *decoder) pin(p *Plugin, inline *hcl.Attribute) hcl.Diagnostics {
	var locked *LockedPlugin
	if d.opts.Lock != nil {
		if l, ok := d.opts.Lock.Plugins[p.Source]; ok {
			locked = &l
		}
	}
	switch {
	case d.opts.AllowUnpinned:
		return d.pinToFile(p)
	case locked != nil && p.SHA256 != "" && locked.SHA256 != p.SHA256:
		return hcl.Diagnostics{diagf(inline.Expr.Range(), "Checksum differs from the lock file",
			"Plugin %q is pinned to %s here and to %s at %s; remove one of them or correct it.",
			p.Source, p.SHA256, locked.SHA256, locked.DeclRange)}
	case locked != nil && p.SHA256 == "":
		p.SHA256, p.PinnedBy = locked.SHA256, PinLock
	case p.SHA256 == "":
		return hcl.Diagnostics{diagf(p.DeclRange, fmt.Sprintf("Plugin %q is not pinned", p.Source),
			"A plugin runs only when its binary matches a recorded checksum. Record it, and the names it serves, with:\n  %s",
			d.lockCommand())}
	}
	if locked != nil && locked.SHA256 == p.SHA256 {
		p.Serves = locked.Serves
	}
	return nil
}

// pinToFile pins p to its binary's current checksum, which must be the one
// its block gives, if any: the lock file cannot override the block.
func (d *decoder) pinToFile(p *Plugin) hcl.Diagnostics {
	sum, err := FileSHA256(p.Path)
	switch {
	case err != nil:
		return hcl.Diagnostics{diagf(p.DeclRange, "Plugin binary unreadable", "Plugin %q: %s.", p.Source, err)}
	case p.PinnedBy == PinConfig && sum != p.SHA256:
		return hcl.Diagnostics{diagf(p.DeclRange, "Plugin binary does not match its checksum",
			"Plugin %q: %s has SHA-256 %s, but the plugin block pins %s; correct or remove that sha256.", p.Source, p.Path, sum, p.SHA256)}
	}
	if p.PinnedBy != PinConfig {
		p.SHA256, p.PinnedBy = sum, PinFile
	}
	return nil
}

// lockCommand is the command that writes this configuration's lock file.
func (d *decoder) lockCommand() string { return LockCommand(d.cfg.Filename) }

// LockCommand is the command that writes the lock file of the
// configuration file named filename.
func LockCommand(filename string) string { return "zarrgw plugins lock -c " + filename }

// relPath resolves a path written in the configuration: relative to the
// configuration file's directory, made absolute.
func (d *decoder) relPath(p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(d.cfg.Dir, p)
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return p
}
