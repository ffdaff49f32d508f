package extension

import (
	"encoding/json"
	"testing"
)

func TestValidateConfig(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","required":["level"],"additionalProperties":false,"properties":{
		"level":{"type":"integer","minimum":0,"maximum":9},
		"mode":{"type":"string","enum":["fast","small"]},
		"shape":{"type":"array","items":{"type":"integer","minimum":1}},
		"inner":{"type":"object","properties":{"on":{"type":"boolean"}}}}}`)
	cases := map[string][]string{ // configuration -> offending paths
		`{"level":3}`: nil,
		`{"level":3,"mode":"fast","shape":[1,2],"inner":{"on":true}}`: nil,
		`{}`:                               {""},
		`{"level":10}`:                     {"/level"},
		`{"level":2.5}`:                    {"/level"},
		`{"level":1,"mode":"slow"}`:        {"/mode"},
		`{"level":1,"shape":[1,0,"x"]}`:    {"/shape/1", "/shape/2"},
		`{"level":1,"inner":{"on":"yes"}}`: {"/inner/on"},
		`{"level":1,"typo":1}`:             {"/typo"},
		`[1]`:                              {""},
		`{"level":`:                        {""},
	}
	for config, want := range cases {
		got, err := ValidateConfig(schema, json.RawMessage(config))
		if err != nil {
			t.Fatalf("%s: %v", config, err)
		}
		if len(got) != len(want) {
			t.Errorf("%s: %v, want problems at %q", config, got, want)
			continue
		}
		for i := range want {
			if got[i].Path != want[i] {
				t.Errorf("%s: problem %d at %q, want %q (%s)", config, i, got[i].Path, want[i], got[i].Message)
			}
		}
	}
	if got, err := ValidateConfig(nil, json.RawMessage(`{"anything":1}`)); err != nil || got != nil {
		t.Errorf("no schema: %v %v", got, err)
	}
}
