package keypath

import (
	"errors"
	"testing"
)

// TestSplitDatasetPath checks the dataset and key of request paths: the
// slashes a client adds after the dataset's URL are one, every other
// empty, "." or ".." segment is refused.
func TestSplitDatasetPath(t *testing.T) {
	for _, c := range []struct {
		path, dataset, key string
		bad                bool
	}{
		{path: "/d/era5", dataset: "era5"},
		{path: "/d/era5/t2m/zarr.json", dataset: "era5", key: "t2m/zarr.json"},
		{path: "/d/era5//t2m/zarr.json", dataset: "era5", key: "t2m/zarr.json"},
		{path: "/d/era5///t2m/c/0/1", dataset: "era5", key: "t2m/c/0/1"},
		{path: "/d/era5/t2m%20x/zarr.json", dataset: "era5", key: "t2m x/zarr.json"},
		{path: "/d/era5/t2m//zarr.json", bad: true},
		{path: "/d/era5//../secret", bad: true},
		{path: "/d/era5/./t2m", bad: true},
		{path: "/d/era5/t2m%2Fzarr.json", bad: true},
		{path: "/d//era5/t2m", bad: true},
		{path: "/x/era5/t2m", bad: true},
	} {
		ds, key, err := SplitDatasetPath(c.path)
		switch {
		case c.bad && !errors.Is(err, ErrBadPath):
			t.Errorf("%s: dataset %q key %q err %v, want ErrBadPath", c.path, ds, key, err)
		case !c.bad && (err != nil || ds != c.dataset || key != c.key):
			t.Errorf("%s: dataset %q key %q err %v, want %q %q", c.path, ds, key, err, c.dataset, c.key)
		}
	}
}
