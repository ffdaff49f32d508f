package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/zarrgw/zarrgw/host/runtime/config/hclread"
)

// fsStore is the name of the bundled filesystem store, whose root is a
// directory of this machine: the one store configuration whose paths the
// configuration resolves and checks (plugins/stores/fsstore).
const fsStore = "fs"

// fsRoot resolves the root of a bundled fs store: relative to the
// configuration file's directory (as plugin paths are, and as path.config
// spells out), not to the directory zarrgw happens to run in, and made
// absolute in the configuration the store gets. VerifyStores then checks
// that the directory exists.
func (d *decoder) fsRoot(st *Store, b *hcl.Block) hcl.Diagnostics {
	ext := st.Extension
	if ext.Plugin != "" || !ext.Checked || ext.Manifest.Name != fsStore {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(ext.Config))
	dec.UseNumber()
	var conf map[string]any
	if err := dec.Decode(&conf); err != nil {
		return nil // checked against the schema already; the store reports it
	}
	st.RootRange = b.DefRange
	if body, ok := b.Body.(*hclsyntax.Body); ok {
		if a := body.Attributes["root"]; a != nil {
			st.RootRange = a.SrcRange
		}
	}
	written, _ := conf["root"].(string)
	if written == "" {
		return nil // the store refuses it
	}
	st.CreateRoot, _ = conf["create_root"].(bool)
	st.Root = d.ev.RelPath(written)
	st.rootWritten = written
	if st.Root != written {
		conf["root"] = st.Root
		if b, err := json.Marshal(conf); err == nil {
			st.Extension.Config = b
		}
	}
	return nil
}

// VerifyStores checks that the root of every fs store is a directory, as
// "zarrgw validate" and every command that loads a configuration do
// before opening a store: a root that does not exist is an error naming
// its line, unless the store block says create_root = true, in which case
// the store creates it (and its parents) when first used. Nothing is
// created silently where a typo put it.
func VerifyStores(cfg *Config) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, st := range cfg.Stores {
		if st.Root == "" {
			continue
		}
		where := st.Root
		if st.rootWritten != st.Root {
			where = fmt.Sprintf("%s (%q, taken relative to the directory of %s)", st.Root, st.rootWritten, cfg.Filename)
		}
		fi, err := os.Stat(st.Root)
		switch {
		case err == nil && fi.IsDir():
		case err == nil:
			diags = append(diags, hclread.ErrorAt(st.RootRange, "Store root is not a directory",
				"%s: root %s is a file, not a directory.", st.Ref, where))
		case errors.Is(err, fs.ErrNotExist) && st.CreateRoot:
		case errors.Is(err, fs.ErrNotExist):
			diags = append(diags, hclread.ErrorAt(st.RootRange, "Store root does not exist",
				"%s: root %s does not exist. Create the directory (mkdir -p %s), or set create_root = true in the store block to have zarrgw create it, and its parents, when the store is first used.",
				st.Ref, where, shellQuote(st.Root)))
		default:
			diags = append(diags, hclread.ErrorAt(st.RootRange, "Store root unreadable", "%s: root %s: %s.", st.Ref, where, err))
		}
	}
	return cfg.redactor.Diagnostics(diags)
}

// shellQuote quotes a path for a command to copy, when it needs it.
func shellQuote(p string) string {
	for _, r := range p {
		if !(r == '/' || r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return "'" + filepath.ToSlash(p) + "'"
		}
	}
	return p
}

// referencesStore is the bundled references store, whose reference set
// may be a path of this machine.
const referencesStore = "references"

// referencesPath makes the reference set of a bundled references store,
// and the directories of its allow_targets, that are relative paths
// relative to the configuration file's directory, as fs roots are; URLs
// stay as written.
func (d *decoder) referencesPath(st *Store) {
	ext := st.Extension
	if ext.Plugin != "" || !ext.Checked || ext.Manifest.Name != referencesStore {
		return
	}
	var conf map[string]any
	if json.Unmarshal(ext.Config, &conf) != nil {
		return // checked against the schema already; the store reports it
	}
	if loc, _ := conf["references"].(string); relativePath(loc) {
		conf["references"] = d.ev.RelPath(loc)
	}
	allowed, _ := conf["allow_targets"].([]any)
	for i, a := range allowed {
		if dir, _ := a.(string); relativePath(dir) {
			allowed[i] = d.ev.RelPath(dir)
		}
	}
	if b, err := json.Marshal(conf); err == nil {
		st.Extension.Config = b
	}
}

// relativePath reports whether loc is a relative path (not a URL).
func relativePath(loc string) bool {
	return loc != "" && !strings.Contains(loc, "://") && !filepath.IsAbs(loc)
}
