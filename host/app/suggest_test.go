package app

import (
	"slices"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/dtype"
)

func TestNearest(t *testing.T) {
	paths := []string{"t2m", "t2m_max", "group/precip", "group/temperature", "u10"}
	for _, c := range []struct {
		s    string
		want []string
	}{
		{"t2n", []string{"t2m"}},
		{"T2M", []string{"t2m"}},
		{"precip", []string{"group/precip"}},
		{"group/temprature", []string{"group/temperature"}},
		{"wind", nil},
	} {
		if got := Nearest(c.s, paths); !slices.Equal(got, c.want) {
			t.Errorf("Nearest(%q) = %q, want %q", c.s, got, c.want)
		}
	}
}

// Every type create offers parses as a fixed-size v3 data type, and a
// numpy type string is answered with the v3 name.
func TestCreateTypes(t *testing.T) {
	for _, name := range CreateTypes {
		if dt, err := dtype.ParseV3(name); err != nil || dt.Variable() {
			t.Errorf("%s: %v", name, err)
		}
	}
	for in, want := range map[string]string{"f4": "did you mean float32?", "<u8": "did you mean uint64?", "|b1": "did you mean bool?", "inte16": "did you mean int16"} {
		if err := DtypeError(in); !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "accepted: bool, int8") {
			t.Errorf("%s: %v", in, err)
		}
	}
}
