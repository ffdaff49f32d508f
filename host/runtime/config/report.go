package config

import (
	"github.com/hashicorp/hcl/v2"
)

// Report is what "zarrgw validate --json" prints: the diagnostics, in the
// form of "terraform validate -json", and what the configuration
// declares. Field names are stable; new fields may be added. A
// configuration with errors is described as far as it was decoded.
type Report struct {
	FormatVersion string             `json:"format_version"` // "1.0"
	File          string             `json:"file"`
	Valid         bool               `json:"valid"`
	ErrorCount    int                `json:"error_count"`
	WarningCount  int                `json:"warning_count"`
	Diagnostics   []DiagnosticReport `json:"diagnostics"`
	// LockFile is the lock file the pins were read from (which need not
	// exist); SharedLock is true when it is the zarrgw.lock.hcl earlier
	// versions shared between the configurations of a directory.
	LockFile   string          `json:"lock_file"`
	SharedLock bool            `json:"shared_lock"`
	Datasets   []DatasetReport `json:"datasets"`
	Stores     []StoreReport   `json:"stores"`
	Plugins    []PluginReport  `json:"plugins"`
}

// DiagnosticReport is one diagnostic: severity "error" or "warning".
type DiagnosticReport struct {
	Severity string       `json:"severity"`
	Summary  string       `json:"summary"`
	Detail   string       `json:"detail"`
	Range    *RangeReport `json:"range,omitempty"`
}

// RangeReport is a range of a file; lines and columns count from 1,
// bytes from 0.
type RangeReport struct {
	Filename string    `json:"filename"`
	Start    PosReport `json:"start"`
	End      PosReport `json:"end"`
}

// PosReport is a position in a file.
type PosReport struct {
	Line   int `json:"line"`
	Column int `json:"column"`
	Byte   int `json:"byte"`
}

// DatasetReport is a declared dataset.
type DatasetReport struct {
	Name         string       `json:"name"`
	Store        string       `json:"store"` // store.TYPE.NAME
	Prefix       string       `json:"prefix"`
	ReadOnly     bool         `json:"read_only"`
	Consolidated bool         `json:"consolidated"`
	Transformers []string     `json:"transformers"`
	Codecs       []string     `json:"codecs"`
	Range        *RangeReport `json:"range"`
}

// StoreReport is a declared store; Root and CreateRoot are an fs store's
// (Root absolute, "" for other types).
type StoreReport struct {
	Ref        string       `json:"ref"` // store.TYPE.NAME
	Type       string       `json:"type"`
	Name       string       `json:"name"`
	Plugin     string       `json:"plugin"` // the plugin serving its type, "" when bundled
	Root       string       `json:"root,omitempty"`
	CreateRoot bool         `json:"create_root,omitempty"`
	Range      *RangeReport `json:"range"`
}

// PluginReport is a declared plugin and where its pin comes from
// (PinnedBy: "config", "lock", "installed", "override", or "" when it is
// not pinned).
type PluginReport struct {
	Source      string       `json:"source"`
	Path        string       `json:"path"`
	SHA256      string       `json:"sha256"`
	PinnedBy    string       `json:"pinned_by"`
	Version     string       `json:"version"`
	Constraints string       `json:"constraints"`
	Serves      ServedReport `json:"serves"`
	Range       *RangeReport `json:"range"`
}

// ServedReport lists the names a plugin serves, by kind.
type ServedReport struct {
	Codecs       []string `json:"codecs"`
	Stores       []string `json:"stores"`
	Transformers []string `json:"transformers"`
}

// NewReport describes cfg, checked with diags; the values of sensitive
// variables are hidden in it as in the diagnostics (Config.Redact).
func NewReport(cfg *Config, diags hcl.Diagnostics) Report {
	r := Report{FormatVersion: "1.0", File: cfg.Filename, Diagnostics: []DiagnosticReport{},
		LockFile: cfg.LockSource(), SharedLock: cfg.SharedLock(),
		Datasets: []DatasetReport{}, Stores: []StoreReport{}, Plugins: []PluginReport{}}
	for _, d := range diags {
		sev := "warning"
		if d.Severity == hcl.DiagError {
			sev = "error"
			r.ErrorCount++
		} else {
			r.WarningCount++
		}
		r.Diagnostics = append(r.Diagnostics, DiagnosticReport{Severity: sev, Summary: d.Summary, Detail: d.Detail, Range: rangeReport(d.Subject)})
	}
	r.Valid = r.ErrorCount == 0
	for _, ds := range cfg.Datasets {
		r.Datasets = append(r.Datasets, DatasetReport{Name: ds.Name, Store: ds.Store.String(), Prefix: cfg.Redact(ds.Prefix),
			ReadOnly: ds.ReadOnly, Consolidated: ds.Consolidated,
			Transformers: names(ds.Transformers), Codecs: names(ds.Codecs), Range: rangeReport(&ds.DeclRange)})
	}
	for _, st := range cfg.Stores {
		r.Stores = append(r.Stores, StoreReport{Ref: st.Ref.String(), Type: st.Ref.Type, Name: st.Ref.Name,
			Plugin: st.Extension.Plugin, Root: cfg.Redact(st.Root), CreateRoot: st.CreateRoot, Range: rangeReport(&st.Extension.DeclRange)})
	}
	for _, p := range cfg.Plugins {
		r.Plugins = append(r.Plugins, PluginReport{Source: p.Source, Path: cfg.Redact(p.Path), SHA256: p.SHA256, PinnedBy: string(p.PinnedBy),
			Version: p.Version, Constraints: p.Constraints,
			Serves: ServedReport{Codecs: strs(p.Serves.Codecs), Stores: strs(p.Serves.Stores), Transformers: strs(p.Serves.Transformers)},
			Range:  rangeReport(&p.DeclRange)})
	}
	return r
}

func rangeReport(r *hcl.Range) *RangeReport {
	if r == nil || r.Filename == "" {
		return nil
	}
	return &RangeReport{Filename: r.Filename,
		Start: PosReport{Line: r.Start.Line, Column: r.Start.Column, Byte: r.Start.Byte},
		End:   PosReport{Line: r.End.Line, Column: r.End.Column, Byte: r.End.Byte}}
}

func names(exts []Extension) []string {
	out := []string{}
	for _, e := range exts {
		out = append(out, e.Name)
	}
	return out
}

func strs(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
