//go:build unix && !linux

package pluginapi

import "os"

// createShared makes a file of size bytes readable by this user only, in
// the temporary directory, and maps it; done removes the file once the
// plugin has mapped it.
func createShared(size int) (path string, mem []byte, done func(), err error) {
	f, err := os.CreateTemp("", "zarrgw-arena-*")
	if err != nil {
		return "", nil, nil, err
	}
	defer f.Close()
	if err = f.Truncate(int64(size)); err == nil {
		mem, err = mmapShared(int(f.Fd()), size)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", nil, nil, err
	}
	return f.Name(), mem, func() { os.Remove(f.Name()) }, nil
}

// trimShared keeps the memory: a file's pages are not freed by a hint.
func trimShared([]byte) error { return nil }
