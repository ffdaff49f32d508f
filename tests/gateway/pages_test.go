package gateway

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/zarrgw/zarrgw/tests/support/fixtures"
)

// inspected is one node of `zarrgw inspect` output.
type inspected struct {
	path, summary, shards string
}

// inspect runs `zarrgw inspect` on dir and reads its tree: a line per
// node, indented two spaces per level, and under a sharded array an
// indented line with its shard layout.
func inspect(t *testing.T, dir string) []inspected {
	t.Helper()
	out, err := exec.Command(binary, "inspect", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("inspect %s: %v\n%s", dir, err, out)
	}
	var nodes []inspected
	var stack []string
	for _, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		text := strings.TrimLeft(line, " ")
		depth := (len(line) - len(text)) / 2
		if strings.HasPrefix(text, "shard ") && len(nodes) > 0 {
			nodes[len(nodes)-1].shards = text
			continue
		}
		at := max(strings.Index(text, " (group, "), strings.Index(text, " (array, "))
		if at < 0 {
			t.Fatalf("inspect line %q names no group or array", line)
		}
		name, summary := text[:at], text[at+1:]
		if depth == 0 {
			nodes = append(nodes, inspected{path: "", summary: summary})
			stack = nil
			continue
		}
		stack = append(stack[:depth-1], name)
		nodes = append(nodes, inspected{path: strings.Join(stack, "/"), summary: summary})
	}
	return nodes
}

// parse fetches a page and parses it.
func (s *server) page(t *testing.T, path string, cookies ...*http.Cookie) *html.Node {
	t.Helper()
	code, body := s.get(t, path, cookies...)
	if code != 200 {
		t.Fatalf("%s: %d\n%.500s", path, code, body)
	}
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return doc
}

// find returns every element for which match is true, in document order.
func find(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	if n.Type == html.ElementNode && match(n) {
		out = append(out, n)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		out = append(out, find(c, match)...)
	}
	return out
}

func attr(n *html.Node, name string) string {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val
		}
	}
	return ""
}

func hasClass(n *html.Node, class string) bool {
	return strings.Contains(" "+attr(n, "class")+" ", " "+class+" ")
}

func text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.TrimSpace(b.String())
}

// The pages list every node of a fixture hierarchy and show its metadata
// as `zarrgw inspect` prints it; a dataset outside the caller's scope
// appears nowhere.
func TestPagesMatchInspect(t *testing.T) {
	fx := fixtures.Dir(t)
	dirs := map[string]string{"zarrita": filepath.Join(fx, "zarrita-js/v3/data.zarr"), "zarrs": filepath.Join(fx, "zarrs/hierarchy.zarr")}
	s := startServer(t, fmt.Sprintf(`
store "fs" "fx" {
  root = %q
}
principal "owner" {
  token_sha256 = %q
}
dataset "zarrita" {
  store     = store.fs.fx
  prefix    = "zarrita-js/v3/data.zarr"
  read_only = true
}
dataset "zarrs" {
  store     = store.fs.fx
  prefix    = "zarrs/hierarchy.zarr"
  read_only = true
}
dataset "hidden" {
  store     = store.fs.fx
  read_only = true
  access {
    read = ["owner"]
  }
}
`, fx, sha256Hex(ownerToken)))
	if names := listedDatasets(s.page(t, "/ui/")); strings.Join(names, ",") != "zarrita,zarrs" {
		t.Fatalf("datasets listed to an anonymous reader: %v", names)
	}
	if code, _ := s.get(t, "/ui/d/hidden/"); code != 401 {
		t.Fatalf("a dataset outside the scope: %d, want 401", code)
	}
	checkOwnerView(t, s)
	for ds, dir := range dirs {
		want := inspect(t, dir)
		tree := s.page(t, "/ui/d/"+ds+"/")
		got := map[string]string{}
		for _, li := range find(tree, func(n *html.Node) bool { return n.Data == "li" && hasClass(n, "node") }) {
			summary := find(li, func(n *html.Node) bool { return hasClass(n, "summary") })
			if len(summary) == 1 {
				got[attr(li, "data-path")] = text(summary[0])
			}
		}
		arrays := 0
		for _, n := range want {
			if got[n.path] != n.summary {
				t.Errorf("%s %q: page says %q, inspect %q", ds, n.path, got[n.path], n.summary)
			}
			if !strings.HasPrefix(n.summary, "(array") {
				continue
			}
			arrays++
			checkNodePage(t, s, ds, n)
		}
		if len(got) != len(want) || arrays == 0 {
			t.Errorf("%s: the page lists %d nodes (%d arrays), inspect %d", ds, len(got), arrays, len(want))
		}
	}
}

