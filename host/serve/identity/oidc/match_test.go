package oidc_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/zarrgw/zarrgw/host/serve/identity/oidc"
)

// claimsOf decodes a JSON object as Verify does, numbers as json.Number.
func claimsOf(t *testing.T, doc string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(doc)))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMatch(t *testing.T) {
	claims := claimsOf(t, `{
		"sub": "u1",
		"email": "ana@example.org",
		"groups": ["analysts", "readers", 7, true],
		"email_verified": true,
		"level": 42,
		"ratio": 0.5,
		"big": 12345678901234567890,
		"nothing": null,
		"obj": {"a": "b"},
		"realm_access": {"roles": ["admin", "user"]},
		"resource_access": {"zarrgw": {"roles": ["reader"]}},
		"https://example.org/groups": ["ns-analysts"],
		"https://example.org/tenant": "acme",
		"a.b": "top",
		"a": {"b": "nested"},
		"x": {"y": "nested-only"},
		"list": [["nested", "lists"], {"k": "v"}]
	}`)
	for _, tc := range []struct {
		want  map[string]string
		match bool
	}{
		{nil, true},
		{map[string]string{}, true},
		{map[string]string{"email": "ana@example.org"}, true},
		{map[string]string{"email": "ANA@example.org"}, false},
		{map[string]string{"groups": "analysts"}, true},
		{map[string]string{"groups": "analysts", "email": "ana@example.org"}, true},
		{map[string]string{"groups": "analysts", "email": "bob@example.org"}, false},
		{map[string]string{"groups": "admins"}, false},
		{map[string]string{"groups": "analyst"}, false},
		{map[string]string{"groups": "7"}, true},
		{map[string]string{"groups": "true"}, true},
		{map[string]string{"email_verified": "true"}, true},
		{map[string]string{"email_verified": "True"}, false},
		{map[string]string{"level": "42"}, true},
		{map[string]string{"level": "42.0"}, false},
		{map[string]string{"ratio": "0.5"}, true},
		{map[string]string{"big": "12345678901234567890"}, true},
		{map[string]string{"nothing": ""}, false},
		{map[string]string{"nothing": "null"}, false},
		{map[string]string{"obj": `{"a":"b"}`}, false},
		{map[string]string{"missing": ""}, false},
		{map[string]string{"realm_access.roles": "admin"}, true},
		{map[string]string{"realm_access.roles": "root"}, false},
		{map[string]string{"resource_access.zarrgw.roles": "reader"}, true},
		{map[string]string{"realm_access.missing": "admin"}, false},
		{map[string]string{"email.x": "ana@example.org"}, false},
		{map[string]string{"https://example.org/groups": "ns-analysts"}, true},
		{map[string]string{"https://example.org/tenant": "acme"}, true},
		// A top-level name with dots wins over the path it spells...
		{map[string]string{"a.b": "top"}, true},
		{map[string]string{"a.b": "nested"}, false},
		// ...which is looked up only when there is no such claim.
		{map[string]string{"x.y": "nested-only"}, true},
		{map[string]string{"list": "nested"}, false},
		{map[string]string{"list": "v"}, false},
		{map[string]string{"sub": "u1", "realm_access.roles": "user", "https://example.org/groups": "ns-analysts"}, true},
	} {
		if got := oidc.Match(claims, tc.want); got != tc.match {
			t.Errorf("Match(%v) = %v, want %v", tc.want, got, tc.match)
		}
	}
	if oidc.Match(nil, map[string]string{"sub": "u1"}) {
		t.Errorf("nil claims matched")
	}
	// Claims decoded without UseNumber, or built by hand.
	plain := map[string]any{"level": float64(42), "n": 3, "roles": []string{"a", "b"}, "ratio": 0.25}
	if !oidc.Match(plain, map[string]string{"level": "42", "n": "3", "roles": "b", "ratio": "0.25"}) {
		t.Errorf("claims without json.Number do not match")
	}
}
