package gateway

import (
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// chromium is Debian's browser, installed by scripts/setup.sh.
const chromium = "/usr/bin/chromium"

// artifacts is where the browser test leaves its screenshots:
// $ZARRGW_ARTIFACTS, else bin/artifacts in the repository.
func artifacts(t *testing.T) string {
	dir := os.Getenv("ZARRGW_ARTIFACTS")
	if dir == "" {
		_, file, _, _ := runtime.Caller(0)
		dir = filepath.Join(filepath.Dir(file), "..", "..", "bin", "artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A real browser loads the dataset page and an array page: the screenshots
// are not blank (the array's picture is on screen in viridis colours), the
// pages ask nothing of any host but the gateway, and the console stays
// silent (no script error, no refused resource).
func TestBrowser(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		t.Fatalf("%s is missing: run `bash scripts/setup.sh` (installs Debian's chromium)", chromium)
	}
	dir := t.TempDir()
	if out, err := exec.Command("go", "run", "../../examples/mksample", filepath.Join(dir, "sample.zarr")).CombinedOutput(); err != nil {
		t.Fatalf("mksample: %v\n%s", err, out)
	}
	s := startServer(t, `
store "fs" "local" {
  root = "`+dir+`"
}
dataset "sample" {
  store     = store.fs.local
  prefix    = "sample.zarr"
  read_only = true
}
`)
	shots := artifacts(t)
	for _, page := range []struct{ name, path string }{
		{"dataset", "/ui/d/sample/"},
		{"array", "/ui/d/sample/temperature"},
	} {
		shot := filepath.Join(shots, "browser-"+page.name+".png")
		requests, console := browse(t, s.url+page.path, shot)
		t.Logf("screenshot of %s: %s", page.path, shot)
		img := decodePNG(t, shot)
		if n := colours(img); n < 3 {
			t.Errorf("%s: the screenshot is blank (%d colours)", page.path, n)
		}
		if page.name == "array" {
			if n := viridisPixels(img); n < 5000 {
				t.Errorf("%s: %d pixels of the array's picture on screen, want thousands", page.path, n)
			}
		}
		for _, u := range requests {
			if !strings.HasPrefix(u, s.url+"/") {
				t.Errorf("%s asked for %s, outside the gateway", page.path, u)
			}
		}
		if len(requests) < 3 {
			t.Errorf("%s: only %d requests seen (%v): is the net log read right?", page.path, len(requests), requests)
		}
		for _, line := range console {
			t.Errorf("%s: console: %s", page.path, line)
		}
	}
}

// browse loads url in headless Chromium, takes a screenshot, and returns
// the URLs the page asked for (its own requests, not the browser's) and
// the console messages. Nothing the browser does can leave this machine:
// every host but the gateway's resolves to nothing, through a proxy that
// does not exist.
func browse(t *testing.T, pageURL, shot string) (requests, console []string) {
	t.Helper()
	work := t.TempDir()
	netlog := filepath.Join(work, "net.json")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--window-size=1280,900", "--screenshot="+shot, "--log-net-log="+netlog, "--enable-logging=stderr", "--v=0",
		"--user-data-dir="+filepath.Join(work, "profile"), "--no-first-run", "--no-default-browser-check",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-domain-reliability",
		"--proxy-server=127.0.0.1:9", "--proxy-bypass-list=127.0.0.1", "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
		pageURL)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, ":CONSOLE") {
			console = append(console, line)
		}
	}
	return pageRequests(t, netlog, pageURL), console
}

// pageRequests reads the URLs of the requests the page made (the
// navigation, and those initiated by the page's origin) from a net log.
func pageRequests(t *testing.T, netlog, pageURL string) []string {
	t.Helper()
	b, err := os.ReadFile(netlog)
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Constants struct {
			LogEventTypes map[string]int `json:"logEventTypes"`
		} `json:"constants"`
		Events []struct {
			Type   int `json:"type"`
			Params struct {
				URL       string `json:"url"`
				Initiator string `json:"initiator"`
			} `json:"params"`
		} `json:"events"`
	}
	if err := json.Unmarshal(b, &log); err != nil {
		t.Fatalf("net log: %v", err)
	}
	u, _ := url.Parse(pageURL)
	origin := u.Scheme + "://" + u.Host
	start := log.Constants.LogEventTypes["URL_REQUEST_START_JOB"]
	var out []string
	for _, e := range log.Events {
		p := e.Params
		if e.Type == start && (p.Initiator == origin || p.URL == pageURL) {
			out = append(out, p.URL)
		}
	}
	return out
}

func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

func colours(img image.Image) int {
	seen := map[color.RGBA]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			seen[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)] = true
		}
	}
	return len(seen)
}

// viridisPixels counts the pixels that are, within a little rounding, a
// viridis colour away from the page's own greys and blues: the picture.
func viridisPixels(img image.Image) int {
	// a few viridis colours spread over the map (matplotlib's table)
	ref := [][3]int{{68, 1, 84}, {72, 40, 120}, {62, 74, 137}, {49, 104, 142}, {38, 130, 142}, {31, 158, 137}, {53, 183, 121}, {110, 206, 88}, {181, 222, 43}, {253, 231, 37}}
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			for _, r := range ref {
				if near(int(c.R), r[0]) && near(int(c.G), r[1]) && near(int(c.B), r[2]) {
					n++
					break
				}
			}
		}
	}
	return n
}

func near(a, b int) bool { return a-b <= 12 && b-a <= 12 }
