package gateway_test

import (
	"encoding/binary"
	"image/png"
	"math"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/host/serve/pages/picture"
)

// pageOf fetches a page as a browser does and fails unless it is 200.
func (tg *testGateway) pageOf(t *testing.T, path string, headers ...string) string {
	t.Helper()
	resp, body := tg.do(t, http.MethodGet, path, "", append([]string{"Accept: text/html"}, headers...)...)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %d %.300s", path, resp.StatusCode, body)
	}
	return body
}

// An empty dataset's page says it is empty and how to write into it
// (the command line with the configuration's name, the key API's PUT
// with the dataset's URL, a token when writing needs one), without an
// error; once it holds a hierarchy the page lists it instead; keys
// without root metadata are still an error, not "empty".
func TestEmptyDatasetPage(t *testing.T) {
	tg := newTestGateway(t)
	page := tg.pageOf(t, "/ui/d/open/")
	for _, want := range []string{
		"This dataset is empty",
		"zarrgw create -c test.hcl open --path t2m",
		"zarrgw cp -c test.hcl OTHER open",
		"curl -X PUT --data-binary @data.zarr/zarr.json " + tg.URL + "/d/open/zarr.json",
		tg.URL + "/d/open/t2m?slice=0:90,0:180&amp;format=npy",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the empty dataset's page lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, `class="error"`) || strings.Contains(page, "Authorization") {
		t.Errorf("the empty dataset's page shows an error, or asks a token nobody needs to write:\n%s", page)
	}
	// writing into private needs the writer's token; frozen takes no writes
	private := tg.pageOf(t, "/ui/d/private/", "Authorization: Bearer "+readerToken)
	if !strings.Contains(private, "This dataset is empty") || !strings.Contains(private, `-H "Authorization: Bearer $TOKEN"`) {
		t.Errorf("private's empty page does not say a token is needed to write:\n%s", private)
	}
	frozen := tg.pageOf(t, "/ui/d/frozen/")
	if !strings.Contains(frozen, "This dataset is empty") || !strings.Contains(frozen, "read-only") || strings.Contains(frozen, "curl -X PUT") {
		t.Errorf("the read-only empty dataset's page:\n%s", frozen)
	}
	// a hierarchy: listed, no longer empty
	tg.put(t, "/d/open/zarr.json", `{"zarr_format":3,"node_type":"group","attributes":{}}`)
	if page := tg.pageOf(t, "/ui/d/open/"); strings.Contains(page, "is empty") || !strings.Contains(page, `id="tree"`) {
		t.Errorf("a dataset with a hierarchy:\n%s", page)
	}
	// keys but no hierarchy at the root: not empty, an error
	tg.put(t, "/d/private/notes.txt", "hello", "Authorization: Bearer "+writerToken)
	if page := tg.pageOf(t, "/ui/d/private/", "Authorization: Bearer "+readerToken); strings.Contains(page, "is empty") || !strings.Contains(page, `class="error"`) {
		t.Errorf("a dataset with keys and no root metadata:\n%s", page)
	}
}

// publicConfig is a configuration whose every dataset anyone may read,
// with a principal that may write.
const publicConfig = `
store "fs" "local" {
  root = "ROOT"
}
principal "writer" {
  token_sha256 = "ef80202ea99d7c668a9677d9242456057ac10488311cb8757674490e194a56e1"
}
dataset "open" {
  store  = store.fs.local
  prefix = "open"
  access {
    read  = ["*"]
    write = ["writer"]
  }
}
dataset "frozen" {
  store     = store.fs.local
  prefix    = "open"
  read_only = true
}
`

var tokenForm = regexp.MustCompile(`<form class="token" id="token-form"`)

