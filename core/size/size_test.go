package size_test

import (
	"testing"

	"github.com/zarrgw/zarrgw/core/size"
)

func TestParse(t *testing.T) {
	for text, want := range map[string]int64{
		"1048576": 1 << 20, "64MiB": 64 << 20, " 2 GiB ": 2 << 30, "1.5GB": 1_500_000_000, "1KB": 1000, "7B": 7, "1TiB": 1 << 40,
	} {
		if got, err := size.Parse(text); err != nil || got != want {
			t.Errorf("Parse(%q) = %d, %v; want %d", text, got, err, want)
		}
	}
	for _, text := range []string{"", "MiB", "0", "-1MiB", "1.5B", "12 parsecs", "1e400"} {
		if got, err := size.Parse(text); err == nil {
			t.Errorf("Parse(%q) = %d, want an error", text, got)
		}
	}
}
