package oidc_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/host/serve/identity/oidc"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// keyFetches counts the requests for a key set that pass through it.
type keyFetches struct {
	n atomic.Int64
}

func (k *keyFetches) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasSuffix(r.URL.Path, "/keys") {
		k.n.Add(1)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// Dex, a real provider: its ID tokens verify, their groups match, and
// after it restarts with new keys the same Provider takes them up.
func TestDex(t *testing.T) {
	anaPW, bobPW := "ana-"+randomID(), "bob-"+randomID()
	dex := servers.StartDex(t, servers.DexOptions{Users: []servers.DexUser{
		{Email: "ana@example.org", Username: "ana", Password: anaPW, Groups: []string{"analysts", "readers"}},
		{Email: "bob@example.org", Username: "bob", Password: bobPW, Groups: []string{"ops"}},
	}})
	fetches := &keyFetches{}
	p, err := oidc.New(oidc.Config{Name: "dex", Issuer: dex.Issuer, Audience: []string{dex.ClientID},
		HTTPClient: &http.Client{Transport: fetches, Timeout: 10 * time.Second}, MinRefetch: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	anaTok := dex.Token(t, "ana@example.org", anaPW)
	ana, err := p.Verify(ctx, anaTok)
	if err != nil {
		t.Fatalf("Dex's token: %v", err)
	}
	groups, _ := ana.Claims["groups"].([]any)
	if ana.Provider != "dex" || ana.Issuer != dex.Issuer || ana.Subject == "" || !slices.Contains(groups, any("analysts")) {
		t.Errorf("identity %+v", ana)
	}
	for want, match := range map[string]bool{
		"groups=analysts":                       true,
		"groups=readers,email=ana@example.org":  true,
		"name=ana":                              true,
		"email_verified=true":                   true,
		"groups=ops":                            false,
		"groups=analysts,email=bob@example.org": false,
	} {
		if got := oidc.Match(ana.Claims, claimsWanted(want)); got != match {
			t.Errorf("Match(%s) = %v, want %v; claims %v", want, got, match, ana.Claims)
		}
	}
	bob, err := p.Verify(ctx, dex.Token(t, "bob", bobPW))
	if err != nil {
		t.Fatalf("Dex's token for bob: %v", err)
	}
	if oidc.Match(bob.Claims, claimsWanted("groups=analysts")) || !oidc.Match(bob.Claims, claimsWanted("groups=ops")) {
		t.Errorf("bob's claims %v", bob.Claims)
	}

	other, err := oidc.New(oidc.Config{Name: "dex", Issuer: dex.Issuer, Audience: []string{"another-client"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Verify(ctx, anaTok); oidc.Reason(err) != oidc.ReasonAudience {
		t.Errorf("a provider of another audience: %v", err)
	} else {
		noTokenIn(t, err.Error(), anaTok)
	}

	before := fetches.n.Load()
	if before != 1 {
		t.Errorf("%d key fetches for three tokens of the same key, want 1", before)
	}
	dex.Restart(t)
	newTok := dex.Token(t, "ana@example.org", anaPW)
	var again *oidc.Identity
	eventually(t, "a token of the restarted Dex", func() error {
		again, err = p.Verify(ctx, newTok)
		if err != nil && oidc.Reason(err) != oidc.ReasonUnknownKey {
			t.Fatalf("a token of the restarted Dex: %v", err)
		}
		return err
	})
	if fetches.n.Load() <= before {
		t.Errorf("the restarted Dex's token verified without fetching its keys again")
	}
	if again.Subject != ana.Subject || !oidc.Match(again.Claims, claimsWanted("groups=analysts")) {
		t.Errorf("after the restart: %+v, before: %+v", again, ana)
	}
	// The old keys are gone with the old Dex.
	_, err = p.Verify(ctx, anaTok)
	if r := oidc.Reason(err); r != oidc.ReasonUnknownKey && r != oidc.ReasonSignature {
		t.Errorf("a token of the Dex before the restart: %v", err)
	}
}

// claimsWanted parses "a=b,c=d".
func claimsWanted(s string) map[string]string {
	out := map[string]string{}
	for kv := range strings.SplitSeq(s, ",") {
		k, v, _ := strings.Cut(kv, "=")
		out[k] = v
	}
	return out
}