// The token box is offered only when some dataset needs a token to be
// read (or the caller gave one, to forget it): with every dataset
// public, no page shows it.
func TestTokenBox(t *testing.T) {
	pub := newGatewayOf(t, publicConfig)
	pub.put(t, "/d/open/a/zarr.json", arrayJSON("[4,4]", "[2,2]", "float32", `"NaN"`), "Authorization: Bearer "+writerToken)
	for _, path := range []string{"/ui/", "/ui/d/open/", "/ui/d/open/a", "/ui/d/frozen/"} {
		if page := pub.pageOf(t, path); tokenForm.MatchString(page) || strings.Contains(page, "token-input") {
			t.Errorf("%s shows a token box though every dataset is public:\n%s", path, page)
		}
	}
	// a caller who gave a token may forget it
	if page := pub.pageOf(t, "/ui/", "Authorization: Bearer "+writerToken); !tokenForm.MatchString(page) || !strings.Contains(page, "token-forget") {
		t.Errorf("a signed-in caller gets no way to forget the token:\n%s", page)
	}
	// private needs a token: every page offers the box
	tg := newTestGateway(t)
	tg.put(t, "/d/open/a/zarr.json", arrayJSON("[4,4]", "[2,2]", "float32", `"NaN"`))
	for _, path := range []string{"/ui/", "/ui/d/open/", "/ui/d/open/a"} {
		if page := tg.pageOf(t, path); !tokenForm.MatchString(page) || !strings.Contains(page, "token-input") {
			t.Errorf("%s: no token box though dataset private needs a token", path)
		}
	}
	resp, body := tg.do(t, http.MethodGet, "/ui/d/private/", "", "Accept: text/html")
	if resp.StatusCode != http.StatusUnauthorized || !tokenForm.MatchString(body) {
		t.Errorf("private without a token: %d, token box %v", resp.StatusCode, tokenForm.MatchString(body))
	}
}

func arrayJSON(shape, chunks, dtype, fill string) string {
	return `{"zarr_format":3,"node_type":"array","shape":` + shape + `,"data_type":"` + dtype + `",
		"chunk_grid":{"name":"regular","configuration":{"chunk_shape":` + chunks + `}},"chunk_key_encoding":{"name":"default"},
		"fill_value":` + fill + `,"codecs":[{"name":"bytes","configuration":{"endian":"little"}}],"attributes":{}}`
}

// float32s is the raw little-endian form of vs.
func float32s(vs ...float32) string {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return string(b)
}

// An array's page: the form has vmin, vmax and a colormap selector of
// every colormap the pictures have; the page's query sets the picture's
// slice, colormap and range, and the colorbar's labels when a range is
// given; a query that does not fit is said and the default drawn.
func TestArrayPageControls(t *testing.T) {
	tg := newTestGateway(t)
	tg.put(t, "/d/open/p/zarr.json", arrayJSON("[3,4,5]", "[1,2,2]", "float32", `"NaN"`))
	page := tg.pageOf(t, "/ui/d/open/p")
	for _, want := range []string{`name="vmin"`, `name="vmax"`, `<select name="cmap" id="cmap">`, `id="colorbar" src="/ui/colorbar/viridis.png"`,
		`data-src="/d/open/p?format=png&amp;max_pixels=1048576&amp;slice=1%2C0%3A4%2C0%3A5&amp;cmap=viridis"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the array page lacks %s", want)
		}
	}
	for _, name := range picture.Colormaps() {
		if !strings.Contains(page, "<option>"+name+"</option>") && !strings.Contains(page, "<option selected>"+name+"</option>") {
			t.Errorf("the colormap selector lacks %s", name)
		}
	}
	page = tg.pageOf(t, "/ui/d/open/p?index0=2&start1=1&stop1=3&cmap=magma&vmin=-1.5&vmax=7")
	for _, want := range []string{`<option selected>magma</option>`, `id="colorbar" src="/ui/colorbar/magma.png"`,
		`id="range-min" data-value="-1.5">-1.5<`, `id="range-max" data-value="7">7<`, `name="vmin" id="vmin" value="-1.5"`,
		`slice=2%2C1%3A3%2C0%3A5&amp;cmap=magma&amp;vmin=-1.5&amp;vmax=7"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the array page asked for magma, -1.5 to 7 lacks %s", want)
		}
	}
	for _, q := range []string{"vmin=3", "vmin=3&vmax=1", "cmap=jet", "index0=3", "start1=3&stop1=3"} {
		page := tg.pageOf(t, "/ui/d/open/p?"+q)
		if !strings.Contains(page, `id="picture-error"`) || !strings.Contains(page, "slice=1%2C0%3A4%2C0%3A5&amp;cmap=viridis\"") {
			t.Errorf("?%s: no error said, or not the default picture", q)
		}
	}
}

