package hclread

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agext/levenshtein"
	"github.com/hashicorp/hcl/v2"
)

// ErrorAt is an error diagnostic about subject.
func ErrorAt(subject hcl.Range, summary, format string, args ...any) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(format, args...), Subject: subject.Ptr()}
}

// WarningAt is a warning diagnostic about subject.
func WarningAt(subject hcl.Range, summary, format string, args ...any) *hcl.Diagnostic {
	diag := ErrorAt(subject, summary, format, args...)
	diag.Severity = hcl.DiagWarning
	return diag
}

// Duplicate reports a second declaration, pointing at its label; what is
// the block type and name, such as `dataset "era5"`.
func Duplicate(what string, at, first hcl.Range) *hcl.Diagnostic {
	return ErrorAt(at, "Duplicate "+what, "A %s is already declared at %s; names must be unique.", what, first)
}

// At is a position as messages give it: FILE:LINE.
func At(r hcl.Range) string { return fmt.Sprintf("%s:%d", r.Filename, r.Start.Line) }

// KnownList renders " What: a, b, c." with a suggestion for name, or ""
// when nothing is known.
func KnownList(what string, known []string, name string) string {
	if len(known) == 0 {
		return ""
	}
	s := fmt.Sprintf(" %s: %s.", what, strings.Join(known, ", "))
	if hint := Suggest(name, known); hint != "" {
		s += fmt.Sprintf(" Did you mean %q?", hint)
	}
	return s
}

// SortedKeys lists the keys of m in order.
func SortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Suggest returns the known name closest to name, if it is close enough to
// be a likely typo.
func Suggest(name string, known []string) string {
	best, bestDist := "", max(1, len(name)/4)+1
	for _, k := range known {
		if dist := levenshtein.Distance(name, k, nil); dist < bestDist {
			best, bestDist = k, dist
		}
	}
	return best
}
