package pluginsource

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hashicorp/go-version"

	"github.com/zarrgw/zarrgw/host/internal/atomicfile"
	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
)

// Publish puts the package zipPath (version v of a for platform p) into
// the mirror directory dir, in the packed layout, and adds it to the
// directory's network mirror documents (index.json and VERSION.json beside
// it), keeping what they list already. The result serves both as a
// filesystem mirror and, from any static HTTP server, as a network mirror.
func Publish(dir string, a pluginpkg.Address, v *version.Version, p pluginpkg.Platform, zipPath string) error {
	hashes, err := pluginpkg.ZipHashes(zipPath)
	if err != nil {
		return err
	}
	pdir := filepath.Join(dir, filepath.FromSlash(a.Path()))
	if err := os.MkdirAll(pdir, 0o755); err != nil {
		return err
	}
	name := pluginpkg.FileName(a.Type, v, p)
	if err := copyFile(zipPath, filepath.Join(pdir, name)); err != nil {
		return err
	}
	var versions VersionIndex
	if err := readJSON(filepath.Join(pdir, "index.json"), &versions); err != nil {
		return err
	}
	if versions.Versions == nil {
		versions.Versions = map[string]struct{}{}
	}
	versions.Versions[v.String()] = struct{}{}
	var archives PackageIndex
	if err := readJSON(filepath.Join(pdir, v.String()+".json"), &archives); err != nil {
		return err
	}
	if archives.Archives == nil {
		archives.Archives = map[string]Archive{}
	}
	archives.Archives[p.String()] = Archive{URL: name, Hashes: hashes}
	if err := writeJSON(filepath.Join(pdir, v.String()+".json"), archives); err != nil {
		return err
	}
	return writeJSON(filepath.Join(pdir, "index.json"), versions)
}

// readJSON decodes the file at path into v; a missing file leaves v as it is.
func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// writeJSON writes v to path, indented, through a file renamed into place.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(path, 0o644, append(b, '\n'))
}

func copyFile(from, to string) error {
	if same, _ := sameFile(from, to); same {
		return nil
	}
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	return atomicfile.Write(to, 0o644, func(w io.Writer) error {
		_, err := io.Copy(w, in)
		return err
	})
}

func sameFile(a, b string) (bool, error) {
	ia, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	ib, err := os.Stat(b)
	if err != nil {
		return false, err
	}
	return os.SameFile(ia, ib), nil
}
