package redact_test

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/zarrgw/zarrgw/host/runtime/config/redact"
)

// redactor hides var.key = "s3cr3t-value" and var.pin = "ab".
func redactor() *redact.Redactor {
	vals := redact.Values{}
	vals.Note("key", cty.StringVal("s3cr3t-value"))
	vals.Note("pin", cty.StringVal("ab"))
	ctx := &hcl.EvalContext{Variables: map[string]cty.Value{"var": cty.ObjectVal(map[string]cty.Value{
		"key": cty.StringVal("s3cr3t-value"), "pin": cty.StringVal("ab"), "open": cty.StringVal("x")})}}
	return redact.New(vals, ctx, "a.hcl", nil)
}

func TestText(t *testing.T) {
	r := redactor()
	for in, want := range map[string]string{
		`root "s3cr3t-value" is missing`: `root the value of var.key is missing`,
		`bare s3cr3t-value here`:         `bare (the value of var.key) here`,
		`ab`:                             `(the value of var.pin)`, // short, but the whole text
		`tab and "ab"`:                   `tab and the value of var.pin`,
	} {
		if got := r.Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
	var none *redact.Redactor
	if got := none.Text("s3cr3t-value"); got != "s3cr3t-value" {
		t.Errorf("a nil Redactor changed the text: %q", got)
	}
	if redact.New(redact.Values{}, nil, "", nil) != nil {
		t.Error("no sensitive values, yet a Redactor")
	}
}

func TestError(t *testing.T) {
	base := errors.New("base")
	err := redactor().Error(fmt.Errorf("open s3cr3t-value: %w", base))
	if strings.Contains(err.Error(), "s3cr3t") || !errors.Is(err, base) {
		t.Errorf("Error: %q (errors.Is base: %v)", err, errors.Is(err, base))
	}
}

func TestLogger(t *testing.T) {
	var out bytes.Buffer
	r := redactor()
	logger := r.Logger(slog.New(slog.NewTextHandler(&out, nil)))
	if r.Logger(logger) != logger {
		t.Error("a redacting logger was wrapped twice")
	}
	logger.With("root", "/data/s3cr3t-value").Error("open s3cr3t-value", "err", errors.New("s3cr3t-value"),
		slog.Group("g", "k", "s3cr3t-value"))
	if strings.Contains(out.String(), "s3cr3t") || !strings.Contains(out.String(), "var.key") {
		t.Errorf("log: %s", out.String())
	}
}

// Diagnostics name the variable instead of its value.
func TestDiagnostics(t *testing.T) {
	r := redactor()
	diags := r.Diagnostics(hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Bad", Detail: `"s3cr3t-value" is not HOST:PORT`}})
	if d := diags[0].Detail; d != "the value of var.key is not HOST:PORT" {
		t.Errorf("detail %q", d)
	}
}
