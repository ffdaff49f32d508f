package gateway

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The README's zarrita.js and zarr-python snippets read the sample
// dataset through a gateway serving examples/gateway/zarrgw.hcl, as
// `make run` does.
func TestREADMESnippets(t *testing.T) {
	node := requireNode(t)
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg, err := os.ReadFile("../../examples/gateway/zarrgw.hcl")
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{filepath.Join(dir, "data", "sample.zarr")}, {"-format", "2", filepath.Join(dir, "data", "sample_v2.zarr")}} {
		if out, err := exec.Command("go", append([]string{"run", "../../examples/mksample"}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("mksample: %v\n%s", err, out)
		}
	}
	// the example's configuration as it is, beside a data/ of its own
	s := startServer(t, strings.Replace(string(cfg), "${path.config}", dir, 1))
	checkCurlExamples(t, readme, s.url)
	checkAWSExamples(t, readme, s.s3url)
	const want = "12.5" // the first element; 14.75 is the last of the two rows read
	js := snippet(t, readme, "js", s.url)
	script := filepath.Join(interopJS, "readme-snippet.mjs") // beside node_modules
	if err := os.WriteFile(script, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(script)
	for _, run := range []struct {
		name string
		cmd  *exec.Cmd
	}{
		{"zarrita.js", exec.Command(node, script)},
		{"zarr-python", exec.Command(python, "-c", snippet(t, readme, "python", s.url))},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, run.cmd.Path, run.cmd.Args[1:]...)
		out, err := cmd.CombinedOutput()
		cancel()
		text := string(out)
		if err != nil || !strings.Contains(text, want) || !strings.Contains(text, "14.75") {
			t.Errorf("README %s snippet: %v\n%s", run.name, err, text)
		}
	}
}

// The README's curl examples all succeed against the same gateway.
func checkCurlExamples(t *testing.T, readme []byte, url string) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Fatal("curl is not installed")
	}
	re := regexp.MustCompile(`(?m)^curl (.*?)\s+#`)
	found := 0
	for _, m := range re.FindAllStringSubmatch(string(readme), -1) {
		args := strings.TrimSpace(strings.ReplaceAll(m[1], "http://127.0.0.1:8080", url))
		args = strings.TrimSpace(regexp.MustCompile(`>\s*\S+$`).ReplaceAllString(args, "")) // no redirects
		cmd := exec.Command("sh", "-c", curl+" -sS -f -o /dev/null "+args)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("README: curl %s: %v %s", args, err, out)
		}
		found++
	}
	if found < 5 {
		t.Errorf("found %d curl examples in the README", found)
	}
}

// snippet returns the README's code block in lang, pointed at the server
// the test started (the README names 127.0.0.1:8080).
func snippet(t *testing.T, readme []byte, lang, url string) string {
	t.Helper()
	m := regexp.MustCompile("(?s)```" + lang + "\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatalf("README has no %s block", lang)
	}
	return strings.ReplaceAll(string(m[1]), "http://127.0.0.1:8080", url)
}

// The README's aws-cli examples succeed against the gateway's S3 API, and
// the zarr.json they fetch is the one the key API serves.
func checkAWSExamples(t *testing.T, readme []byte, url string) {
	const aws = "/usr/bin/aws" // Debian's, whatever else is on PATH
	if _, err := os.Stat(aws); err != nil {
		t.Fatalf("aws-cli is not installed (scripts/setup.sh installs Debian's awscli): %v", err)
	}
	re := regexp.MustCompile(`(?m)^aws --endpoint-url http://127\.0\.0\.1:9000 (.*)$`)
	found := 0
	for _, m := range re.FindAllStringSubmatch(string(readme), -1) {
		args := strings.Fields(m[1])
		cmd := exec.Command(aws, append([]string{"--endpoint-url", url}, args...)...)
		dir := t.TempDir()
		cmd.Env = append(os.Environ(), "AWS_CONFIG_FILE="+filepath.Join(dir, "none"), "AWS_SHARED_CREDENTIALS_FILE="+filepath.Join(dir, "none"),
			"AWS_DEFAULT_REGION=us-east-1", "AWS_EC2_METADATA_DISABLED=true", "AWS_CA_BUNDLE=")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("README: aws %s: %v\n%s", m[1], err, out)
		}
		if strings.Contains(m[1], " s3 ls ") && !strings.Contains(string(out), "zarr.json") {
			t.Errorf("README: aws %s lists no zarr.json:\n%s", m[1], out)
		}
		if strings.HasSuffix(m[1], "zarr.json -") && !strings.Contains(string(out), `"zarr_format": 3`) && !strings.Contains(string(out), `"zarr_format":3`) {
			t.Errorf("README: aws %s printed no v3 metadata:\n%s", m[1], out)
		}
		found++
	}
	if found < 2 {
		t.Errorf("found %d aws examples in the README", found)
	}
}
