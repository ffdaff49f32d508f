package launcher

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
)

// binary is a plugin's file opened once for a start: who may change it is
// checked on it, it is hashed through it, and the process runs it by that
// descriptor (execByDescriptor), so that the file checked is the file run
// even if another one takes its name meanwhile.
type binary struct {
	f *os.File
}

func (b *binary) Close() error { return b.f.Close() }

// headSize is how much of a file decides whether it is a Python script.
const headSize = 256

// openBinary opens the plugin's file and vouches for it before its start:
// only zarrgw's user or root can change it or the directories above it
// (trusted); its SHA-256 is the pinned one; and a Python script's modules
// (the files Python imports from beside it, which a script's own hash does
// not cover) are as trusted and match their pinned h1: hash. An error
// names the plugin and the file, and wraps ErrUnavailable.
func (p *Plugin) openBinary() (*binary, error) {
	want, err := decodeChecksum(p.spec.SHA256)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %w", p.spec.Name, err)
	}
	f, err := openForExec(p.spec.Path)
	if err != nil {
		return nil, p.refuse("%v", err)
	}
	b := &binary{f: f}
	if err := p.vouch(b, want); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

func (p *Plugin) vouch(b *binary, want []byte) error {
	info, err := b.f.Stat()
	if err != nil {
		return p.refuse("%v", err)
	}
	if !info.Mode().IsRegular() {
		return p.refuse("%s is not a regular file (%s)", p.spec.Path, info.Mode().Type())
	}
	var c trustCheck
	if err := c.file(p.spec.Path, info); err != nil {
		return p.refuse("%v", err)
	}
	h, head := sha256.New(), &prefixBuffer{n: headSize}
	if _, err := io.Copy(io.MultiWriter(h, head), b.f); err != nil {
		return p.refuse("reading %s: %v", p.spec.Path, err)
	}
	if sum := h.Sum(nil); !bytes.Equal(sum, want) {
		return p.mismatch(hex.EncodeToString(sum))
	}
	if pluginpkg.PythonScript(head.b) {
		return p.vouchModules(&c)
	}
	return nil
}

// vouchModules checks the Python files beside a Python plugin's script:
// each trusted, together matching the pinned h1: hash.
func (p *Plugin) vouchModules(c *trustCheck) error {
	dir, err := pluginpkg.PythonDir(p.spec.Path)
	if err != nil {
		return p.refuse("%v", err)
	}
	err = pluginpkg.PythonTree(dir, func(_, path string, info fs.FileInfo) error { return c.file(path, info) })
	if err != nil {
		return p.refuse("%v", err)
	}
	h1, n, err := pluginpkg.HashPython(dir)
	if err != nil {
		return p.refuse("%v", err)
	}
	switch {
	case p.spec.Modules == "":
		return p.unpinned("%s is a Python program, and the %d Python files in %s (%s), which it may import, are not pinned",
			p.spec.Path, n, dir, h1)
	case h1 != p.spec.Modules:
		return p.unpinned("the %d Python files in %s, beside %s, have %s, which does not match their pinned %s: one was changed, added or removed",
			n, dir, filepath.Base(p.spec.Path), h1, p.spec.Modules)
	}
	return nil
}

// refuse is the error for a plugin that is not started: unavailable, as a
// plugin that will not start is (the gateway answers 503).
func (p *Plugin) refuse(format string, args ...any) error {
	return fmt.Errorf("plugin %s: %w: %s; not started", p.spec.Name, ErrUnavailable, fmt.Sprintf(format, args...))
}

// unpinned is refuse for a file that does not match its pin, followed by
// the spec's advice.
func (p *Plugin) unpinned(format string, args ...any) error {
	err := p.refuse(format, args...)
	if p.spec.Remedy == "" {
		return err
	}
	return fmt.Errorf("%w. %s", err, p.spec.Remedy)
}

// prefixBuffer keeps the first n bytes written to it.
type prefixBuffer struct {
	n int
	b []byte
}

func (w *prefixBuffer) Write(p []byte) (int, error) {
	if room := w.n - len(w.b); room > 0 {
		w.b = append(w.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}
