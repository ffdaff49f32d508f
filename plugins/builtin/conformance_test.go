package builtin_test

import (
	"testing"

	"github.com/zarrgw/zarrgw/core/codec/codectest"
	"github.com/zarrgw/zarrgw/plugins/builtin"
	"github.com/zarrgw/zarrgw/plugins/builtin/builtintest"
)

// Every bundled codec passes the codec conformance suite in process (the
// plugin tests run the same cases out of process).
func TestCodecConformance(t *testing.T) {
	codectest.Run(t, builtin.Registry(), builtintest.Cases())
}

// Every bundled codec has a conformance case.
func TestEveryCodecHasACase(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range builtintest.Cases() {
		covered[c.Name] = true
	}
	for _, reg := range builtin.Codecs() {
		if !covered[reg.Manifest.Name] {
			t.Errorf("codec %s has no conformance case", reg.Manifest.Name)
		}
	}
}
