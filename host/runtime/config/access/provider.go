package access

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/zarrgw/zarrgw/host/runtime/config/hclread"
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

var identityProviderSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "issuer", Required: true}, {Name: "audience", Required: true}, {Name: "algorithms"}, {Name: "leeway"}}}

// Symmetric and absent signatures are refused: a public key would be a
// shared secret, and "none" no signature at all.
var refusedAlgorithms = []string{"none", "HS256", "HS384", "HS512"}

// IndexProviders records every identity_provider block before anything
// is evaluated, so principals may refer to providers declared after them:
// it maps each valid name to its block.
func IndexProviders(blocks []*hcl.Block) (map[string]*hcl.Block, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	providers := map[string]*hcl.Block{}
	for _, b := range blocks {
		name := b.Labels[0]
		if !hclsyntax.ValidIdentifier(name) {
			diags = append(diags, hclread.ErrorAt(b.LabelRanges[0], "Invalid identity provider name",
				"%q cannot be referred to as identity_provider.NAME: use letters, digits, underscores and dashes, starting with a letter.", name))
			continue
		}
		if prev, ok := providers[name]; ok {
			diags = append(diags, hclread.Duplicate(fmt.Sprintf("identity_provider %q", name), b.LabelRanges[0], prev.LabelRanges[0]))
			continue
		}
		providers[name] = b
	}
	return providers, diags
}

// Providers decodes the blocks IndexProviders kept, in file order. Two
// providers may not share an issuer: a token is verified by the provider
// its issuer names, so the second would never see one (list both
// audiences in one block instead).
func (d *Decoder) Providers(blocks []*hcl.Block) ([]IdentityProvider, hcl.Diagnostics) {
	var out []IdentityProvider
	var diags hcl.Diagnostics
	byIssuer := map[string]IdentityProvider{}
	for _, b := range blocks {
		if d.providers[b.Labels[0]] != b {
			continue // invalid or duplicate: reported by IndexProviders
		}
		p, more := d.identityProvider(b)
		diags = append(diags, more...)
		if first, ok := byIssuer[p.Issuer]; ok && !more.HasErrors() {
			diags = append(diags, hclread.ErrorAt(p.DeclRange, "Issuer of two identity providers",
				"identity_provider %q has the issuer of identity_provider %q (%s); a token goes to the provider of its issuer, so declare one provider and list both audiences in its audience.", p.Name, first.Name, hclread.At(first.DeclRange)))
			continue
		}
		if !more.HasErrors() {
			byIssuer[p.Issuer] = p
			out = append(out, p)
		}
	}
	return out, diags
}

func (d *Decoder) identityProvider(b *hcl.Block) (IdentityProvider, hcl.Diagnostics) {
	p := IdentityProvider{Name: b.Labels[0], DeclRange: b.DefRange}
	content, diags := b.Body.Content(identityProviderSchema)
	attrs := content.Attributes
	if v, ok, more := d.ev.Attr(attrs, "issuer", cty.String); ok {
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
	if v, ok, more := d.ev.Attr(attrs, "leeway", cty.String); ok {
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
func (d *Decoder) stringOrList(attrs hcl.Attributes, name, owner string, dst *[]string) hcl.Diagnostics {
	v, ok, diags := d.ev.Attr(attrs, name, cty.DynamicPseudoType)
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

func (d *Decoder) algorithms(attrs hcl.Attributes, p *IdentityProvider) hcl.Diagnostics {
	v, ok, diags := d.ev.Attr(attrs, "algorithms", cty.List(cty.String))
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
func (d *Decoder) providerRef(attrs hcl.Attributes, p *Principal) hcl.Diagnostics {
	v, ok, diags := d.ev.Attr(attrs, "identity_provider", cty.String)
	if !ok {
		return diags
	}
	name, found := strings.CutPrefix(v.AsString(), hclread.ProviderRoot+".")
	if !found || d.providers[name] == nil {
		return append(diags, hclread.ErrorAt(attrs["identity_provider"].Expr.Range(), "Invalid identity_provider",
			"Principal %q: refer to an identity provider as identity_provider.NAME.", p.Name))
	}
	p.IdentityProvider = name
	return diags
}

// principalClaims decodes identity_provider and claims: both or neither.
// claims = {} (explicitly empty) admits every token of the provider.
func (d *Decoder) principalClaims(b *hcl.Block, attrs hcl.Attributes, p *Principal) hcl.Diagnostics {
	diags := d.providerRef(attrs, p)
	v, ok, more := d.ev.Attr(attrs, "claims", cty.Map(cty.String))
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
