package meta

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ValidateNodeName checks the name of a non-root node (one path segment):
// not empty, no "/", not made only of "." characters, not starting with
// "__" (reserved), not "zarr.json" (v3.1), and valid UTF-8 (keys are UTF-8).
func ValidateNodeName(name string) error {
	switch {
	case name == "":
		return errors.New("node name is empty")
	case strings.Contains(name, "/"):
		return fmt.Errorf("node name %q contains \"/\"", name)
	case strings.Trim(name, ".") == "":
		return fmt.Errorf("node name %q consists only of \".\" characters", name)
	case strings.HasPrefix(name, "__"):
		return fmt.Errorf("node name %q starts with the reserved prefix \"__\"", name)
	case name == "zarr.json":
		return errors.New("node name \"zarr.json\" is reserved")
	case !utf8.ValidString(name):
		return fmt.Errorf("node name %q is not valid UTF-8", name)
	}
	return nil
}