// The picture endpoint says the range it drew: the one given, else the
// data's 2nd and 98th percentiles; booleans have none. A 1-D selection
// is a line plot with plot=line, its range the data's least and
// greatest values.
func TestPictureRange(t *testing.T) {
	tg := newTestGateway(t)
	tg.put(t, "/d/open/p/zarr.json", arrayJSON("[10,10]", "[5,5]", "float32", `"NaN"`))
	vals := make([]float32, 100)
	for i := range vals {
		vals[i] = float32(i) / 4
	}
	if resp, body := tg.do(t, http.MethodPut, "/d/open/p?slice=0:10,0:10&format=raw", float32s(vals...)); resp.StatusCode != 200 {
		t.Fatalf("write: %d %s", resp.StatusCode, body)
	}
	for q, want := range map[string][3]string{
		"format=png":                                          {"0.5", "24.25", "viridis"}, // values 2 and 97 of 100 (round(0.02*99), round(0.98*99))
		"format=png&vmin=-3&vmax=1e3&cmap=gray":               {"-3", "1000", "gray"},
		"format=png&slice=4,:&plot=line":                      {"10", "12.25", ""},
		"format=png&slice=:,7&plot=line&vmin=0.5&vmax=2":      {"0.5", "2", ""},
		"format=png&slice=:,7&plot=line&downsample=minmax":    {"1.75", "24.25", ""},
		"format=png&slice=2:3,:&downsample=mean&max_pixels=4": {"5.25", "7.25", "viridis"}, // block means 5.25, 6, 6.75, 7.25
	} {
		resp, body := tg.do(t, http.MethodGet, "/d/open/p?"+q, "")
		if resp.StatusCode != 200 {
			t.Errorf("%s: %d %s", q, resp.StatusCode, body)
			continue
		}
		got := [3]string{resp.Header.Get("X-Zarrgw-Vmin"), resp.Header.Get("X-Zarrgw-Vmax"), resp.Header.Get("X-Zarrgw-Colormap")}
		if got != want {
			t.Errorf("%s: range headers %q, want %q", q, got, want)
		}
	}
	_, body := tg.do(t, http.MethodGet, "/d/open/p?format=png&slice=4,:&plot=line", "")
	img, err := png.Decode(strings.NewReader(body))
	if err != nil || img.Bounds().Dx() != picture.PlotWidth || img.Bounds().Dy() != picture.PlotHeight {
		t.Fatalf("plot: %v %v", err, img.Bounds())
	}
	for _, q := range []string{"format=png&slice=4,:", "format=png&plot=line", "format=png&plot=bar&slice=4,:", "format=png&downsample=minmax"} {
		if resp, body := tg.do(t, http.MethodGet, "/d/open/p?"+q, ""); resp.StatusCode != 400 {
			t.Errorf("%s: %d %s, want 400", q, resp.StatusCode, body)
		}
	}
	tg.put(t, "/d/open/m/zarr.json", arrayJSON("[2,2]", "[2,2]", "bool", "false"))
	resp, _ := tg.do(t, http.MethodGet, "/d/open/m?format=png", "")
	if resp.StatusCode != 200 || resp.Header.Get("X-Zarrgw-Vmin") != "" || resp.Header.Get("X-Zarrgw-Colormap") != "" {
		t.Errorf("booleans: %d, range %q, colormap %q", resp.StatusCode, resp.Header.Get("X-Zarrgw-Vmin"), resp.Header.Get("X-Zarrgw-Colormap"))
	}
}

