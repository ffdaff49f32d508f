package pluginpkg

import (
	"fmt"
	"regexp"

	"github.com/hashicorp/go-version"
)

// Prefix starts the names of packages and plugin executables.
const Prefix = "zarrgw-plugin-"

// FileName is the name of a package: zarrgw-plugin-TYPE_VERSION_OS_ARCH.zip.
func FileName(typ string, v *version.Version, p Platform) string {
	return fmt.Sprintf("%s%s_%s_%s.zip", Prefix, typ, v, p)
}

// Executable is the name of the executable in a package:
// zarrgw-plugin-TYPE_vVERSION, with ".exe" for Windows.
func Executable(typ string, v *version.Version, p Platform) string {
	name := fmt.Sprintf("%s%s_v%s", Prefix, typ, v)
	if p.OS == "windows" {
		name += ".exe"
	}
	return name
}

var fileName = regexp.MustCompile(`^` + regexp.QuoteMeta(Prefix) + `([a-z0-9-]+)_([^_]+)_([a-z0-9]+_[a-z0-9]+)\.zip$`)

// ParseFileName reads the type, version and platform a package's file
// name states; ok is false for any other name.
func ParseFileName(name string) (typ string, v *version.Version, p Platform, ok bool) {
	m := fileName.FindStringSubmatch(name)
	if m == nil {
		return "", nil, Platform{}, false
	}
	v, err := version.NewVersion(m[2])
	if err != nil {
		return "", nil, Platform{}, false
	}
	p, err = ParsePlatform(m[3])
	return m[1], v, p, err == nil
}
