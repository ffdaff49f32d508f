package gateway

import (
	"context"
	encbin "encoding/binary"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"math"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/zarrgw/zarrgw/host/serve/pages/picture"
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
	netlog := filepath.Join(t.TempDir(), "net.json")
	_, console = runChromium(t, pageURL, "--screenshot="+shot, "--log-net-log="+netlog)
	return pageRequests(t, netlog, pageURL), console
}

// domOf loads url in headless Chromium and returns the page's DOM once
// its script has run (pictures fetched, labels and tables filled), and
// the console messages.
func domOf(t *testing.T, pageURL string) (*html.Node, []string) {
	t.Helper()
	out, console := runChromium(t, pageURL, "--dump-dom")
	doc, err := html.Parse(strings.NewReader(out))
	if err != nil {
		t.Fatalf("%s: the DOM: %v", pageURL, err)
	}
	return doc, console
}

// runChromium runs headless Chromium on pageURL with one action (a
// screenshot, a DOM dump) given ten seconds of virtual time: the page's
// script, its fetches and timers, run to completion first. It returns
// stdout and the console messages.
func runChromium(t *testing.T, pageURL string, action ...string) (string, []string) {
	t.Helper()
	work := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--window-size=1280,900", "--virtual-time-budget=10000", "--enable-logging=stderr", "--v=0",
		"--user-data-dir=" + filepath.Join(work, "profile"), "--no-first-run", "--no-default-browser-check",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-domain-reliability",
		"--proxy-server=127.0.0.1:9", "--proxy-bypass-list=127.0.0.1", "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"}
	cmd := exec.CommandContext(ctx, chromium, append(append(args, action...), pageURL)...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	var console []string
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, ":CONSOLE") {
			console = append(console, line)
		}
	}
	return stdout.String(), console
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

// sampleServer serves the make-run sample (mksample), read-only.
func sampleServer(t *testing.T) *server {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("go", "run", "../../examples/mksample", filepath.Join(dir, "sample.zarr")).CombinedOutput(); err != nil {
		t.Fatalf("mksample: %v\n%s", err, out)
	}
	return startServer(t, `
store "fs" "local" {
  root = "`+dir+`"
}
dataset "sample" {
  store     = store.fs.local
  prefix    = "sample.zarr"
  read_only = true
}
`)
}

// byID is the element of the page with that id.
func byID(t *testing.T, doc *html.Node, id string) *html.Node {
	t.Helper()
	found := find(doc, func(n *html.Node) bool { return attr(n, "id") == id })
	if len(found) != 1 {
		t.Fatalf("the page has %d elements #%s", len(found), id)
	}
	return found[0]
}

// limitLabel is a colorbar's or plot's label: the value it stands for
// (data-value) and its text.
func limitLabel(t *testing.T, doc *html.Node, id string) (value, label string) {
	n := byID(t, doc, id)
	return attr(n, "data-value"), text(n)
}

