package launcher

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/zarrgw/zarrgw/core/extension"
)

// Entry is one extension in a listing, or a plugin that could not say what
// it serves (no Manifest.Name).
type Entry struct {
	// Plugin is the launcher name of the plugin serving it, "" when the
	// extension is bundled and runs in process.
	Plugin   string
	Manifest extension.Manifest
	Status   Status
	// OverriddenBy is the plugin whose extension of the same name is used
	// instead of this bundled one.
	OverriddenBy string
}

// List returns an entry for each extension of each plugin, starting those
// whose manifests are not known yet. A plugin that fails is listed once,
// with its error.
func (l *Launcher) List(ctx context.Context) []Entry {
	var out []Entry
	for _, p := range l.Plugins() {
		ms, err := p.Manifests(ctx)
		st := p.Status()
		if err != nil {
			if st.Err == nil {
				st.Err = err
			}
			out = append(out, Entry{Plugin: p.Name(), Status: st})
			continue
		}
		for _, m := range ms {
			out = append(out, Entry{Plugin: p.Name(), Manifest: m, Status: st})
		}
	}
	return out
}

// WriteTable prints entries as a table: name, kind, version, where it
// runs, state, and the other names it answers to; then how names resolve.
func WriteTable(w io.Writer, entries []Entry) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tVERSION\tPLUGIN\tSTATE\tALSO KNOWN AS")
	for _, e := range entries {
		m := e.Manifest
		plugin, state := e.Plugin, describeState(e.Status)
		if plugin == "" {
			plugin, state = "(bundled)", "in process"
			if e.OverriddenBy != "" {
				state = "overridden by " + e.OverriddenBy
			}
		}
		name := m.Name
		if name == "" {
			name = "?"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", name, orDash(string(m.Kind)), orDash(m.Version), plugin, state,
			orDash(strings.Join(append(append([]string(nil), m.Aliases...), m.URIs...), " ")))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\nResolution: %s.\n", extension.ResolutionOrder)
	return err
}

func describeState(s Status) string {
	out := string(s.State)
	if s.PID != 0 {
		out += fmt.Sprintf(" (pid %d)", s.PID)
	}
	if s.Restarts > 0 {
		out += fmt.Sprintf(", %d restarts", s.Restarts)
	}
	if s.Err != nil && s.State != Running {
		out += ": " + strings.ReplaceAll(s.Err.Error(), "\n", " ")
	}
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
