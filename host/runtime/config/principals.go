package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// checkAccess reports access lists that name principals nobody declared.
func (d *decoder) checkAccess() hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, ds := range d.cfg.Datasets {
		for _, list := range [][]string{ds.Access.Read, ds.Access.Write} {
			diags = append(diags, d.acc.KnownPrincipals(ds.AccessRange, fmt.Sprintf("Dataset %q: access", ds.Name), list)...)
		}
	}
	return diags
}

// Principal returns the principal called name.
func (c *Config) Principal(name string) (*Principal, bool) {
	for i := range c.Principals {
		if c.Principals[i].Name == name {
			return &c.Principals[i], true
		}
	}
	return nil, false
}

// PrincipalByAccessKey returns the principal with S3 access key ID id.
func (c *Config) PrincipalByAccessKey(id string) (*Principal, bool) {
	for i := range c.Principals {
		if c.Principals[i].S3AccessKeyID == id && id != "" {
			return &c.Principals[i], true
		}
	}
	return nil, false
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

// IdentityProvider returns the identity provider called name.
func (c *Config) IdentityProvider(name string) (*IdentityProvider, bool) {
	for i := range c.IdentityProviders {
		if c.IdentityProviders[i].Name == name {
			return &c.IdentityProviders[i], true
		}
	}
	return nil, false
}
