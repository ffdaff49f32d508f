package config

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zarrgw/zarrgw/host/runtime/config/hclread"
	"github.com/zclconf/go-cty/cty"
)

// IdentityProvider is an OpenID Connect provider whose ID tokens (JWTs)
// identify callers: identity_provider "NAME" { issuer, audience }.
type IdentityProvider struct {
	Name string
	// Issuer is the exact "iss" of its tokens; the provider's discovery
	// document is at Issuer + "/.well-known/openid-configuration".
	Issuer string
	// Audience lists what a token's "aud" must contain one of (the client
	// ID the provider issues the tokens for).
	Audience []string
	// Algorithms is the allow-list of signature algorithms; nil is the
	// verifier's default (asymmetric algorithms only).
	Algorithms []string
	// Leeway is the clock skew allowed on exp, nbf and iat; 0 is the
	// verifier's default.
	Leeway    time.Duration
	DeclRange hcl.Range
}

// RateLimit bounds a principal's traffic (or an anonymous client
// address's): a token bucket of Burst requests refilled at
// RequestsPerSecond, and optionally a byte rate for bodies.
type RateLimit struct {
	RequestsPerSecond float64
	Burst             int
	// BytesPerSecond paces response bodies (what the principal reads);
	// 0 = no bound. Request bodies are not paced: min_upload_rate would
	// refuse an upload paced below it.
	BytesPerSecond int64
	// PerSubject gives each subject (a JWT's "sub", a session's subject)
	// acting as the principal a bucket of its own, instead of one for the
	// principal's whole traffic.
	PerSubject bool
	DeclRange  hcl.Range
}

// STS is the S3 listener's AssumeRoleWithWebIdentity: temporary S3
// credentials for a principal defined by claims, sealed so that every
// replica with the same keys verifies them without shared state.
type STS struct {
	// SealKeys seal and open session tokens: the first seals, every one
	// opens (rotation). Each at least 32 characters, from variables.
	SealKeys []string
	// DefaultDuration is a session's length when the request gives none;
	// MaxDuration the longest a request may ask for.
	DefaultDuration, MaxDuration time.Duration
	DeclRange                    hcl.Range
}

// IdentityProvider returns the identity provider called name.
func (c *Config) IdentityProvider(name string) (*IdentityProvider, bool) {
	for i := range c.IdentityProviders {
		if c.IdentityProviders[i].Name == name {
			return &c.IdentityProviders[i], true
		}
	}
	return nil, false
}

// identityPrefix is the root of identity_provider.NAME references.
const identityPrefix = "identity_provider"

var identityProviderSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "issuer", Required: true}, {Name: "audience", Required: true}, {Name: "algorithms"}, {Name: "leeway"}}}

// Symmetric and absent signatures are refused: a public key would be a
// shared secret, and "none" no signature at all.
var refusedAlgorithms = []string{"none", "HS256", "HS384", "HS512"}

// indexIdentityProviders records every identity_provider block before
// anything is evaluated, so principals may refer to providers declared
// after them.
func (d *decoder) indexIdentityProviders(blocks []*hcl.Block) hcl.Diagnostics {
	var diags hcl.Diagnostics
	d.providers = map[string]*hcl.Block{}
	for _, b := range blocks {
		name := b.Labels[0]
		if !hclsyntax.ValidIdentifier(name) {
			diags = append(diags, hclread.ErrorAt(b.LabelRanges[0], "Invalid identity provider name",
				"%q cannot be referred to as identity_provider.NAME: use letters, digits, underscores and dashes, starting with a letter.", name))
			continue
		}
		if prev, ok := d.providers[name]; ok {
			diags = append(diags, hclread.Duplicate(fmt.Sprintf("identity_provider %q", name), b.LabelRanges[0], prev.LabelRanges[0]))
			continue
		}
		d.providers[name] = b
	}
	return diags
}

// identityProviders decodes the blocks indexIdentityProviders kept. Two
// providers may not share an issuer: a token is verified by the provider
// its issuer names, so the second would never see one (list both
// audiences in one block instead).
func (d *decoder) identityProviders(blocks []*hcl.Block) hcl.Diagnostics {
	var diags hcl.Diagnostics
	byIssuer := map[string]IdentityProvider{}
	for _, b := range blocks {
		if d.providers[b.Labels[0]] != b {
			continue // invalid or duplicate: reported by the index
		}
		p, more := d.identityProvider(b)
		diags = append(diags, more...)
		if first, ok := byIssuer[p.Issuer]; ok && !more.HasErrors() {
			diags = append(diags, hclread.ErrorAt(p.DeclRange, "Issuer of two identity providers",
				"identity_provider %q has the issuer of identity_provider %q (%s); a token goes to the provider of its issuer, so declare one provider and list both audiences in its audience.", p.Name, first.Name, At(first.DeclRange)))
			continue
		}
		if !more.HasErrors() {
			byIssuer[p.Issuer] = p
			d.cfg.IdentityProviders = append(d.cfg.IdentityProviders, p)
		}
	}
	return diags
}