// checkNodePage compares an array's page with its inspect line.
func checkNodePage(t *testing.T, s *server, ds string, n inspected) {
	t.Helper()
	doc := s.page(t, "/ui/d/"+ds+"/"+n.path)
	fields := map[string]string{}
	for _, tr := range find(doc, func(e *html.Node) bool { return e.Data == "tr" && attr(e, "data-label") != "" }) {
		if td := find(tr, func(e *html.Node) bool { return e.Data == "td" }); len(td) == 1 {
			fields[attr(tr, "data-label")] = text(td[0])
		}
	}
	for label, key := range map[string]string{"shape": "shape=", "data type": "dtype=", "chunks": "chunks=", "codecs": "codecs="} {
		if !strings.Contains(n.summary, key+fields[label]+" ") && !strings.HasSuffix(n.summary, key+fields[label]) {
			t.Errorf("%s %s: %s %q not in inspect's %q", ds, n.path, label, fields[label], n.summary)
		}
	}
	if n.shards != "" && fields["shards"] != n.shards {
		t.Errorf("%s %s: shards %q, inspect %q", ds, n.path, fields["shards"], n.shards)
	}
	if stored := find(doc, func(e *html.Node) bool { return attr(e, "id") == "stored" }); len(stored) != 1 || !strings.Contains(text(stored[0]), "stored") {
		t.Errorf("%s %s: no stored fraction", ds, n.path)
	}
}

const ownerToken = "owner-page-token"

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// checkOwnerView reads the pages with the owner's token in the cookie
// the pages' script sets: the dataset hidden from anonymous readers is
// listed and its page opens; a wrong token opens nothing.
func checkOwnerView(t *testing.T, s *server) {
	t.Helper()
	owner := &http.Cookie{Name: "zarrgw_token", Value: ownerToken}
	if names := listedDatasets(s.page(t, "/ui/", owner)); !slices.Contains(names, "hidden") {
		t.Errorf("datasets listed to their owner: %v, want hidden among them", names)
	}
	if code, _ := s.get(t, "/ui/d/hidden/", owner); code != 200 {
		t.Errorf("the owner's page of hidden: %d, want 200", code)
	}
	if code, _ := s.get(t, "/ui/d/hidden/", &http.Cookie{Name: "zarrgw_token", Value: "not-the-token"}); code == 200 {
		t.Errorf("a wrong token opened the page of hidden")
	}
}

// listedDatasets are the names in a dataset list page, in order.
func listedDatasets(doc *html.Node) []string {
	var names []string
	for _, tr := range find(doc, func(n *html.Node) bool { return n.Data == "tr" && hasClass(n, "dataset") }) {
		names = append(names, attr(tr, "data-name"))
	}
	return names
}

// zarrgw serve's start banner (make run's) names the pages' URL, and
// the pages answer there.
func TestBannerNamesPages(t *testing.T) {
	s := startServer(t, `
store "fs" "local" {
  root = "`+t.TempDir()+`"
}
dataset "d" {
  store = store.fs.local
}
`)
	want := "zarrgw: pages for a browser at " + s.url + "/ui/\n"
	deadline := time.Now().Add(60 * time.Second) // only a hang: the line follows the start
	for !strings.Contains(s.log.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("the banner does not say %q:\n%s", want, s.log)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if code, body := s.get(t, "/ui/"); code != 200 || !strings.Contains(body, `data-name="d"`) {
		t.Fatalf("%s/ui/: %d\n%.300s", s.url, code, body)
	}
}
