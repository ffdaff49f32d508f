package config

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"

	"github.com/zarrgw/zarrgw/host/runtime/config/hclread"
)

// DatasetNames lists the datasets the configuration file at path declares,
// in the file's order, reading only the headers of its dataset blocks: a
// configuration with errors elsewhere, or whose plugins are not installed,
// still names its datasets (for shell completion).
func DatasetNames(path string) ([]string, error) {
	f, diags := hclread.ParseFile(hclparse.NewParser(), path)
	if diags.HasErrors() {
		return nil, diags
	}
	content, _, _ := f.Body.PartialContent(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "dataset", LabelNames: []string{"name"}}}})
	var out []string
	for _, b := range content.Blocks {
		out = append(out, b.Labels[0])
	}
	return out, nil
}
