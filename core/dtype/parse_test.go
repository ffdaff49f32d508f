package dtype

import "testing"

// numpy's fixed-width types keep their v2 names, which also tell numpy's
// void (written as zarr-python 3's raw_bytes) from the v3 core r<N>.
func TestParseV2FixedWidthNames(t *testing.T) {
	tests := []struct {
		typestr string
		want    DataType
		end     Endian
		void    bool
	}{
		{"|S7", DataType{Kind: FixedBytes, Size: 7, Name: "S7"}, NoEndian, false},
		{"<U4", DataType{Kind: FixedUnicode, Size: 16, Name: "U4"}, Little, false},
		{">U13", DataType{Kind: FixedUnicode, Size: 52, Name: "U13"}, Big, false},
		{"|V3", DataType{Kind: Raw, Size: 3, Name: "V3"}, NoEndian, true},
		{"|S007", DataType{Kind: FixedBytes, Size: 7, Name: "S7"}, NoEndian, false},
	}
	for _, tc := range tests {
		got, end, err := ParseV2(tc.typestr)
		if err != nil || got != tc.want || end != tc.end || got.NumpyVoid() != tc.void {
			t.Errorf("ParseV2(%s) = %+v %v %v (void %v), want %+v %v (void %v)", tc.typestr, got, end, err, got.NumpyVoid(), tc.want, tc.end, tc.void)
		}
	}
	if r := Named("r24"); r.NumpyVoid() || !r.Equal(DataType{Kind: Raw, Size: 3, Name: "V3"}) {
		t.Errorf("r24: void %v; r24 and V3 must hold the same elements", r.NumpyVoid())
	}
}