// The array page's colorbar, in a real browser: its labels are the range
// the picture was drawn with (the one asked for in the page's URL; else
// the one the picture endpoint reports in X-Zarrgw-Vmin and -Vmax, the
// data's 2nd and 98th percentiles), and on screen it runs from the
// colormap's first colour to its last.
func TestBrowserColorbar(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		t.Fatalf("%s is missing: run `bash scripts/setup.sh` (installs Debian's chromium)", chromium)
	}
	s := sampleServer(t)
	shots := artifacts(t)
	for _, tc := range []struct {
		name, query, cmap string
		vmin, vmax        string
	}{
		// the sample is 12.5 + 0.25 i for i < 24: 2nd and 98th percentiles
		// of 24 values are the least and the greatest
		{"auto", "", "viridis", "12.5", "18.25"},
		{"given", "?vmin=10&vmax=20.5&cmap=magma", "magma", "10", "20.5"},
	} {
		page := s.url + "/ui/d/sample/temperature" + tc.query
		doc, console := domOf(t, page)
		for _, line := range console {
			t.Errorf("%s: console: %s", tc.name, line)
		}
		lo, loText := limitLabel(t, doc, "range-min")
		hi, hiText := limitLabel(t, doc, "range-max")
		if lo != tc.vmin || hi != tc.vmax || loText != tc.vmin || hiText != tc.vmax {
			t.Errorf("%s: colorbar labelled %q (%s) to %q (%s), want %s to %s", tc.name, loText, lo, hiText, hi, tc.vmin, tc.vmax)
		}
		if src := attr(byID(t, doc, "colorbar"), "src"); src != "/ui/colorbar/"+tc.cmap+".png" {
			t.Errorf("%s: colorbar %s, want %s's", tc.name, src, tc.cmap)
		}
		// the labels are what the picture endpoint says it used
		pic := byID(t, doc, "picture")
		if !strings.HasPrefix(attr(pic, "src"), "data:image/png;base64,") {
			t.Errorf("%s: the picture was not drawn by the page's script: src %.60q", tc.name, attr(pic, "src"))
		}
		resp, err := http.Get(s.url + attr(pic, "data-src"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if h := [2]string{resp.Header.Get("X-Zarrgw-Vmin"), resp.Header.Get("X-Zarrgw-Vmax")}; h != [2]string{lo, hi} {
			t.Errorf("%s: the picture endpoint says %q, the labels %q %q", tc.name, h, lo, hi)
		}
		shot := filepath.Join(shots, "browser-colorbar-"+tc.name+".png")
		if _, console := browse(t, page, shot); len(console) > 0 {
			t.Errorf("%s: console: %v", tc.name, console)
		}
		y, x0, x1, ok := findColorbar(decodePNG(t, shot), tc.cmap)
		if !ok {
			t.Errorf("%s: no row of %s shows the %s colorbar from its first colour to its last", tc.name, shot, tc.cmap)
			continue
		}
		t.Logf("%s: the %s colorbar on screen at row %d, x %d to %d", tc.name, tc.cmap, y, x0, x1)
	}
}

// findColorbar looks for a row of a screenshot holding the colormap from
// end to end: a run at least 300 pixels wide whose first pixel is the
// colormap's first colour, its last pixel the last colour, and nine
// points between them the colours at their places along the colormap.
func findColorbar(img image.Image, cmap string) (y, x0, x1 int, ok bool) {
	bar, err := picture.Colorbar(cmap)
	if err != nil {
		return 0, 0, 0, false
	}
	n := bar.Bounds().Dx()
	entry := func(i int) color.RGBA { return color.RGBAModel.Convert(bar.At(i, 0)).(color.RGBA) }
	similar := func(a, b color.RGBA) bool {
		return near(int(a.R), int(b.R)) && near(int(a.G), int(b.G)) && near(int(a.B), int(b.B))
	}
	at := func(x, y int) color.RGBA { return color.RGBAModel.Convert(img.At(x, y)).(color.RGBA) }
	lo, hi := entry(0), entry(n-1)
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		x0, x1 := -1, -1
		for x := b.Min.X; x < b.Max.X; x++ {
			if x0 < 0 && similar(at(x, y), lo) {
				x0 = x
			}
			if similar(at(x, y), hi) {
				x1 = x
			}
		}
		if x0 < 0 || x1 < x0+300 {
			continue
		}
		match := true
		for k := 1; k <= 9 && match; k++ {
			x := x0 + k*(x1-x0)/10
			want := int(math.Round(float64(x-x0) / float64(x1-x0) * float64(n-1)))
			match = false
			for i := max(0, want-4); i <= min(n-1, want+4); i++ {
				if similar(at(x, y), entry(i)) {
					match = true
					break
				}
			}
		}
		if match {
			return y, x0, x1, true
		}
	}
	return 0, 0, 0, false
}

