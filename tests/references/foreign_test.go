package references

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/tests/support/binary"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// servedRefs writes a configuration serving the reference set at loc as
// dataset "ncdata" (a bucket name for the S3 API), its targets allowed in
// the world's nc/, with consolidated
// metadata built on the fly and the S3 API, and an empty dataset "copy"
// on the filesystem (out/), and serves it.
func servedRefs(t *testing.T, dir, loc string, env ...string) *binary.Gateway {
	t.Helper()
	hcl := filepath.Join(dir, "served.hcl")
	if err := os.MkdirAll(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, hcl, `store "references" "nc" {
  references    = "`+loc+`"
  allow_targets = ["./nc/"]
}

dataset "ncdata" {
  store        = store.references.nc
  read_only    = true
  consolidated = true
}

store "fs" "out" {
  root = "./out"
}

dataset "copy" {
  store = store.fs.out
}

server {
  listen = "127.0.0.1:0"
  s3 {
    listen = "127.0.0.1:0"
  }
}
`)
	return binary.ServeS3(t, zarrgwBin, hcl, env...)
}

// hexes decodes a client's {variable: hex} output.
func hexes(t *testing.T, out []byte) map[string]string {
	t.Helper()
	var m map[string]string
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("client output: %v\n%.300s", err, out)
	}
	return m
}

// The referenced NetCDF files served by the gateway: its consolidated
// metadata lists every variable; xarray's open_zarr over the key API,
// GDAL's Zarr driver through the S3 API (/vsis3/) and a `zarrgw cp` of the
// dataset rewritten to sharded v3 read every variable (GDAL: one) exactly
// as netCDF4-python reads the files.
func TestForeignClientsReadReferences(t *testing.T) {
	dir, want := world(t)
	gw := servedRefs(t, dir, "./refs/joined-v1.json")

	var zmeta struct {
		Metadata map[string]json.RawMessage `json:"metadata"`
	}
	if err := json.Unmarshal(get(t, gw.URL+"/d/ncdata/.zmetadata"), &zmeta); err != nil {
		t.Fatal(err)
	}
	for name := range want {
		if _, ok := zmeta.Metadata[name+"/.zarray"]; !ok {
			t.Errorf("consolidated metadata lacks %s/.zarray", name)
		}
	}

	t.Run("xarray", func(t *testing.T) {
		if out, err := exec.Command(python, "-c", "import xarray, aiohttp").CombinedOutput(); err != nil {
			servers.Unavailable(t, "Debian's python3-xarray and python3-aiohttp are needed (%v: %s): run scripts/setup.sh", err, out)
		}
		script := filepath.Join(repoRoot(), "tests", "references", "testdata", "clients.py")
		got := hexes(t, run(t, dir, python, script, "xarray", gw.URL+"/d/ncdata/"))
		for name, w := range want {
			if got[name] != w.Hex {
				t.Errorf("xarray reads %s as %.40s…, want %.40s…", name, got[name], w.Hex)
			}
		}
	})

	t.Run("GDAL", func(t *testing.T) {
		translate := "/usr/bin/gdal_translate"
		if _, err := os.Stat(translate); err != nil {
			servers.Unavailable(t, "Debian's gdal-bin is needed: run scripts/setup.sh")
		}
		// precip: big-endian float64 with zlib (GDAL 3.6 has no shuffle
		// filter, which temp and count use), one band per time step.
		env := append(clientEnv(t), "AWS_S3_ENDPOINT="+strings.TrimPrefix(gw.S3URL, "http://"), "AWS_HTTPS=NO",
			"AWS_VIRTUAL_HOSTING=FALSE", "AWS_NO_SIGN_REQUEST=YES")
		var got []byte
		for step := range want["precip"].Shape[0] {
			out := filepath.Join(t.TempDir(), "precip.bin")
			cmd := exec.Command(translate, "-q", "-of", "ENVI", fmt.Sprintf(`ZARR:"/vsis3/ncdata/":/precip:%d`, step), out)
			cmd.Env = env
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("gdal_translate precip:%d: %v\n%s", step, err, b)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, b...)
		}
		if hex.EncodeToString(got) != want["precip"].Hex {
			t.Errorf("GDAL reads precip as %.40x…, want %.40s…", got, want["precip"].Hex)
		}
	})

	t.Run("cp to sharded v3", func(t *testing.T) {
		run(t, dir, zarrgwBin, "cp", "-q", "-c", "served.hcl", "ncdata", "copy", "--to-format", "3", "--chunks-per-shard", "2")
		dst := filepath.Join(dir, "out")
		for name, w := range want {
			got := hex.EncodeToString(run(t, dir, zarrgwBin, "cat", dst, "--path", name, "--format", "raw"))
			if got != w.Hex {
				t.Errorf("the sharded v3 copy reads %s as %.40s…, want %.40s…", name, got, w.Hex)
			}
			meta, err := os.ReadFile(filepath.Join(dst, name, "zarr.json"))
			if err != nil || !bytes.Contains(meta, []byte(`"sharding_indexed"`)) {
				t.Errorf("%s/zarr.json of the copy is not sharded v3 (%v): %.200s", name, err, meta)
			}
		}
	})
}

// clientEnv is the environment of a client process: without the test's
// AWS_ variables, HOME in a directory of the test's own.
func clientEnv(t *testing.T) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+t.TempDir())
}