func (d *decoder) identityProvider(b *hcl.Block) (IdentityProvider, hcl.Diagnostics) {
	p := IdentityProvider{Name: b.Labels[0], DeclRange: b.DefRange}
	content, diags := b.Body.Content(identityProviderSchema)
	attrs := content.Attributes
	if v, ok, more := d.evalAttr(attrs, "issuer", cty.String); ok {
		p.Issuer = v.AsString()
		if err := checkIssuer(p.Issuer); err != nil {
			diags = append(diags, hclread.ErrorAt(attrs["issuer"].Expr.Range(), "Invalid issuer",
				"identity_provider %q: %s.", p.Name, err))
		}
	} else {
		diags = append(diags, more...)
	}
	diags = append(diags, d.stringOrList(attrs, "audience", p.Name, &p.Audience)...)
	diags = append(diags, d.algorithms(attrs, &p)...)
	if v, ok, more := d.evalAttr(attrs, "leeway", cty.String); ok {
		dur, err := time.ParseDuration(v.AsString())
		if err != nil || dur < 0 || dur > 10*time.Minute {
			diags = append(diags, hclread.ErrorAt(attrs["leeway"].Expr.Range(), "Invalid leeway",
				"identity_provider %q: leeway must be a duration from \"0s\" to \"10m\", such as \"30s\".", p.Name))
		}
		p.Leeway = dur
	} else {
		diags = append(diags, more...)
	}
	return p, diags
}

// checkIssuer accepts an absolute https URL, or http for a provider on
// this machine (tests, development).
func checkIssuer(s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("the issuer must be the provider's absolute URL, exactly as its tokens' \"iss\" claim gives it, not %q", s)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if h := u.Hostname(); h == "localhost" || strings.HasPrefix(h, "127.") || h == "::1" {
			return nil
		}
	}
	return fmt.Errorf("the issuer %q must use https (http only for a provider on this machine): its keys decide who is who", s)
}

// stringOrList decodes an attribute given as a string or a list of
// non-empty strings.
func (d *decoder) stringOrList(attrs hcl.Attributes, name, owner string, dst *[]string) hcl.Diagnostics {
	v, ok, diags := d.evalAttr(attrs, name, cty.DynamicPseudoType)
	if !ok {
		return diags
	}
	if v.Type() == cty.String {
		v = cty.ListVal([]cty.Value{v})
	}
	list, err := convertList(v)
	if err == nil && len(list) == 0 {
		err = fmt.Errorf("it is empty")
	}
	for _, s := range list {
		if strings.TrimSpace(s) == "" && err == nil {
			err = fmt.Errorf("an entry is empty")
		}
	}
	if err != nil {
		return append(diags, hclread.ErrorAt(attrs[name].Expr.Range(), "Invalid "+name,
			"identity_provider %q: %s must be a string or a list of strings (%s).", owner, name, err))
	}
	*dst = list
	return diags
}

func convertList(v cty.Value) ([]string, error) {
	if !v.Type().IsListType() && !v.Type().IsTupleType() {
		return nil, fmt.Errorf("got %s", v.Type().FriendlyName())
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if e.IsNull() || e.Type() != cty.String {
			return nil, fmt.Errorf("an entry is not a string")
		}
		out = append(out, e.AsString())
	}
	return out, nil
}

func (d *decoder) algorithms(attrs hcl.Attributes, p *IdentityProvider) hcl.Diagnostics {
	v, ok, diags := d.evalAttr(attrs, "algorithms", cty.List(cty.String))
	if !ok {
		return diags
	}
	p.Algorithms = hclread.StringList(v)
	for _, alg := range p.Algorithms {
		if slices.Contains(refusedAlgorithms, strings.ToUpper(alg)) || strings.EqualFold(alg, "none") {
			return append(diags, hclread.ErrorAt(attrs["algorithms"].Expr.Range(), "Refused algorithm",
				"identity_provider %q: %q cannot verify a provider's tokens: only asymmetric algorithms (RS*, PS*, ES*, EdDSA) are accepted, since a provider's published key would be a shared secret for HMAC, and \"none\" signs nothing.", p.Name, alg))
		}
	}
	if len(p.Algorithms) == 0 {
		diags = append(diags, hclread.ErrorAt(attrs["algorithms"].Expr.Range(), "Invalid algorithms",
			"identity_provider %q: algorithms is empty; leave it out for the default (RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA).", p.Name))
	}
	return diags
}

