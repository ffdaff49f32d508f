package launcher

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
)

// openForExec opens the regular file at path to run it by its descriptor,
// which is then 3 or more (a host started with stdin closed gets 0 from
// open).
func openForExec(path string) (*os.File, error) {
	f, err := pluginpkg.OpenRegular(path)
	if err != nil || f.Fd() >= 3 {
		return f, err
	}
	defer f.Close()
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return os.NewFile(uintptr(fd), path), nil
}

// execByDescriptor has cmd run the file f holds rather than whatever its
// path names when the process starts: the child holds f at f's own number
// N (the other numbers above 2 closed) and execs /proc/self/fd/N. For a
// script, the kernel hands the interpreter that name, which opens the same
// file through N: Python takes the directory of its modules from where
// the link points. The child's argv[0] stays the file's path.
func execByDescriptor(cmd *exec.Cmd, f *os.File) {
	fd := int(f.Fd())
	cmd.Path = "/proc/self/fd/" + strconv.Itoa(fd)
	cmd.ExtraFiles = make([]*os.File, fd-2)
	cmd.ExtraFiles[fd-3] = f
}
