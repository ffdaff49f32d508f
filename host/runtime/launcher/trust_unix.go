//go:build unix

package launcher

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// trustCheck checks that only zarrgw's user or root can change a plugin's
// files or put others in their place: each file, and each directory above
// it up to the root, is owned by one of them and writable by neither its
// group nor others. A directory with the sticky bit (/tmp) may be, since
// others can neither remove nor rename there what is not theirs. Each
// directory is checked once.
type trustCheck struct{ dirs map[string]bool }

// file checks the file or directory at path, whose os.Stat is info, and
// the directories above its real path.
func (c *trustCheck) file(path string, info fs.FileInfo) error {
	if err := ownedAndClosed(path, info); err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	if c.dirs == nil {
		c.dirs = map[string]bool{}
	}
	for dir := filepath.Dir(real); !c.dirs[dir]; dir = filepath.Dir(dir) {
		info, err := os.Stat(dir)
		if err != nil {
			return err
		}
		if err := ownedAndClosed(dir, info); err != nil {
			return err
		}
		c.dirs[dir] = true // a failure above refuses the start anyway
		if filepath.Dir(dir) == dir {
			break
		}
	}
	return nil
}

// ownedAndClosed checks one file or directory: its owner is zarrgw's user
// or root, and no one else may write to it.
func ownedAndClosed(path string, info fs.FileInfo) error {
	if st, ok := info.Sys().(*syscall.Stat_t); ok && st.Uid != 0 && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("%s is owned by uid %d, neither zarrgw's user (uid %d) nor root, who could change what runs: give it to one of them (chown)",
			path, st.Uid, os.Geteuid())
	}
	mode := info.Mode()
	if mode.IsDir() && mode&fs.ModeSticky != 0 {
		return nil
	}
	var who string
	switch mode.Perm() & 0o022 {
	case 0:
		return nil
	case 0o020:
		who = "its group"
	case 0o002:
		who = "others"
	default:
		who = "its group and others"
	}
	return fmt.Errorf("%s is writable by %s (%s), who could change what runs: remove that with chmod go-w %s", path, who, mode, path)
}
