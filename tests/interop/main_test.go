package interop

import (
	"testing"

	zbinary "github.com/zarrgw/zarrgw/tests/support/binary"
)

// zarrgwBinary is the zarrgw command, built once for the package: its
// tests run it as a process, and a build (a link of the whole command)
// for each test took longer than some of the tests.
var zarrgwBinary string

func TestMain(m *testing.M) { zbinary.Main(m, &zarrgwBinary) }
