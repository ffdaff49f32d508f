// Package pluginpkg is what an installable plugin is, in the forms
// Terraform gives providers: a source address (HOST/NAMESPACE/TYPE), a
// version, a target platform (OS_ARCH), a package (a zip file named
// zarrgw-plugin-TYPE_VERSION_OS_ARCH.zip holding the executable
// zarrgw-plugin-TYPE_vVERSION), and the two hashes a lock file records for
// a package: h1: of its contents and zh: of its zip file.
package pluginpkg

import (
	"fmt"
	"regexp"
	"strings"
)

// Address is a plugin's source address, as Terraform writes a provider's:
// the host that publishes it, a namespace there, and the plugin's type.
// Mirrors lay packages out by it. Its parts are compared in lower case.
type Address struct {
	Host, Namespace, Type string
}

var (
	hostname  = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:[0-9]{1,5})?$`)
	namespace = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$`)
	typeName  = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)
)

// ParseAddress parses "HOST/NAMESPACE/TYPE". Letters are folded to lower
// case; the type may not hold an underscore, which separates the parts of
// a package's file name.
func ParseAddress(s string) (Address, error) {
	parts := strings.Split(strings.ToLower(s), "/")
	if len(parts) != 3 {
		return Address{}, fmt.Errorf("%q is not a plugin source address: write HOST/NAMESPACE/TYPE, such as \"example.org/acme/xor\"", s)
	}
	a := Address{Host: parts[0], Namespace: parts[1], Type: parts[2]}
	switch {
	case !hostname.MatchString(a.Host):
		return Address{}, fmt.Errorf("%q: %q is not a host name", s, parts[0])
	case !namespace.MatchString(a.Namespace):
		return Address{}, fmt.Errorf("%q: namespace %q must be letters, digits and dashes, at most 64", s, parts[1])
	case !typeName.MatchString(a.Type):
		return Address{}, fmt.Errorf("%q: type %q must be letters, digits and dashes", s, parts[2])
	}
	return a, nil
}

// String is the address as written: HOST/NAMESPACE/TYPE.
func (a Address) String() string { return a.Host + "/" + a.Namespace + "/" + a.Type }

// Path is the address as a slash-separated relative path, the directory
// of its packages in a mirror or in an installation.
func (a Address) Path() string { return a.String() }

// Pattern is an include or exclude pattern of an installation source:
// HOST/NAMESPACE/TYPE where each part may be "*".
type Pattern struct{ host, namespace, typ string }

// ParsePattern parses an include or exclude pattern.
func ParsePattern(s string) (Pattern, error) {
	parts := strings.Split(strings.ToLower(s), "/")
	if len(parts) != 3 {
		return Pattern{}, fmt.Errorf("%q is not a plugin address pattern: write HOST/NAMESPACE/TYPE, each part a name or *", s)
	}
	return Pattern{parts[0], parts[1], parts[2]}, nil
}

// Matches reports whether a matches the pattern.
func (p Pattern) Matches(a Address) bool {
	match := func(pat, s string) bool { return pat == "*" || pat == s }
	return match(p.host, a.Host) && match(p.namespace, a.Namespace) && match(p.typ, a.Type)
}
