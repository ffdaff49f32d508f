package hclread

import (
	"fmt"
	"os"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
)

// ParseFile is p.ParseHCLFile, bounded by ParseSource.
func ParseFile(p *hclparse.Parser, path string) (*hcl.File, hcl.Diagnostics) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Failed to read file",
			Detail: fmt.Sprintf("The configuration file %q could not be read: %s.", path, err)}}
	}
	return ParseSource(p, src, path)
}

// ParseSource is p.ParseHCL once the source is known not to nest beyond
// MaxNesting. A source that does is not parsed; its beginning, up to the
// token that crosses the limit, is kept for the diagnostic's snippet
// (not the whole line, which may be a megabyte of brackets).
func ParseSource(p *hclparse.Parser, src []byte, filename string) (*hcl.File, hcl.Diagnostics) {
	if diags := CheckNesting(src, filename); diags.HasErrors() {
		p.Files()[filename] = &hcl.File{Bytes: src[:diags[0].Subject.End.Byte]}
		return nil, diags
	}
	return p.ParseHCL(src, filename)
}
