package fsstore

import (
	"context"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/zarrgw/zarrgw/core/store"
)

// OpenFile opens key's value for a server to send with sendfile, or
// reads it into buf where it fits (one open, fstat, pread and close, as
// Get). The
// version is that of the open file: values are replaced by renaming a new
// file over the old, so the open file keeps the bytes of the version
// reported even if the key is written meanwhile.
func (s *Store) OpenFile(ctx context.Context, key string, buf []byte) (*os.File, store.Info, error) {
	if err := ctx.Err(); err != nil {
		return nil, store.Info{}, fmt.Errorf("fs: open %q: %w", key, err)
	}
	if err := checkKey(key); err != nil {
		return nil, store.Info{}, err
	}
	fd, err := s.openat(key, unix.O_RDONLY|unix.O_NONBLOCK)
	if err != nil {
		return nil, store.Info{}, readErr("get", key, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, store.Info{}, readErr("get", key, err)
	}
	if err := checkMode(key, st.Mode); err != nil {
		unix.Close(fd)
		return nil, store.Info{}, err
	}
	info := store.Info{Size: st.Size, Version: versionOfStat(&st), ModTime: time.Unix(0, st.Mtim.Nano())}
	if st.Size <= int64(len(buf)) {
		defer unix.Close(fd)
		if err := preadFull(fd, buf[:st.Size], 0); err != nil {
			return nil, store.Info{}, fmt.Errorf("fs: get %q: %w", key, err)
		}
		return nil, info, nil
	}
	return os.NewFile(uintptr(fd), key), info, nil
}
