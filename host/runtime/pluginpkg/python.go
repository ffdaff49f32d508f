package pluginpkg

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/sumdb/dirhash"
)

// PythonScript reports whether a file that starts with head is a Python
// program: a script whose "#!" line runs python, directly
// ("#!/usr/bin/python3") or through env ("#!/usr/bin/env python3").
func PythonScript(head []byte) bool {
	line, ok := bytes.CutPrefix(head, []byte("#!"))
	if !ok {
		return false
	}
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	fields := strings.Fields(string(line))
	if len(fields) == 0 {
		return false
	}
	interpreter := filepath.Base(fields[0])
	if interpreter == "env" {
		for _, f := range fields[1:] {
			if !strings.HasPrefix(f, "-") && !strings.Contains(f, "=") {
				interpreter = filepath.Base(f)
				break
			}
		}
	}
	return strings.HasPrefix(interpreter, "python")
}

// IsPythonScript reports whether the file at path is a Python program
// (PythonScript).
func IsPythonScript(path string) (bool, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head, err := bufio.NewReader(f).Peek(256)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return false, fmt.Errorf("reading %s: %w", path, err)
	}
	return PythonScript(head), nil
}

// PythonDir is the directory Python imports a script's own modules from:
// that of the script's real path (Python resolves links to find it).
func PythonDir(script string) (string, error) {
	real, err := filepath.EvalSymlinks(script)
	if err != nil {
		return "", err
	}
	return filepath.Dir(real), nil
}

// pythonSuffixes are the endings of the files Python imports modules
// from: sources, bytecode (a .pyc beside no source is imported as the
// module) and extension modules (.so, with or without an ABI tag; .pyd on
// Windows).
var pythonSuffixes = []string{".py", ".pyw", ".pyc", ".so", ".pyd"}

// PythonFiles lists the files Python could import from dir, the directory
// of a Python plugin's script (Python puts it first on sys.path), as
// slash-separated names below dir: every file with a module's suffix, at
// any depth, below directories that can be packages. A directory whose
// name holds a dot cannot be (the dot separates a module's name), and
// __pycache__ is never read: the launcher points Python's bytecode cache
// elsewhere. Symbolic links are followed, as Python follows them; a link
// to a directory that holds it is refused, since Python's imports would
// not end either.
func PythonFiles(dir string) ([]string, error) {
	var files []string
	err := PythonTree(dir, func(name, _ string, info fs.FileInfo) error {
		if !info.IsDir() {
			files = append(files, name)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	return files, nil
}

// PythonTree calls visit for each file PythonFiles lists and for each
// directory it descends, dir's own first (name ""): its name below dir,
// its path and what os.Stat says of it.
func PythonTree(dir string, visit func(name, path string, info fs.FileInfo) error) error {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	info, err := os.Stat(real)
	if err != nil {
		return err
	}
	if err := visit("", real, info); err != nil {
		return err
	}
	return pythonWalk(dir, "", []string{real}, visit)
}

// pythonWalk visits what dir (named name below the root) holds of Python's
// modules. chain holds the real paths of the directories being descended.
func pythonWalk(dir, name string, chain []string, visit func(name, path string, info fs.FileInfo) error) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		childName, childPath := e.Name(), filepath.Join(dir, e.Name())
		if name != "" {
			childName = name + "/" + e.Name()
		}
		info, err := os.Stat(childPath) // follows links, as Python does
		if err != nil {
			if e.Type()&fs.ModeSymlink != 0 && os.IsNotExist(err) {
				continue // a dangling link imports nothing
			}
			return err
		}
		switch {
		case info.Mode().IsRegular():
			if !slices.ContainsFunc(pythonSuffixes, func(s string) bool { return strings.HasSuffix(e.Name(), s) }) {
				continue
			}
			if err := visit(childName, childPath, info); err != nil {
				return err
			}
		case info.IsDir():
			if strings.Contains(e.Name(), ".") || e.Name() == "__pycache__" {
				continue
			}
			real, err := filepath.EvalSymlinks(childPath)
			if err != nil {
				return err
			}
			if slices.Contains(chain, real) {
				return fmt.Errorf("%s: a symbolic link to %s, which holds it", childPath, real)
			}
			if err := visit(childName, real, info); err != nil {
				return err
			}
			if err := pythonWalk(childPath, childName, append(chain[:len(chain):len(chain)], real), visit); err != nil {
				return err
			}
		}
	}
	return nil
}

// HashPython returns the h1: hash of the files Python could import from
// dir (PythonFiles): dirhash's Hash1, as of an installed package, over
// those files, and how many there are.
func HashPython(dir string) (h1 string, files int, err error) {
	names, err := PythonFiles(dir)
	if err != nil {
		return "", 0, fmt.Errorf("hash the Python files of %s: %w", dir, err)
	}
	h1, err = dirhash.Hash1(names, func(name string) (io.ReadCloser, error) {
		return OpenRegular(filepath.Join(dir, filepath.FromSlash(name)))
	})
	if err != nil {
		return "", 0, fmt.Errorf("hash the Python files of %s: %w", dir, err)
	}
	return h1, len(names), nil
}

// PythonModules returns, for a plugin file that is a Python script, the
// h1: hash of the Python files it may import from its directory
// (HashPython of PythonDir), which pins them as SHA-256 pins the script;
// for any other file, "".
func PythonModules(path string) (string, error) {
	python, err := IsPythonScript(path)
	if err != nil || !python {
		return "", err
	}
	dir, err := PythonDir(path)
	if err != nil {
		return "", err
	}
	h1, _, err := HashPython(dir)
	return h1, err
}