// providerRef reads identity_provider.NAME.
func (d *decoder) providerRef(attrs hcl.Attributes, p *Principal) hcl.Diagnostics {
	v, ok, diags := d.evalAttr(attrs, "identity_provider", cty.String)
	if !ok {
		return diags
	}
	name, found := strings.CutPrefix(v.AsString(), identityPrefix+".")
	if !found || d.providers[name] == nil {
		return append(diags, hclread.ErrorAt(attrs["identity_provider"].Expr.Range(), "Invalid identity_provider",
			"Principal %q: refer to an identity provider as identity_provider.NAME.", p.Name))
	}
	p.IdentityProvider = name
	return diags
}

// principalClaims decodes identity_provider and claims: both or neither.
// claims = {} (explicitly empty) admits every token of the provider.
func (d *decoder) principalClaims(b *hcl.Block, attrs hcl.Attributes, p *Principal) hcl.Diagnostics {
	diags := d.providerRef(attrs, p)
	v, ok, more := d.evalAttr(attrs, "claims", cty.Map(cty.String))
	diags = append(diags, more...)
	hasRef := attrs["identity_provider"] != nil
	switch {
	case hasRef && attrs["claims"] == nil:
		return append(diags, hclread.ErrorAt(b.DefRange, "Principal without claims",
			"Principal %q names an identity provider but no claims: give claims = { groups = \"...\" } (every listed claim must match), or claims = {} to admit every token of the provider.", p.Name))
	case !hasRef && attrs["claims"] != nil:
		return append(diags, hclread.ErrorAt(attrs["claims"].Expr.Range(), "Claims without identity provider",
			"Principal %q: claims are matched against tokens of an identity provider; add identity_provider = identity_provider.NAME.", p.Name))
	case !ok:
		return diags
	}
	p.Claims = map[string]string{}
	for k, val := range v.AsValueMap() {
		if strings.TrimSpace(k) == "" || val.IsNull() {
			return append(diags, hclread.ErrorAt(attrs["claims"].Expr.Range(), "Invalid claims",
				"Principal %q: every claim needs a name and a value.", p.Name))
		}
		p.Claims[k] = val.AsString()
	}
	return diags
}

var rateLimitSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "requests_per_second", Required: true}, {Name: "burst"}, {Name: "bytes_per_second"}, {Name: "per"}}}

// rateLimit decodes a rate_limit block (of a principal, or the server's
// anonymous_rate_limit, whose buckets are per client address: per is not
// accepted there).
func (d *decoder) rateLimit(b *hcl.Block, owner string, anonymous bool) (*RateLimit, hcl.Diagnostics) {
	l := &RateLimit{DeclRange: b.DefRange}
	content, diags := b.Body.Content(rateLimitSchema)
	attrs := content.Attributes
	if v, ok, more := d.evalAttr(attrs, "requests_per_second", cty.Number); ok {
		l.RequestsPerSecond, _ = v.AsBigFloat().Float64()
		if l.RequestsPerSecond <= 0 || l.RequestsPerSecond > 1e7 {
			diags = append(diags, hclread.ErrorAt(attrs["requests_per_second"].Expr.Range(), "Invalid requests_per_second",
				"%s: requests_per_second must be a positive number (up to 10000000).", owner))
		}
	} else {
		diags = append(diags, more...)
	}
	l.Burst = int(max(1, l.RequestsPerSecond))
	if v, ok, more := d.evalAttr(attrs, "burst", cty.Number); ok {
		n, acc := v.AsBigFloat().Int64()
		if acc != 0 || n < 1 || n > 1<<24 {
			diags = append(diags, hclread.ErrorAt(attrs["burst"].Expr.Range(), "Invalid burst",
				"%s: burst must be a whole number of requests from 1 to 16777216.", owner))
		}
		l.Burst = int(n)
	} else {
		diags = append(diags, more...)
	}
	if v, ok, more := d.evalAttr(attrs, "bytes_per_second", cty.DynamicPseudoType); ok {
		if v.Type() == cty.String {
			v = cty.StringVal(strings.TrimSuffix(strings.TrimSpace(v.AsString()), "/s"))
		}
		n, err := sizeOrZero(v)
		if err != nil {
			diags = append(diags, hclread.ErrorAt(attrs["bytes_per_second"].Expr.Range(), "Invalid bytes_per_second",
				"%s: bytes_per_second must be a size such as \"100MiB\" (or \"100MiB/s\"; 0 for no bound): %s.", owner, err))
		}
		l.BytesPerSecond = n
	} else {
		diags = append(diags, more...)
	}
	if v, ok, more := d.evalAttr(attrs, "per", cty.String); ok {
		switch v.AsString() {
		case "principal":
		case "subject":
			l.PerSubject = true
		default:
			diags = append(diags, hclread.ErrorAt(attrs["per"].Expr.Range(), "Invalid per",
				"%s: per is \"principal\" (one bucket for all its traffic, the default) or \"subject\" (one per user or session acting as it).", owner))
		}
		if anonymous {
			diags = append(diags, hclread.ErrorAt(attrs["per"].Expr.Range(), "Unexpected per",
				"%s: anonymous traffic is limited per client address; per does not apply.", owner))
		}
	} else {
		diags = append(diags, more...)
	}
	return l, diags
}

