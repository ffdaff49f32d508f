package pluginpkg

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// bytecode reports whether name is Python's bytecode cache: a __pycache__
// directory or a compiled *.pyc module. Python writes them beside the
// sources it imports; in a package they would be hashed into its h1:
// (one machine's build litter pinned in everyone's lock file) and are
// never needed, since Python compiles the sources again.
func bytecode(name string) bool {
	return name == "__pycache__" || strings.HasSuffix(name, ".pyc")
}

// members gathers the files packed beside a package's executable, under
// names unique in the package.
type members struct {
	list []member
	// names maps each name taken, case-folded (a package unpacks on
	// case-insensitive file systems too), directories included, to what
	// took it, for the error that refuses a second.
	names map[string]string
}

// take claims name for what, the path it comes from.
func (ms *members) take(name, what string) error {
	if strings.ContainsAny(name, "\\\n") {
		// Unpack refuses the one, dirhash cannot hash the other.
		return fmt.Errorf("%s: the name %q cannot be in a package", what, name)
	}
	key := strings.ToLower(name)
	if prev, ok := ms.names[key]; ok {
		if prev == what {
			return fmt.Errorf("%s is given twice", what)
		}
		return fmt.Errorf("%s and %s would both be %q in the package; rename one", prev, what, name)
	}
	ms.names[key] = what
	return nil
}

// add packs the file or directory path (a symbolic link given here is
// followed) under its base name.
func (ms *members) add(path string) error {
	name := filepath.Base(filepath.Clean(path))
	if name == "." || name == ".." || name == string(filepath.Separator) {
		return fmt.Errorf("%s: name the file or directory to pack by its own name", path)
	}
	if bytecode(name) {
		return fmt.Errorf("%s: Python's bytecode cache is never packed (Python writes it again from the sources)", path)
	}
	info, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("pack %s: %w", path, err)
	}
	switch {
	case info.Mode().IsRegular():
		return ms.file(name, path, info)
	case info.IsDir():
		root, err := filepath.EvalSymlinks(path)
		if err != nil {
			return fmt.Errorf("pack %s: %w", path, err)
		}
		if err := ms.take(name, "the directory "+path); err != nil {
			return err
		}
		return ms.dir(name, path, root, []string{root})
	default:
		return fmt.Errorf("pack %s: not a regular file or a directory (%s)", path, info.Mode().Type())
	}
}

func (ms *members) file(name, path string, info fs.FileInfo) error {
	if err := ms.take(name, path); err != nil {
		return err
	}
	// Only whether a file is executable is kept, as Unpack keeps it: the
	// packer's umask does not reach the package.
	mode := fs.FileMode(0o644)
	if info.Mode()&0o111 != 0 {
		mode = 0o755
	}
	ms.list = append(ms.list, member{name: name, path: path, mode: mode})
	return nil
}

// dir packs what the directory path holds under name. root is the real
// path of the directory given to pack: a symbolic link inside it is
// followed only to what is under root, since what it reaches outside is
// one machine's file system, not the plugin. chain holds the real paths
// of the directories being descended, so that a link back to one of them
// is refused rather than followed for ever.
func (ms *members) dir(name, path, root string, chain []string) error {
	entries, err := os.ReadDir(path)
	if err != nil {
		return fmt.Errorf("pack %s: %w", path, err)
	}
	for _, e := range entries {
		if bytecode(e.Name()) {
			continue
		}
		childName, childPath := name+"/"+e.Name(), filepath.Join(path, e.Name())
		real := filepath.Join(chain[len(chain)-1], e.Name())
		if e.Type()&fs.ModeSymlink != 0 {
			if real, err = filepath.EvalSymlinks(childPath); err != nil {
				return fmt.Errorf("pack %s: %w", childPath, err)
			}
			if rel, err := filepath.Rel(root, real); err != nil || !filepath.IsLocal(rel) {
				return fmt.Errorf("pack %s: a symbolic link to %s, outside %s: a package holds only what is under the directories packed", childPath, real, root)
			}
		}
		info, err := os.Stat(childPath)
		if err != nil {
			return fmt.Errorf("pack %s: %w", childPath, err)
		}
		switch {
		case info.Mode().IsRegular():
			err = ms.file(childName, childPath, info)
		case info.IsDir():
			if slices.Contains(chain, real) {
				return fmt.Errorf("pack %s: a symbolic link to %s, which holds it: packing it would never end", childPath, real)
			}
			if err = ms.take(childName, "the directory "+childPath); err == nil {
				err = ms.dir(childName, childPath, root, append(chain[:len(chain):len(chain)], real))
			}
		default:
			err = fmt.Errorf("pack %s: not a regular file or a directory (%s)", childPath, info.Mode().Type())
		}
		if err != nil {
			return err
		}
	}
	return nil
}