// A 1-D array's page in a real browser: a line plot on screen (thousands
// of pixels of the plot's line colour, on most of the plot's rows, for a
// sine wave), labelled with the array's least and greatest values, and a
// table whose first values are the array's first values.
func TestBrowserPlot(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		t.Fatalf("%s is missing: run `bash scripts/setup.sh` (installs Debian's chromium)", chromium)
	}
	dir := t.TempDir()
	s := startServer(t, `
store "fs" "local" {
  root = "`+dir+`"
}
dataset "line" {
  store = store.fs.local
  access {
    read  = ["*"]
    write = ["*"]
  }
}
`)
	const n = 1000
	vals := make([]float32, n)
	raw := make([]byte, 4*n)
	lo, hi := float32(math.Inf(1)), float32(math.Inf(-1))
	for i := range vals {
		vals[i] = float32(10*math.Sin(float64(i)/50) + 0.5)
		encbin.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(vals[i]))
		lo, hi = min(lo, vals[i]), max(hi, vals[i])
	}
	put(t, s.url+"/d/line/zarr.json", `{"zarr_format":3,"node_type":"group","attributes":{}}`)
	put(t, s.url+"/d/line/wave/zarr.json", `{"zarr_format":3,"node_type":"array","shape":[1000],"data_type":"float32",
		"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[100]}},"chunk_key_encoding":{"name":"default"},
		"fill_value":"NaN","codecs":[{"name":"bytes","configuration":{"endian":"little"}}],"attributes":{},"dimension_names":["time"]}`)
	put(t, s.url+"/d/line/wave?slice=0:1000&format=raw", string(raw))
	page := s.url + "/ui/d/line/wave"

	shot := filepath.Join(artifacts(t), "browser-plot.png")
	requests, console := browse(t, page, shot)
	for _, line := range console {
		t.Errorf("console: %s", line)
	}
	for _, u := range requests {
		if !strings.HasPrefix(u, s.url+"/") {
			t.Errorf("the page asked for %s, outside the gateway", u)
		}
	}
	line := color.RGBA{picture.PlotLine.R, picture.PlotLine.G, picture.PlotLine.B, 255}
	pixels, rows := 0, map[int]bool{}
	img := decodePNG(t, shot)
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			if near(int(c.R), int(line.R)) && near(int(c.G), int(line.G)) && near(int(c.B), int(line.B)) {
				pixels++
				rows[y] = true
			}
		}
	}
	t.Logf("screenshot %s: %d pixels of the plot's line on %d rows", shot, pixels, len(rows))
	if pixels < 2000 || len(rows) < picture.PlotHeight*3/4 {
		t.Errorf("%d pixels of the plot's line on %d rows: no sine wave on screen", pixels, len(rows))
	}

	doc, console := domOf(t, page)
	for _, line := range console {
		t.Errorf("console: %s", line)
	}
	for id, want := range map[string]float32{"range-min": lo, "range-max": hi} {
		v, label := limitLabel(t, doc, id)
		if f, err := strconv.ParseFloat(v, 64); err != nil || f != float64(want) || label == "" {
			t.Errorf("#%s: %q (%q), want %v", id, v, label, want)
		}
	}
	if x := text(byID(t, doc, "x-last")); x != "999" {
		t.Errorf("the plot's last index: %q", x)
	}
	body := find(byID(t, doc, "values"), func(n *html.Node) bool { return n.Data == "tbody" })
	if len(body) != 1 {
		t.Fatal("no table body")
	}
	trs := find(body[0], func(n *html.Node) bool { return n.Data == "tr" })
	if len(trs) != 100 {
		t.Fatalf("the table shows %d values, want the first 100", len(trs))
	}
	for i, tr := range trs {
		th := find(tr, func(n *html.Node) bool { return n.Data == "th" })
		td := find(tr, func(n *html.Node) bool { return n.Data == "td" })
		if len(th) != 1 || len(td) != 1 {
			t.Fatalf("row %d: %d th, %d td", i, len(th), len(td))
		}
		f, err := strconv.ParseFloat(text(td[0]), 64)
		if text(th[0]) != strconv.Itoa(i) || err != nil || float32(f) != vals[i] {
			t.Errorf("row %d: index %s value %s, want %d %v", i, text(th[0]), text(td[0]), i, vals[i])
		}
	}
	if r := text(byID(t, doc, "values-range")); r != "0–99 of 1000" {
		t.Errorf("the table's range: %q", r)
	}
}
