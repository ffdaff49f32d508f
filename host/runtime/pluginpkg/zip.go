package pluginpkg

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/zarrgw/zarrgw/host/internal/atomicfile"
)

// Build writes the package of the plugin executable bin to zipPath: a zip
// holding it, named as Executable says, executable, and beside it each of
// files, the files an interpreted plugin imports (a Python plugin's
// script finds its modules beside it): a file under its base name, a
// directory under its base name with everything under it. Files keep
// whether they are executable. Python's bytecode caches (__pycache__,
// *.pyc) are left out of directories. Refused: two members of one name
// (letter case aside, as on the file systems that fold it), a member
// named as the executable, a symbolic link inside a directory that leads
// out of it, anything but regular files and directories.
func Build(zipPath, bin, executable string, files ...string) error {
	ms := members{
		list:  []member{{name: executable, path: bin, mode: 0o755}},
		names: map[string]string{strings.ToLower(executable): "the executable " + bin},
	}
	for _, f := range files {
		if err := ms.add(f); err != nil {
			return err
		}
	}
	return writeZip(zipPath, ms.list)
}

// Pack writes the files of the unpacked package dir to zipPath.
func Pack(zipPath, dir string) error {
	var members []member
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		members = append(members, member{name: filepath.ToSlash(rel), path: path, mode: info.Mode().Perm()})
		return nil
	})
	if err != nil {
		return err
	}
	return writeZip(zipPath, members)
}

// member is a file to put in a zip.
type member struct {
	name, path string
	mode       fs.FileMode
}

func writeZip(zipPath string, members []member) error {
	return atomicfile.Write(zipPath, 0o644, func(w io.Writer) error {
		zw := zip.NewWriter(w)
		for _, m := range members {
			if err := addMember(zw, m); err != nil {
				return err
			}
		}
		return zw.Close()
	})
}

func addMember(zw *zip.Writer, m member) error {
	in, err := os.Open(m.path)
	if err != nil {
		return err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s is not a file", m.path)
	}
	h := &zip.FileHeader{Name: m.name, Method: zip.Deflate, Modified: info.ModTime().UTC()}
	h.SetMode(m.mode)
	fw, err := zw.CreateHeader(h)
	if err != nil {
		return err
	}
	_, err = io.Copy(fw, in)
	return err
}

// maxUnpacked bounds what a package may unpack to, so that a hostile zip
// cannot fill the disk.
const maxUnpacked = 1 << 30

// Unpack extracts the package zipPath into dir, which must not exist yet.
// Names that would land outside dir are refused; files keep whether they
// are executable.
func Unpack(zipPath, dir string) error {
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		return fmt.Errorf("open package %s: %w", zipPath, err)
	}
	defer zr.Close()
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	var total int64
	for _, f := range zr.File {
		name := filepath.FromSlash(f.Name)
		if !filepath.IsLocal(name) || strings.Contains(f.Name, `\`) {
			return fmt.Errorf("package %s: member %q leaves the package directory", zipPath, f.Name)
		}
		target := filepath.Join(dir, name)
		if f.FileInfo().IsDir() {
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
			continue
		}
		if !f.Mode().IsRegular() {
			return fmt.Errorf("package %s: member %q is not a regular file", zipPath, f.Name)
		}
		n, err := unpackFile(f, target, maxUnpacked-total)
		if err != nil {
			return fmt.Errorf("package %s: %s: %w", zipPath, f.Name, err)
		}
		total += n
	}
	return nil
}

func unpackFile(f *zip.File, target string, limit int64) (int64, error) {
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return 0, err
	}
	mode := os.FileMode(0o644)
	if f.Mode()&0o111 != 0 {
		mode = 0o755
	}
	rc, err := f.Open()
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, io.LimitReader(rc, limit+1)) // the zip's CRC-32 is checked at EOF
	if err == nil && n > limit {
		err = errors.New("unpacks to more than 1 GiB")
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return n, err
}
