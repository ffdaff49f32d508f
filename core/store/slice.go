package store

// SliceRange returns the part of data that r selects, clipped as Resolve
// clips it. It shares data's backing array; stores without native ranges
// use it after a whole read.
func SliceRange(data []byte, r ByteRange) ([]byte, error) {
	start, end, err := r.Resolve(int64(len(data)))
	if err != nil {
		return nil, err
	}
	return data[start:end:end], nil
}
