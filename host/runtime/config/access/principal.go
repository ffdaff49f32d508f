package access

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/zarrgw/zarrgw/host/runtime/config/hclread"
)

// Principal is a caller the gateway knows by a bearer token. Only the
// token's SHA-256 is kept: the configuration never holds the token.
type Principal struct {
	Name        string
	TokenSHA256 [32]byte
	// HasToken is false for a principal known by S3 credentials only.
	HasToken bool
	// S3AccessKeyID and S3SecretAccessKey sign the principal's requests
	// to the S3 API (from variables; "" when it has none).
	S3AccessKeyID, S3SecretAccessKey string
	// IdentityProvider names the identity_provider whose tokens identify
	// the principal when they carry Claims ("" for none): every listed
	// claim must match (identity/oidc.Match says how).
	IdentityProvider string
	Claims           map[string]string
	// RateLimit bounds the principal's traffic; nil = no bound.
	RateLimit *RateLimit
	DeclRange hcl.Range
}

// Anyone is the principal name that grants access without a token.
const Anyone = "*"

var principalSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "token_sha256"},
	{Name: "s3_access_key_id"}, {Name: "s3_secret_access_key"}, {Name: "identity_provider"}, {Name: "claims"}},
	Blocks: []hcl.BlockHeaderSchema{{Type: "rate_limit"}}}

// Principals decodes the principal blocks, in file order.
func (d *Decoder) Principals(blocks []*hcl.Block) ([]Principal, hcl.Diagnostics) {
	var out []Principal
	var diags hcl.Diagnostics
	first := map[string]hcl.Range{}
	for _, b := range blocks {
		name, at := b.Labels[0], b.LabelRanges[0]
		if name == "" || name == Anyone || strings.TrimSpace(name) != name {
			diags = append(diags, hclread.ErrorAt(at, "Invalid principal name", "%q cannot name a principal; \"*\" stands for anyone in access lists.", name))
			continue
		}
		if r, ok := first[name]; ok {
			diags = append(diags, hclread.Duplicate("principal "+quote(name), at, r))
			continue
		}
		first[name] = at
		d.names[name] = true
		p, more := d.principal(b)
		diags = append(diags, more...)
		if !more.HasErrors() {
			out = append(out, p)
		}
	}
	return out, diags
}

func (d *Decoder) principal(b *hcl.Block) (Principal, hcl.Diagnostics) {
	p := Principal{Name: b.Labels[0], DeclRange: b.DefRange}
	content, diags := b.Body.Content(principalSchema)
	diags = append(diags, d.principalS3(content.Attributes, &p)...)
	diags = append(diags, d.principalClaims(b, content.Attributes, &p)...)
	var more hcl.Diagnostics
	p.RateLimit, more = d.rateLimitBlocks(content.Blocks, "rate_limit", fmt.Sprintf("Principal %q: rate_limit", p.Name), false)
	diags = append(diags, more...)
	v, ok, more := d.ev.Attr(content.Attributes, "token_sha256", cty.String)
	diags = append(diags, more...)
	if !ok {
		if p.S3AccessKeyID == "" && p.IdentityProvider == "" && !diags.HasErrors() {
			diags = append(diags, hclread.ErrorAt(b.DefRange, "Principal without credentials",
				"Principal %q needs token_sha256, S3 credentials, an identity provider with claims, or several of these.", p.Name))
		}
		return p, diags
	}
	attr := content.Attributes["token_sha256"]
	text := strings.ToLower(strings.TrimSpace(v.AsString()))
	if diag := d.checkSecret(attr, "token_sha256", p.Name, text); diag != nil {
		return p, append(diags, diag)
	}
	sum, err := hex.DecodeString(text)
	if err != nil || len(sum) != 32 {
		diags = append(diags, hclread.ErrorAt(attr.Expr.Range(), "Invalid token_sha256",
			"Principal %q: token_sha256 must be the SHA-256 of the token as 64 hexadecimal digits (for example the output of: printf %%s \"$TOKEN\" | sha256sum).", p.Name))
		return p, diags
	}
	if diag := d.claim("token", text, p.Name, attr.Expr.Range()); diag != nil {
		return p, append(diags, diag)
	}
	copy(p.TokenSHA256[:], sum)
	p.HasToken = true
	return p, diags
}

func quote(s string) string { return `"` + s + `"` }

// principalS3 decodes a principal's S3 credentials: both or neither, the
// secret from a variable.
func (d *Decoder) principalS3(attrs hcl.Attributes, p *Principal) hcl.Diagnostics {
	var diags hcl.Diagnostics
	id, idOK, more := d.ev.Attr(attrs, "s3_access_key_id", cty.String)
	diags = append(diags, more...)
	secret, secretOK, more := d.ev.Attr(attrs, "s3_secret_access_key", cty.String)
	diags = append(diags, more...)
	if idOK != secretOK {
		at := attrs["s3_access_key_id"]
		if at == nil {
			at = attrs["s3_secret_access_key"]
		}
		return append(diags, hclread.ErrorAt(at.Expr.Range(), "Incomplete S3 credentials",
			"Principal %q: give both s3_access_key_id and s3_secret_access_key.", p.Name))
	}
	if !idOK {
		return diags
	}
	if !hclread.FromVariable(attrs["s3_secret_access_key"].Expr.Variables()) {
		return append(diags, hclread.ErrorAt(attrs["s3_secret_access_key"].Expr.Range(), `Secret "s3_secret_access_key" written in the file`,
			"Principal %q: set s3_secret_access_key from a variable (var.NAME, with env = \"...\" in the variable block), so the value stays out of the file.", p.Name))
	}
	p.S3AccessKeyID, p.S3SecretAccessKey = id.AsString(), secret.AsString()
	return append(diags, d.checkS3Credentials(attrs, p)...)
}

// checkS3Credentials refuses an empty key ID, an empty or published
// secret, and a key ID another principal has.
func (d *Decoder) checkS3Credentials(attrs hcl.Attributes, p *Principal) hcl.Diagnostics {
	idAttr := attrs["s3_access_key_id"]
	if strings.TrimSpace(p.S3AccessKeyID) == "" {
		return hcl.Diagnostics{hclread.ErrorAt(idAttr.Expr.Range(), "Empty S3 access key ID",
			"Principal %q: s3_access_key_id is empty; give the key ID its S3 requests are signed with.", p.Name)}
	}
	if diag := d.checkSecret(attrs["s3_secret_access_key"], "S3 secret", p.Name, strings.TrimSpace(p.S3SecretAccessKey)); diag != nil {
		return hcl.Diagnostics{diag}
	}
	if diag := d.claim("S3 access key ID", p.S3AccessKeyID, p.Name, idAttr.Expr.Range()); diag != nil {
		return hcl.Diagnostics{diag}
	}
	return nil
}
