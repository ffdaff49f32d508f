package pluginpkg

import (
	"fmt"
	"regexp"
	"runtime"
)

// Platform is a target platform: an operating system and an architecture,
// as Go names them, written OS_ARCH ("linux_amd64").
type Platform struct{ OS, Arch string }

// Current is the platform this zarrgw runs on.
func Current() Platform { return Platform{OS: runtime.GOOS, Arch: runtime.GOARCH} }

var platformName = regexp.MustCompile(`^([a-z0-9]+)_([a-z0-9]+)$`)

// ParsePlatform parses OS_ARCH.
func ParsePlatform(s string) (Platform, error) {
	m := platformName.FindStringSubmatch(s)
	if m == nil {
		return Platform{}, fmt.Errorf("%q is not a platform: write OS_ARCH, such as linux_amd64", s)
	}
	return Platform{OS: m[1], Arch: m[2]}, nil
}

func (p Platform) String() string { return p.OS + "_" + p.Arch }
