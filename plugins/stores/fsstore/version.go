package fsstore

import (
	"strconv"

	"golang.org/x/sys/unix"
)

// formatVersion renders inode, size and mtime (ns) as one token.
func formatVersion(ino uint64, size, mtimeNs int64) string {
	buf := make([]byte, 0, 3*17)
	buf = strconv.AppendUint(buf, ino, 16)
	buf = append(buf, '-')
	buf = strconv.AppendInt(buf, size, 16)
	buf = append(buf, '-')
	buf = strconv.AppendInt(buf, mtimeNs, 16)
	return string(buf)
}

func versionOfStat(st *unix.Stat_t) string {
	return formatVersion(uint64(st.Ino), st.Size, st.Mtim.Nano())
}
