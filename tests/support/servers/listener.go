package servers

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// listens reports whether process pid itself holds the listening socket
// of loopback port: the server answering there is the one the test
// started, not another that took the port first (a port found free can
// be taken before the server binds it, and another test's server then
// answers in its place).
func listens(pid, port int) (bool, error) {
	inode, err := listenerInode(port)
	if err != nil || inode == "" {
		return false, err
	}
	fds, err := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
	if err != nil {
		return false, err
	}
	want := "socket:[" + inode + "]"
	for _, fd := range fds {
		if target, err := os.Readlink(fd); err == nil && target == want {
			return true, nil
		}
	}
	return false, nil
}

// listenerInode is the inode of the socket listening on 127.0.0.1:port,
// from /proc/net/tcp ("" if none).
func listenerInode(port int) (string, error) {
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		return "", err
	}
	defer f.Close()
	local := fmt.Sprintf("0100007F:%04X", port)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
		fields := strings.Fields(sc.Text())
		if len(fields) >= 10 && fields[1] == local && fields[3] == "0A" { // 0A: LISTEN
			if _, err := strconv.ParseUint(fields[9], 10, 64); err == nil {
				return fields[9], nil
			}
		}
	}
	return "", sc.Err()
}