// rateLimitBlocks decodes at most one rate_limit block of type kind.
func (d *decoder) rateLimitBlocks(blocks hcl.Blocks, kind, owner string, anonymous bool) (*RateLimit, hcl.Diagnostics) {
	var out *RateLimit
	var diags hcl.Diagnostics
	for _, b := range blocks {
		if b.Type != kind {
			continue
		}
		if out != nil {
			diags = append(diags, hclread.Duplicate(kind+" block", b.DefRange, out.DeclRange))
			continue
		}
		l, more := d.rateLimit(b, owner, anonymous)
		diags = append(diags, more...)
		out = l
	}
	return out, diags
}

var stsSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "seal_keys", Required: true}, {Name: "default_duration"}, {Name: "max_duration"}}}

// minSealKey is the shortest seal key accepted: 32 characters of a
// random secret are at least 128 bits even as hex.
const minSealKey = 32

// sts decodes the s3 block's sts block.
func (d *decoder) sts(b *hcl.Block) (*STS, hcl.Diagnostics) {
	s := &STS{DefaultDuration: time.Hour, MaxDuration: 12 * time.Hour, DeclRange: b.DefRange}
	content, diags := b.Body.Content(stsSchema)
	attrs := content.Attributes
	if v, ok, more := d.evalAttr(attrs, "seal_keys", cty.List(cty.String)); ok {
		s.SealKeys = hclread.StringList(v)
		at := attrs["seal_keys"].Expr.Range()
		if len(s.SealKeys) == 0 {
			diags = append(diags, hclread.ErrorAt(at, "No seal keys", "sts: seal_keys needs at least one key (the first seals new sessions, every one opens them)."))
		}
		for i, k := range s.SealKeys {
			if len(strings.TrimSpace(k)) < minSealKey {
				diags = append(diags, hclread.ErrorAt(at, "Seal key too short",
					"sts: seal key %d is %d characters; a seal key must be at least %d characters of a random secret, set from a variable (for example: openssl rand -hex 32).", i+1, len(strings.TrimSpace(k)), minSealKey))
			}
		}
		if len(attrs["seal_keys"].Expr.Variables()) == 0 {
			diags = append(diags, hclread.ErrorAt(at, "Seal key in the file",
				"sts: set seal_keys from variables (var.NAME, with env = \"...\" in the variable block), so the keys stay out of the file."))
		}
	} else {
		diags = append(diags, more...)
	}
	for name, dst := range map[string]*time.Duration{"default_duration": &s.DefaultDuration, "max_duration": &s.MaxDuration} {
		v, ok, more := d.evalAttr(attrs, name, cty.String)
		diags = append(diags, more...)
		if !ok {
			continue
		}
		dur, err := time.ParseDuration(v.AsString())
		if err != nil || dur < 15*time.Minute || dur > 7*24*time.Hour {
			diags = append(diags, hclread.ErrorAt(attrs[name].Expr.Range(), "Invalid "+name,
				"sts: %s must be a duration from \"15m\" to \"168h\", such as \"1h\".", name))
			continue
		}
		*dst = dur
	}
	if s.DefaultDuration > s.MaxDuration {
		diags = append(diags, hclread.ErrorAt(b.DefRange, "Invalid default_duration",
			"sts: default_duration (%s) is longer than max_duration (%s).", s.DefaultDuration, s.MaxDuration))
	}
	return s, diags
}

// ClaimPrincipals returns the principals defined by claims, in file order.
func (c *Config) ClaimPrincipals() []*Principal {
	var out []*Principal
	for i := range c.Principals {
		if c.Principals[i].IdentityProvider != "" {
			out = append(out, &c.Principals[i])
		}
	}
	return out
}
