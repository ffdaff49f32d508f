package s3

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// versitygw's client-side suite (`versitygw test full-flow`, v1.8.0) runs
// against the S3 listener, with buckets_from set so that it may make and
// delete its buckets. Every test that fails must be in
// testdata/versitygw-known-failures.txt with its reason; a failure not
// in it is a regression, and a listed test that passes is reported so
// that the list shrinks.
//
// The suite takes about three minutes. It stops at the first panic of its
// own (a test that dereferences a header the gateway does not send); the
// tests after that one then run one by one.
func TestVersitygwSuite(t *testing.T) {
	bin := versitygwBinary(t)
	known := readKnownFailures(t)
	order := readLines(t, "testdata/versitygw-full-flow.txt")
	g := startGateway(t, options{region: "us-east-1", datasets: []dataset{}, bucketsFrom: true})

	// Some tests run ./versitygw (its admin commands): they find it in
	// the working directory.
	dir := t.TempDir()
	if err := os.Symlink(bin, filepath.Join(dir, "versitygw")); err != nil {
		t.Fatal(err)
	}
	env := clientEnv(t)
	suite := func(args ...string) string {
		r := run(t, env, dir, bin, append([]string{"test", "--access", keyID, "--secret", g.secret, "--endpoint", g.s3}, args...)...)
		return r.stdout + r.stderr
	}

	res := parseSuite(suite("full-flow"))
	if res.panicked != "" {
		at := slices.Index(order, res.panicked)
		if at < 0 {
			t.Fatalf("the suite panicked in %s, which testdata/versitygw-full-flow.txt does not list", res.panicked)
		}
		fmt.Fprintf(os.Stderr, "versitygw full-flow: the suite panicked in %s; the %d tests after it run one by one\n",
			res.panicked, len(order)-at-1)
		for _, name := range order[at+1:] {
			if _, done := res.outcome[name]; done {
				continue
			}
			g.removeBuckets(t) // what a failed test left behind would fail the next
			one := parseSuite(suite(name))
			o, ok := one.outcome[name]
			if !ok {
				o = outcome{message: "no result: " + strings.TrimSpace(tail(one.output, 3))}
			}
			res.outcome[name] = o
		}
	}

	var passed, failed, regressions, fixed []string
	for name, o := range res.outcome {
		_, isKnown := known[name]
		switch {
		case o.pass:
			passed = append(passed, name)
			if isKnown {
				fixed = append(fixed, name)
			}
		default:
			failed = append(failed, name)
			if !isKnown {
				regressions = append(regressions, name+": "+o.message)
			}
		}
	}
	var stale []string
	for name := range known {
		if _, ran := res.outcome[name]; !ran {
			stale = append(stale, name)
		}
	}
	sort.Strings(regressions)
	sort.Strings(fixed)
	writeReport(t, res)
	sort.Strings(stale)
	fmt.Fprintf(os.Stderr, "versitygw full-flow: %d tests, %d pass; of the %d that fail, %d are known failures\n",
		len(passed)+len(failed), len(passed), len(failed), len(failed)-len(regressions))
	if len(fixed) > 0 {
		fmt.Fprintf(os.Stderr, "versitygw full-flow: %d tests of the known failures now pass; take them off testdata/versitygw-known-failures.txt:\n  %s\n",
			len(fixed), strings.Join(fixed, "\n  "))
	}
	if len(stale) > 0 {
		t.Errorf("testdata/versitygw-known-failures.txt names tests that did not run: %s", strings.Join(stale, ", "))
	}
	if len(res.outcome) < len(uniq(order)) {
		t.Errorf("%d tests had a result, testdata/versitygw-full-flow.txt lists %d", len(res.outcome), len(uniq(order)))
	}
	if len(regressions) > 0 {
		t.Errorf("%d tests of versitygw's suite fail that are not known failures:\n%s", len(regressions), strings.Join(regressions, "\n"))
	}
}

// writeReport writes every failing test with the suite's message to the
// file ZARRGW_VERSITYGW_REPORT names, when it is set: what sorting the
// known failures by reason starts from.
func writeReport(t *testing.T, res suiteResult) {
	t.Helper()
	p := os.Getenv("ZARRGW_VERSITYGW_REPORT")
	if p == "" {
		return
	}
	var lines []string
	for name, o := range res.outcome {
		if !o.pass {
			lines = append(lines, name+": "+o.message)
		}
	}
	sort.Strings(lines)
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Errorf("writing the suite's report: %v", err)
	}
}

// versitygwBinary is where scripts/setup.sh installs versitygw.
func versitygwBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("VERSITYGW"); p != "" {
		return p
	}
	out, err := exec.Command("go", "env", "GOPATH").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range filepath.SplitList(strings.TrimSpace(string(out))) {
		p := filepath.Join(dir, "bin", "versitygw")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	servers.Unavailable(t, "versitygw is not installed in $(go env GOPATH)/bin")
	return ""
}

type outcome struct {
	pass    bool
	message string
}

// suiteResult is what a run of the suite printed, test by test.
type suiteResult struct {
	outcome  map[string]outcome
	runs     int    // RUN lines
	panicked string // the test running when the suite panicked
	output   string
}

var (
	ansi     = regexp.MustCompile("\x1b\\[[0-9;]*m")
	resultRe = regexp.MustCompile(`^(RUN|PASS|FAIL)\s+(\S+?)(?::\s*(.*))?$`)
)

// parseSuite reads the suite's output: "RUN name", then "PASS name" or
// "FAIL name: why". A test that fails in any of its runs (a few run
// twice) fails.
func parseSuite(out string) suiteResult {
	res := suiteResult{outcome: map[string]outcome{}, output: out}
	running := ""
	sc := bufio.NewScanner(strings.NewReader(ansi.ReplaceAllString(out, "")))
	sc.Buffer(make([]byte, 1<<16), 1<<22)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "panic:") && running != "" {
			res.panicked = running
			res.outcome[running] = outcome{message: "the suite panicked: " + line}
			return res
		}
		m := resultRe.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		switch m[1] {
		case "RUN":
			running = m[2]
			res.runs++
		case "PASS":
			if o, seen := res.outcome[m[2]]; !seen || o.pass {
				res.outcome[m[2]] = outcome{pass: true}
			}
			running = ""
		case "FAIL":
			res.outcome[m[2]] = outcome{message: m[3]}
			running = ""
		}
	}
	return res
}

// readKnownFailures reads "Name: reason" lines; # starts a comment.
func readKnownFailures(t *testing.T) map[string]string {
	t.Helper()
	known := map[string]string{}
	for _, line := range readLines(t, "testdata/versitygw-known-failures.txt") {
		name, reason, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(reason) == "" {
			t.Fatalf("testdata/versitygw-known-failures.txt: %q is not 'Name: reason'", line)
		}
		known[strings.TrimSpace(name)] = strings.TrimSpace(reason)
	}
	return known
}

// readLines reads a file's lines less blank ones and # comments.
func readLines(t *testing.T, p string) []string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out
}

func uniq(names []string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}
