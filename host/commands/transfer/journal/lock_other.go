//go:build !unix

package journal

import "os"

// tryLock takes no lock where there is no flock: two runs of one copy at
// once each do the whole of it (correctly, as each writes the same bytes).
func tryLock(*os.File) (bool, error) { return true, nil }

// removeHeld closes the journal and removes it (a file open cannot be
// removed everywhere).
func removeHeld(path string, f *os.File) error {
	err := f.Close()
	if rerr := os.Remove(path); err == nil {
		err = rerr
	}
	return err
}
