package cli

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// complete asks zarrgw for the completions of the last of args, through
// cobra's hidden __complete command as the shell scripts do, and returns
// the values offered (descriptions cut) and the directive.
func complete(t *testing.T, dir string, args ...string) ([]string, string) {
	t.Helper()
	out := must(t, dir, append([]string{"__complete"}, args...)...)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	var values []string
	for _, l := range lines[:len(lines)-1] {
		v, _, _ := strings.Cut(l, "\t")
		values = append(values, v)
	}
	return values, lines[len(lines)-1]
}

// LOCATION completes to the datasets of the configuration given with -c
// (directories without one); --path to the arrays inside the location;
// --format, --dtype and --to-format to the values they accept.
func TestCompletion(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "zarrgw.hcl"), `store "fs" "local" {
  root = "`+filepath.Dir(sample())+`"
}
dataset "sample" {
  store  = store.fs.local
  prefix = "sample.zarr"
}
dataset "scratch" {
  store  = store.fs.local
  prefix = "scratch.zarr"
}
dataset "other" {
  store = store.fs.local
}
`)
	const noFiles, dirs = ":4", ":16"
	for _, c := range []struct {
		args      []string
		want      []string
		directive string
	}{
		{[]string{"cat", "-c", "zarrgw.hcl", ""}, []string{"sample", "scratch", "other"}, noFiles},
		{[]string{"inspect", "--config", "zarrgw.hcl", "s"}, []string{"sample", "scratch"}, noFiles},
		{[]string{"cp", "-c", "zarrgw.hcl", "sample", "o"}, []string{"other"}, noFiles},
		{[]string{"cat", ""}, nil, dirs},
		{[]string{"cat", "-c", "zarrgw.hcl", "sample", "--path", ""}, []string{"station", "temperature"}, noFiles},
		{[]string{"cat", sample(), "--path", "te"}, []string{"temperature"}, noFiles},
		{[]string{"cat", sample(), "--format", ""}, []string{"json", "npy", "raw"}, noFiles},
		{[]string{"write", sample(), "--format", ""}, []string{"npy", "raw"}, noFiles},
		// the core floats and the registry's narrow formats (zarr-extensions
		// data-types/), with tensorstore's float8_e4m3fn
		{[]string{"create", "x.zarr", "--dtype", "float"}, []string{"float16", "float32", "float64", "float4_e2m1fn",
			"float6_e2m3fn", "float6_e3m2fn", "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn",
			"float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu"}, noFiles},
		{[]string{"create", "x.zarr", "--dtype", "bf"}, []string{"bfloat16"}, noFiles},
		{[]string{"cp", "a", "b", "--to-format", ""}, []string{"3"}, noFiles},
	} {
		got, directive := complete(t, dir, c.args...)
		if !slices.Equal(got, c.want) || directive != c.directive {
			t.Errorf("__complete %s: %q %s, want %q %s", strings.Join(c.args, " "), got, directive, c.want, c.directive)
		}
	}
	// every data type create offers, it accepts
	types, _ := complete(t, dir, "create", "x.zarr", "--dtype", "")
	if len(types) < 14 {
		t.Fatalf("--dtype offers %q", types)
	}
	for _, dt := range types {
		must(t, dir, "create", "types.zarr", "--path", dt, "--shape", "2", "--dtype", dt)
	}
}
