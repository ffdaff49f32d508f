package references

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/zarrgw/zarrgw/core/store"
)

// What a reference set may reach. A set is written by someone other than
// the operator (a data provider's kerchunk files), so its targets are
// never trusted to choose where the gateway reads: a target is read only
// below a root the operator declared, or the set's own directory. Roots
// are:
//
//   - the set's own directory (its URL's directory for a remote set):
//     relative targets, and absolute ones that point below it;
//   - the prefixes of targets, read through the declared stores they map
//     to;
//   - the prefixes of allow_targets: directories and URL prefixes read by
//     URL with the environment's credentials.
//
// Every target is made canonical first (joined to the set's directory
// when relative, file:// turned into a path, "." and ".." segments
// resolved, scheme and host in lower case) and matched against the roots,
// longest first; the rest of it is a key of the root's store, which keeps
// it beneath the root (a file system store refuses symlinks that leave
// its root). A target no root holds is refused before anything is read.
// The check is made when a key is read, not when the set is opened: it
// costs a few string operations per read (BenchmarkResolve), and a
// Parquet set of millions of rows is never read whole.

// errRefused is a target outside every root.
var errRefused = errors.New("not a target this reference set may reach")

// root is a place targets may be read from.
type root struct {
	prefix   string // canonical; ends in "/" unless declared
	declared string // store.TYPE.NAME of a targets entry; "" for a root opened by URL
}

// canonical is target in the one form roots are matched in: an absolute
// local path, or scheme://host/path with scheme and host in lower case,
// "." and ".." resolved; a trailing "/" is kept. base is the set's
// directory (canonical, or "" for none), against which relative targets
// are resolved.
func canonical(target, base string) (string, error) {
	if i := strings.Index(target, "://"); i > 0 {
		scheme, rest := strings.ToLower(target[:i]), target[i+3:]
		if scheme == "file" {
			if after, ok := strings.CutPrefix(rest, "localhost"); ok && strings.HasPrefix(after, "/") {
				rest = after
			}
			if !strings.HasPrefix(rest, "/") {
				return "", fmt.Errorf("file URL %q names another host", target)
			}
			return cleanPath(rest), nil
		}
		host, p, _ := strings.Cut(rest, "/")
		return scheme + "://" + strings.ToLower(host) + cleanPath("/"+p), nil
	}
	if strings.HasPrefix(target, "/") {
		return cleanPath(target), nil
	}
	if base == "" {
		return "", fmt.Errorf("a relative target needs the reference set's location")
	}
	if i := strings.Index(base, "://"); i > 0 {
		host, p, _ := strings.Cut(base[i+3:], "/")
		return base[:i+3] + host + cleanPath("/"+p+target), nil
	}
	return cleanPath(base + target), nil
}

// cleanPath resolves "." and ".." in an absolute slash-separated path
// (".." at the top stays at the top), keeping a trailing "/".
func cleanPath(p string) string {
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c
}

// dirPrefix is a directory's canonical prefix, ending in "/"; a relative
// local path is taken from the working directory.
func dirPrefix(dir string) (string, error) {
	if !strings.Contains(dir, "://") && !strings.HasPrefix(dir, "/") {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return "", err
		}
		dir = filepath.ToSlash(abs)
	}
	c, err := canonical(dir, "")
	if err != nil {
		return "", err
	}
	if !strings.HasSuffix(c, "/") {
		c += "/"
	}
	return c, nil
}

// resolve returns the root holding target and the target's key there, or
// errRefused.
func (s *Store) resolve(target string) (*root, string, error) {
	c, err := canonical(target, s.base)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %w", errRefused, err)
	}
	for i := range s.roots {
		r := &s.roots[i]
		if key, ok := strings.CutPrefix(c, r.prefix); ok {
			if err := store.ValidateKey(key); err != nil {
				return nil, "", fmt.Errorf("%w: below %s: %w", errRefused, r.prefix, err)
			}
			return r, key, nil
		}
	}
	return nil, "", fmt.Errorf("%w: it is outside %s", errRefused, s.rootsText())
}