// /ui/colorbar/NAME.png is the colormap as pictures draw it, lowest
// colour first; an unknown name is a 404.
func TestColorbarImage(t *testing.T) {
	tg := newTestGateway(t)
	for _, name := range picture.Colormaps() {
		resp, body := tg.do(t, http.MethodGet, "/ui/colorbar/"+name+".png", "")
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/png" {
			t.Fatalf("%s: %d %s", name, resp.StatusCode, body)
		}
		img, err := png.Decode(strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		lo, hi, _ := picture.Ends(name)
		b := img.Bounds()
		r0, g0, b0, _ := img.At(b.Min.X, 0).RGBA()
		r1, g1, b1, _ := img.At(b.Max.X-1, 0).RGBA()
		if uint8(r0>>8) != lo.R || uint8(g0>>8) != lo.G || uint8(b0>>8) != lo.B || uint8(r1>>8) != hi.R || uint8(g1>>8) != hi.G || uint8(b1>>8) != hi.B {
			t.Errorf("%s: ends %v %v, want %v %v", name, img.At(b.Min.X, 0), img.At(b.Max.X-1, 0), lo, hi)
		}
	}
	for _, p := range []string{"/ui/colorbar/jet.png", "/ui/colorbar/viridis", "/ui/colorbar/"} {
		if resp, _ := tg.do(t, http.MethodGet, p, ""); resp.StatusCode != 404 {
			t.Errorf("%s: %d, want 404", p, resp.StatusCode)
		}
	}
}

// A 1-D array's page has a line plot (no colormap) and a table of its
// values, filled from the array API, with paging.
func TestOneDimensionalPage(t *testing.T) {
	tg := newTestGateway(t)
	tg.put(t, "/d/open/line/zarr.json", arrayJSON("[250]", "[100]", "int16", "0"))
	page := tg.pageOf(t, "/ui/d/open/line")
	for _, want := range []string{`<h2>Plot</h2>`, `class="plot" data-src="/d/open/line?format=png&amp;plot=line&amp;slice=0%3A250"`,
		`id="values" data-url="/d/open/line" data-size="250" data-page="100"`, `href="/d/open/line?format=json&amp;slice=0%3A100"`,
		`name="vmin"`, `id="x-last">249<`} {
		if !strings.Contains(page, want) {
			t.Errorf("the 1-D array's page lacks %s", want)
		}
	}
	if strings.Contains(page, `name="cmap"`) || strings.Contains(page, `id="colorbar"`) {
		t.Errorf("a line plot offers a colormap")
	}
	// strings: a table, no plot
	tg.put(t, "/d/open/names/zarr.json", `{"zarr_format":3,"node_type":"array","shape":[3],"data_type":"string",
		"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[3]}},"chunk_key_encoding":{"name":"default"},
		"fill_value":"","codecs":[{"name":"vlen-utf8"}],"attributes":{}}`)
	page = tg.pageOf(t, "/ui/d/open/names")
	if !strings.Contains(page, `id="values"`) || strings.Contains(page, `id="picture"`) {
		t.Errorf("a 1-D array of strings: table %v, picture %v", strings.Contains(page, `id="values"`), strings.Contains(page, `id="picture"`))
	}
}

// A token the pages do not accept counts against the client address's
// anonymous bucket, as on the key and S3 APIs: made-up tokens sent to the
// pages cost a check each and must not come for free. Once they have
// spent the burst, even an anonymous page is refused (429).
func TestPagesChargeRefusedTokens(t *testing.T) {
	tg := newGatewayOf(t, `store "fs" "local" {
  root = "ROOT"
}
principal "writer" {
  token_sha256 = "ef80202ea99d7c668a9677d9242456057ac10488311cb8757674490e194a56e1"
}
dataset "open" {
  store = store.fs.local
}
server {
  listen = "127.0.0.1:0"
  anonymous_rate_limit {
    requests_per_second = 0.001
    burst               = 2
  }
}
`)
	for range 2 {
		if resp, body := tg.do(t, http.MethodGet, "/ui/", "", "Authorization: Bearer made-up-token"); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("a made-up token: %d %.200s, want the pages' 401", resp.StatusCode, body)
		}
	}
	resp, body := tg.do(t, http.MethodGet, "/ui/", "")
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Errorf("an anonymous page after two refused tokens: %d %.200s, want 429 with Retry-After", resp.StatusCode, body)
	}
}
