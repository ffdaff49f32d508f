// Package walkthrough runs the walk-throughs of the project's Markdown
// files, so that they cannot rot: a fenced block whose info string names a
// walk-through ("```sh walkthrough=codec") is part of it. Blocks with a
// file=PATH attribute are written to PATH below the walk-through's
// directory; sh blocks are run in order, as one bash script, in that
// directory. A block with from=PATH quotes a file of the repository and
// must appear in it verbatim.
package walkthrough

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Block is one fenced block of a Markdown file.
type Block struct {
	Lang  string
	Attrs map[string]string
	Text  string
	// Line is the line of the opening fence, for messages.
	Line int
}

// Parse returns the fenced blocks of the Markdown file at path.
func Parse(path string) ([]Block, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []Block
	var cur *Block
	var text strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(src))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			fields := strings.Fields(strings.TrimPrefix(line, "```"))
			cur = &Block{Attrs: map[string]string{}, Line: n}
			for i, f := range fields {
				if k, v, ok := strings.Cut(f, "="); ok {
					cur.Attrs[k] = v
				} else if i == 0 {
					cur.Lang = f
				}
			}
			text.Reset()
		case cur != nil && strings.TrimSpace(line) == "```":
			cur.Text = text.String()
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			text.WriteString(line + "\n")
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("%s:%d: block never closed", path, cur.Line)
	}
	return out, sc.Err()
}

// Of returns the blocks of the walk-through called name.
func Of(blocks []Block, name string) []Block {
	var out []Block
	for _, b := range blocks {
		if b.Attrs["walkthrough"] == name {
			out = append(out, b)
		}
	}
	return out
}

// Write writes the file blocks below dir.
func Write(dir string, blocks []Block) error {
	for _, b := range blocks {
		name := b.Attrs["file"]
		if name == "" {
			continue
		}
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(b.Text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Script is the sh blocks joined into one script, each command echoed
// (set -x) so a failure shows where it happened.
func Script(blocks []Block) string {
	var b strings.Builder
	b.WriteString("set -euo pipefail -x\n")
	for _, blk := range blocks {
		if blk.Lang == "sh" && blk.Attrs["file"] == "" {
			b.WriteString(blk.Text)
		}
	}
	return b.String()
}

// Run runs the sh blocks in dir with env added to the environment, and
// returns their combined output.
func Run(dir string, blocks []Block, env ...string) (string, error) {
	cmd := exec.Command("bash", "-c", Script(blocks))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Quoted checks the from= blocks: each must appear verbatim in the file
// it names, below root.
func Quoted(root string, blocks []Block) error {
	for _, b := range blocks {
		from := b.Attrs["from"]
		if from == "" {
			continue
		}
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(from)))
		if err != nil {
			return fmt.Errorf("line %d: %w", b.Line, err)
		}
		if !strings.Contains(string(src), b.Text) {
			return fmt.Errorf("line %d: the block quoted from %s is not in it:\n%s", b.Line, from, b.Text)
		}
	}
	return nil
}

// Prepare readies dir for the walk-through name of the Markdown file doc
// (a path below the repository root): the repository as zarrgw/ in it, as
// the walk-throughs assume a checkout beside them, and the walk-through's
// files. It returns the walk-through's blocks, for Run.
func Prepare(root, doc, name, dir string) ([]Block, error) {
	blocks, err := Parse(filepath.Join(root, filepath.FromSlash(doc)))
	if err != nil {
		return nil, err
	}
	blocks = Of(blocks, name)
	if len(blocks) == 0 {
		return nil, fmt.Errorf("%s has no walk-through %q", doc, name)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	if err := os.Symlink(abs, filepath.Join(dir, "zarrgw")); err != nil {
		return nil, err
	}
	return blocks, Write(dir, blocks)
}