// rootsText lists the roots for an operator's error message.
func (s *Store) rootsText() string {
	if len(s.roots) == 0 {
		return "every root (the set has no location, and no targets or allow_targets are declared)"
	}
	names := make([]string, len(s.roots))
	for i, r := range s.roots {
		switch {
		case r.declared != "":
			names[i] = fmt.Sprintf("%s (targets)", r.prefix)
		case r.prefix == s.base:
			names[i] = fmt.Sprintf("%s (the set's directory)", r.prefix)
		default:
			names[i] = fmt.Sprintf("%s (allow_targets)", r.prefix)
		}
	}
	return strings.Join(names, ", ")
}

// addRoot adds a root, keeping the longest prefixes first.
func (s *Store) addRoot(r root) {
	if slices.ContainsFunc(s.roots, func(o root) bool { return o.prefix == r.prefix }) {
		return
	}
	s.roots = append(s.roots, r)
	slices.SortStableFunc(s.roots, func(a, b root) int { return len(b.prefix) - len(a.prefix) })
}

// Allow adds the directories and URL prefixes of prefixes to what the
// set's targets may reach (allow_targets), and lets host names there and
// in the set's location resolve to the non-public addresses of addresses
// (allow_addresses). A prefix names a directory: "https://h/archive" is
// "https://h/archive/"; a relative path is the working directory's. It
// returns s, or an error for a prefix that names no directory.
func (s *Store) Allow(prefixes []string, addresses []netip.Prefix) (*Store, error) {
	for _, p := range prefixes {
		c, err := dirPrefix(p)
		if err != nil {
			return nil, fmt.Errorf("allow_targets %q: %w", p, err)
		}
		s.addRoot(root{prefix: c})
	}
	s.addresses = append(s.addresses, addresses...)
	return s, nil
}

// literalAddress is the address a URL prefix names by IP literal
// ("http://127.0.0.1:8080/"): one the operator wrote, allowed for that
// prefix even where it is not public.
func literalAddress(prefix string) (netip.Addr, bool) {
	i := strings.Index(prefix, "://")
	if i < 0 {
		return netip.Addr{}, false
	}
	host, _, _ := strings.Cut(prefix[i+3:], "/")
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	a, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return a.Unmap(), err == nil
}

// addressCheck is the store.AddressCheck of the store s opens by URL for
// the root prefix: a public address, the address prefix names as an IP
// literal, or one of allow_addresses. A name never borrows another
// root's literal: "http://localhost:9/" is not allowed loopback because
// the set is read from "http://127.0.0.1:8080/".
func (s *Store) addressCheck(prefix string) store.AddressCheck {
	literal, hasLiteral := literalAddress(prefix)
	return func(a netip.Addr) error {
		a = a.Unmap()
		if public(a) || hasLiteral && a == literal {
			return nil
		}
		for _, p := range s.addresses {
			if p.Contains(a) {
				return nil
			}
		}
		return fmt.Errorf("%w: %s is not a public address; the host name of %s resolved to it (list it in allow_addresses to reach it)",
			store.ErrAddressRefused, a, prefix)
	}
}

// nonPublic are the ranges beyond netip's loopback, private, link-local
// and multicast that no public server answers at: this network, shared
// address space (carrier NAT, some clouds' metadata services),
// protocol assignments, documentation, benchmarking, reserved; and IPv6
// forms that carry an IPv4 address (NAT64, 6to4, Teredo), site-local and
// documentation.
var nonPublic = func() []netip.Prefix {
	var out []netip.Prefix
	for _, p := range []string{
		"0.0.0.0/8", "100.64.0.0/10", "192.0.0.0/24", "192.0.2.0/24", "198.18.0.0/15",
		"198.51.100.0/24", "203.0.113.0/24", "240.0.0.0/4",
		"64:ff9b::/96", "64:ff9b:1::/48", "2001::/32", "2001:db8::/32", "2002::/16", "fec0::/10",
	} {
		out = append(out, netip.MustParsePrefix(p))
	}
	return out
}()

// public reports whether a is a unicast address on the public Internet.
func public(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsGlobalUnicast() || a.IsPrivate() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
}
