package launcher

import (
	"encoding/json"
	"io"

	"github.com/zarrgw/zarrgw/core/extension"
)

// ListJSON is "zarrgw plugins list --json": every extension, as
// WriteTable lists them. Its field names are stable; new fields may be
// added.
type ListJSON struct {
	FormatVersion string          `json:"format_version"` // "1"
	Extensions    []ExtensionJSON `json:"extensions"`
	// Resolution says how a name served twice resolves.
	Resolution string `json:"resolution"`
}

// ExtensionJSON is one extension of a listing.
type ExtensionJSON struct {
	// Name is "" for a plugin that could not say what it serves (Error
	// says why).
	Name    string         `json:"name"`
	Kind    extension.Kind `json:"kind"` // "codec", "store", "transformer", or "" as Name
	Version string         `json:"version"`
	Aliases []string       `json:"aliases"`
	URIs    []string       `json:"uris"`
	// Bundled is true for an extension of zarrgw itself, run in process;
	// Plugin then is "". Otherwise Plugin names the plugin serving it: its
	// source address, or the binary given with --plugin.
	Bundled bool   `json:"bundled"`
	Plugin  string `json:"plugin"`
	// State is "in process" for a bundled extension, else the plugin's
	// process state ("not started", "running", "exited", "failed", ...).
	State    string `json:"state"`
	PID      int    `json:"pid"`
	Restarts int    `json:"restarts"`
	// Error is the plugin's last failure, "" when none.
	Error string `json:"error"`
	// OverriddenBy names the plugin whose extension of the same name is
	// used instead of this bundled one; "" when none.
	OverriddenBy string `json:"overridden_by"`
}

// WriteJSON writes entries as ListJSON, indented.
func WriteJSON(w io.Writer, entries []Entry) error {
	doc := ListJSON{FormatVersion: "1", Extensions: []ExtensionJSON{}, Resolution: extension.ResolutionOrder}
	for _, e := range entries {
		m := e.Manifest
		x := ExtensionJSON{
			Name: m.Name, Kind: m.Kind, Version: m.Version,
			Aliases: nonNil(m.Aliases), URIs: nonNil(m.URIs),
			Bundled: e.Plugin == "", Plugin: e.Plugin,
			State: string(e.Status.State), PID: e.Status.PID, Restarts: e.Status.Restarts,
			OverriddenBy: e.OverriddenBy,
		}
		if x.Bundled {
			x.State = "in process"
		}
		if e.Status.Err != nil {
			x.Error = e.Status.Err.Error()
		}
		doc.Extensions = append(doc.Extensions, x)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
