package references

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

// A set may read below its own directory and the prefixes allowed to it,
// however a target is spelled there; every other target is refused
// before any store is opened for it, naming the key and the target for
// the operator, the key only for clients.
func TestTargetsReachOnlyRoots(t *testing.T) {
	ctx := context.Background()
	files, data := store.NewMemory(), store.NewMemory()
	for s, kv := range map[*store.Memory][2]string{files: {"sub/a.nc", "0123456789"}, data: {"b.nc", "abcdefghij"}} {
		if _, err := s.Set(ctx, kv[0], []byte(kv[1]), store.Condition{}); err != nil {
			t.Fatal(err)
		}
	}
	allowed := map[string]string{
		"sub/a.nc":                      "01",
		"./sub/a.nc":                    "01",
		"mem://h/refs/sub/a.nc":         "01",
		"MEM://H/refs/sub/x/../a.nc":    "01",
		"../data/b.nc":                  "ab",
		"mem://h/data/b.nc":             "ab",
		"mem://h/data/./b.nc":           "ab",
		"mem://h/refs/../data/b.nc":     "ab",
		"sub/../../data/./b.nc":         "ab",
		"mem://h/data//b.nc":            "ab",
		"mem://h/refs/%2e%2e/data/b.nc": "", // a directory named "%2e%2e": missing, not a way out
	}
	refused := []string{
		"/etc/hostname",
		"file:///etc/hostname",
		"FILE:///etc/hostname",
		"file://localhost/etc/hostname",
		"file://otherhost/etc/hostname",
		"../../../../etc/hostname",
		"mem://h/refs/../../etc/hostname",
		"mem://h/database/b.nc",      // "mem://h/data" is a directory, not a string prefix
		"mem://h.evil/refs/sub/a.nc", // nor is a host
		"mem://evil@h/refs/sub/a.nc",
		"mem://other/b.nc",
		"http://127.0.0.1:1/latest/meta-data/",
		"http://169.254.169.254/latest/meta-data/",
		"mem://h/refs/sub\\..\\..\\x",
	}
	doc := map[string]string{}
	var keys []string
	for target := range allowed {
		keys = append(keys, target)
	}
	keys = append(keys, refused...)
	for i, target := range keys {
		doc[fmt.Sprintf("v/%d", i)] = fmt.Sprintf("[%q, 0, 2]", target)
	}
	var sb strings.Builder
	sb.WriteString("{")
	for k, v := range doc {
		if sb.Len() > 1 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, "%q: %s", k, v)
	}
	sb.WriteString("}")
	set, err := ParseJSON([]byte(sb.String()))
	if err != nil {
		t.Fatal(err)
	}
	opener := &memTargets{stores: map[string]store.Store{"h/refs": nopClose{files}, "h/data": nopClose{data}}}
	s, err := New(set, opener, "mem://h/refs/").Allow([]string{"mem://h/data"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, target := range keys {
		key := fmt.Sprintf("v/%d", i)
		v, err := s.Get(ctx, key, store.ByteRange{})
		want, ok := allowed[target]
		switch {
		case ok && want == "" && (err == nil || errors.Is(err, errRefused)):
			t.Errorf("%s: %q (%v), want a missing file", target, v.Data, err)
		case ok && want != "" && (err != nil || string(v.Data) != want):
			t.Errorf("%s: %q (%v), want %q", target, v.Data, err, want)
		case !ok:
			if !errors.Is(err, errRefused) || !strings.Contains(err.Error(), target) || !strings.Contains(err.Error(), key) {
				t.Errorf("%s: %q (%v), want it refused, naming the key and the target", target, v.Data, err)
				continue
			}
			if pub := store.PublicText(err); strings.Contains(pub, strings.Trim(target, "./")) || !strings.Contains(pub, fmt.Sprintf("%q", key)) {
				t.Errorf("%s: clients read %q, want the key and not the target", target, pub)
			}
			if _, err := s.Stat(ctx, key); !errors.Is(err, errRefused) {
				t.Errorf("%s: stat %v, want it refused", target, err)
			}
		}
	}
	if opener.opened != 2 {
		t.Errorf("%d stores opened by URL, want 2 (the set's directory and mem://h/data/)", opener.opened)
	}
}

// Without a location, a set reaches only what is allowed: relative
// targets need the location, absolute ones an allowed prefix.
func TestTargetsWithoutLocation(t *testing.T) {
	set, err := ParseJSON([]byte(`{"v/0": ["a.nc", 0, 1], "v/1": ["mem://files/a.nc", 0, 1]}`))
	if err != nil {
		t.Fatal(err)
	}
	opener := &memTargets{stores: map[string]store.Store{"files": store.NewMemory()}}
	s := New(set, opener, "")
	for _, key := range []string{"v/0", "v/1"} {
		if _, err := s.Get(context.Background(), key, store.ByteRange{}); !errors.Is(err, errRefused) {
			t.Errorf("%s: %v, want it refused", key, err)
		}
	}
	if opener.opened != 0 {
		t.Errorf("%d stores opened, want none", opener.opened)
	}
}

// The stores a set opens by URL connect only to public addresses, to the
// address a root writes as an IP literal (for that root alone), and to
// the ranges of allow_addresses.
func TestAddressCheck(t *testing.T) {
	s, err := New(nil, &memTargets{}, "http://127.0.0.1:8080/refs/").
		Allow([]string{"https://[fd00::7]/nc/", "https://data.example.org/nc/"}, []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16")})
	if err != nil {
		t.Fatal(err)
	}
	public := []string{"8.8.8.8", "2606:4700::1111", "10.1.2.3"}
	private := []string{"127.0.0.2", "::1", "10.2.0.1", "192.168.1.1", "172.16.0.1", "169.254.169.254", "fe80::1",
		"100.100.100.200", "0.0.0.0", "::", "224.0.0.1", "fd00::8", "64:ff9b::a9fe:a9fe", "2002:a9fe:a9fe::",
		"255.255.255.255", "240.0.0.1"}
	for prefix, literal := range map[string][]string{
		"http://127.0.0.1:8080/refs/":  {"127.0.0.1", "::ffff:127.0.0.1"},
		"https://[fd00::7]/nc/":        {"fd00::7"},
		"https://data.example.org/nc/": nil,
	} {
		check := s.addressCheck(prefix)
		others := append(slices.Clone(private), "127.0.0.1", "fd00::7")
		for _, addr := range append(public, literal...) {
			if err := check(netip.MustParseAddr(addr)); err != nil {
				t.Errorf("%s: %s refused: %v", prefix, addr, err)
			}
		}
		for _, addr := range others {
			if slices.Contains(literal, addr) {
				continue
			}
			if err := check(netip.MustParseAddr(addr)); !errors.Is(err, store.ErrAddressRefused) {
				t.Errorf("%s: %s: %v, want it refused", prefix, addr, err)
			}
		}
	}
}

// A listing of a set of a million references resolves each in well
// under a microsecond: the check costs nothing beside a read.
func BenchmarkResolve(b *testing.B) {
	s, err := New(nil, &memTargets{}, "/data/refs/").
		Allow([]string{"s3://bucket/nc/", "https://data.example.org/archive/"}, nil)
	if err != nil {
		b.Fatal(err)
	}
	targets := []string{"/data/refs/nc/t1.nc", "nc/t2.nc", "s3://bucket/nc/2020/t3.nc", "https://data.example.org/archive/x/t4.nc"}
	for i := 0; b.Loop(); i++ {
		if _, _, err := s.resolve(targets[i%len(targets)]); err != nil {
			b.Fatal(err)
		}
	}
}
