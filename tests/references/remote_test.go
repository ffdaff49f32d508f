package references

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/tests/support/binary"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// The NetCDF files on a web server and in versitygw (S3), with the
// reference set beside them there too, JSON and Parquet (references =
// http://... or s3://..., the environment's credentials): `zarrgw cat`
// (JSON), zarr-python over the gateway's key API and xarray's open_zarr
// (both forms) read every variable exactly as netCDF4-python reads the
// files.
func TestRemoteTargets(t *testing.T) {
	dir, want := world(t)
	script := filepath.Join(repoRoot(), "tests", "references", "testdata", "mkrefs.py")
	for _, where := range []string{"http", "s3"} {
		t.Run(where, func(t *testing.T) {
			var prefix string
			var env []string
			switch where {
			case "http":
				files := t.TempDir()
				copyDir(t, filepath.Join(dir, "nc"), filepath.Join(files, "nc"))
				srv := servers.ServeDir(t, files, servers.HTTPOptions{})
				prefix = srv.URL + "/"
				run(t, dir, python, script, "refs", "nc", prefix+"nc/", filepath.Join(files, "refs"))
				toParquet(t, filepath.Join(files, "refs", "joined-v1.json"), filepath.Join(files, "refs", "joined.parq"), 4)
			case "s3":
				s3 := servers.StartS3(t)
				bucket := s3.NewBucket(t)
				copyDir(t, filepath.Join(dir, "nc"), filepath.Join(s3.Dir, bucket, "nc"))
				prefix = "s3://" + bucket + "/"
				run(t, dir, python, script, "refs", "nc", prefix+"nc/", filepath.Join(s3.Dir, bucket, "refs"))
				toParquet(t, filepath.Join(s3.Dir, bucket, "refs", "joined-v1.json"), filepath.Join(s3.Dir, bucket, "refs", "joined.parq"), 4)
				env = append(withoutAWS(), "AWS_ENDPOINT_URL="+s3.Endpoint, "AWS_ACCESS_KEY_ID="+s3.AccessKey,
					"AWS_SECRET_ACCESS_KEY="+s3.SecretKey, "AWS_REGION="+s3.Region)
			}
			hcl := filepath.Join(t.TempDir(), "remote.hcl")
			write(t, hcl, `store "references" "json" {
  references    = "`+prefix+`refs/joined-v1.json"
  allow_targets = ["`+prefix+`nc/"]
}

store "references" "parquet" {
  references    = "`+prefix+`refs/joined.parq/"
  allow_targets = ["`+prefix+`nc/"]
}

dataset "nc" {
  store        = store.references.json
  read_only    = true
  consolidated = true
}

dataset "ncparquet" {
  store        = store.references.parquet
  read_only    = true
  consolidated = true
}
`)
			for name, w := range want {
				out, stderr, err := cat("", env, hcl, "nc", name)
				if got := hex.EncodeToString(out); err != nil || got != w.Hex {
					t.Errorf("cat %s: %v %.40s…, want %.40s…\n%s", name, err, got, w.Hex, stderr)
				}
			}
			gw := binary.Serve(t, zarrgwBin, hcl, env...)
			interop := filepath.Join(repoRoot(), "tests", "plugins", "testdata", "numcodecs_interop.py")
			clients := filepath.Join(repoRoot(), "tests", "references", "testdata", "clients.py")
			for _, ds := range []string{"nc", "ncparquet"} {
				byZarr := hexes(t, run(t, dir, python, interop, "read", gw.URL+"/d/"+ds+"/"))
				byXarray := hexes(t, run(t, dir, python, clients, "xarray", gw.URL+"/d/"+ds+"/"))
				for name, w := range want {
					if byZarr[name] != w.Hex || byXarray[name] != w.Hex {
						t.Errorf("%s %s over the key API: zarr-python %.40s…, xarray %.40s…, want %.40s…", ds, name, byZarr[name], byXarray[name], w.Hex)
					}
				}
			}
		})
	}
}

// A target file the web server answers 404 for fails `zarrgw cat` naming
// the key and the file's URL; nothing is printed as values.
func TestTargetNotFoundOverHTTP(t *testing.T) {
	dir, _ := world(t)
	files := t.TempDir()
	copyDir(t, filepath.Join(dir, "nc"), filepath.Join(files, "nc"))
	srv := servers.ServeDir(t, files, servers.HTTPOptions{})
	script := filepath.Join(repoRoot(), "tests", "references", "testdata", "mkrefs.py")
	run(t, dir, python, script, "refs", "nc", srv.URL+"/nc/", "refs-http")
	write(t, filepath.Join(dir, "http.hcl"), `store "references" "nc" {
  references    = "./refs-http/joined-v1.json"
  allow_targets = ["`+srv.URL+`/nc/"]
}

dataset "nc" {
  store     = store.references.nc
  read_only = true
}
`)
	if err := os.Remove(filepath.Join(files, "nc", "t1.nc")); err != nil {
		t.Fatal(err)
	}
	out, msg, err := cat(dir, nil, "http.hcl", "nc", "temp")
	if err == nil || len(out) > 0 || !strings.Contains(msg, `key "temp/`) || !strings.Contains(msg, srv.URL+"/nc/t1.nc") ||
		!strings.Contains(msg, "is missing") {
		t.Errorf("cat with a target answering 404: exit %v, %d bytes out, stderr:\n%s", err, len(out), msg)
	}
}
