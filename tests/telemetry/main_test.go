// Package telemetry runs `zarrgw serve` with a store in a plugin process
// (zarrgw itself, as `zarrgw plugin serve fs`) and an OTLP/HTTP receiver
// in the test, and follows one GET through the traces both processes
// export: the gateway's request span, its store call below it, and the
// plugin's own spans below that, in one trace, the trace the client
// started. It also shows that the spans left at exit are sent, and that
// with no OTEL_* variable nothing is exported at all.
//
// No test asserts a duration: waits follow the spans' arrival, bounded
// only against a hang.
package telemetry

import (
	"testing"

	bin "github.com/zarrgw/zarrgw/tests/support/binary"
)

var zarrgwBin string

func TestMain(m *testing.M) { bin.Main(m, &zarrgwBin) }
