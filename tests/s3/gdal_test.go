package s3

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// pyArrays writes, with Debian's python3-zarr (2.13), a v2 group of two
// arrays: float32 with zlib and int16 with blosc (lz4, shuffle), 20x30 in
// chunks of 7x8; each array's elements go to NAME.bin beside the group,
// little-endian in C order.
const pyArrays = `
import sys, numpy as np, numcodecs, zarr
root, out = sys.argv[1], sys.argv[2]
g = zarr.open_group(root, mode="w")
f4 = g.create_dataset("zlib_f4", shape=(20, 30), chunks=(7, 8), dtype="<f4", compressor=numcodecs.Zlib(level=1))
f4[:] = np.arange(600, dtype="<f4").reshape(20, 30) * 0.5 - 7.25
i2 = g.create_dataset("blosc_i2", shape=(20, 30), chunks=(7, 8), dtype="<i2",
    compressor=numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE))
i2[:] = (np.arange(600, dtype="<i4").reshape(20, 30) * 97 % 65536 - 32768).astype("<i2")
f4[:].tofile(out + "/zlib_f4.bin")
i2[:].tofile(out + "/blosc_i2.bin")
`

// zarrgwV2 is the .zarray of the array zarrgw writes for GDAL: v2, int32
// with zlib. GDAL 3.6 (Debian 12's) reads Zarr v2 and the 2021 draft of
// v3 but not v3 as published (zarr.json; GDAL 3.8 has it), so the array
// zarrgw writes for it is v2.
const zarrgwV2 = `{"zarr_format":2,"shape":[20,30],"chunks":[7,8],"dtype":"<i4","compressor":{"id":"zlib","level":1},
"fill_value":0,"order":"C","filters":null}`

// GDAL's Zarr driver reads, through the S3 API (/vsis3/), a v2 group
// written by python3-zarr (zlib and blosc) and a v2 array written by
// `zarrgw write`, with the dataset behind the gateway on the filesystem,
// on S3 (versitygw) and on Azure (Azurite): every element as written.
func TestGDALZarr(t *testing.T) {
	gdalinfo := need(t, "/usr/bin/gdalinfo")
	translate := need(t, "/usr/bin/gdal_translate")
	py := needPython(t, "zarr", "numcodecs")
	for _, backend := range []string{"fs", "versitygw", "azurite"} {
		t.Run(backend, func(t *testing.T) {
			var o options
			switch backend {
			case "fs":
				o.datasets = []dataset{{name: "zarr"}}
			case "versitygw":
				s3 := servers.StartS3(t)
				o.stores = fmt.Sprintf("store \"s3\" \"remote\" {\n  bucket = %q\n}\n", s3.NewBucket(t))
				o.datasets = []dataset{{name: "zarr", store: "store.s3.remote", prefix: "below/here"}}
				o.env = []string{"AWS_ENDPOINT_URL=" + s3.Endpoint, "AWS_ACCESS_KEY_ID=" + s3.AccessKey,
					"AWS_SECRET_ACCESS_KEY=" + s3.SecretKey, "AWS_REGION=" + s3.Region}
			case "azurite":
				az := servers.StartAzure(t)
				o.stores = fmt.Sprintf("store \"azure\" \"remote\" {\n  container = %q\n}\n", az.NewContainer(t))
				o.datasets = []dataset{{name: "zarr", store: "store.azure.remote", prefix: "below"}}
				o.env = []string{"AZURE_STORAGE_CONNECTION_STRING=" + az.ConnectionString()}
			}
			g := startGateway(t, o)

			// python3-zarr's group, uploaded through the key API
			local, expect := t.TempDir(), t.TempDir()
			mustRun(t, clientEnv(t), "", py, "-c", pyArrays, filepath.Join(local, "py.zarr"), expect)
			g.putTree(t, "zarr", "", readTree(t, local))

			// zarrgw's array: its metadata through the key API, its
			// elements by `zarrgw write` into the dataset's store
			g.putKey(t, "zarr", "zg.zarr/.zarray", []byte(zarrgwV2))
			npy := filepath.Join(t.TempDir(), "zg.npy")
			os.WriteFile(npy, npyInt32(rows, cols, elementBytes(0, rows*cols)), 0o644)
			mustRun(t, g.env, "", zarrgw, "write", "--config", g.config, "zarr", "--path", "zg.zarr", "--from", npy)
			if code, b := g.fetch(t, http.MethodGet, g.keyURL("zarr", "zg.zarr/2.3"), nil); code != http.StatusOK {
				t.Fatalf("the last chunk zarrgw wrote: %d %s", code, b)
			}

			env := clientEnv(t, "AWS_S3_ENDPOINT="+g.s3Addr, "AWS_HTTPS=NO", "AWS_VIRTUAL_HOSTING=FALSE",
				"AWS_REGION="+g.region, "AWS_ACCESS_KEY_ID="+keyID, "AWS_SECRET_ACCESS_KEY="+g.secret)
			for _, a := range []struct {
				name, gdal, typ string
				want            []byte
			}{
				{"python3-zarr zlib float32", `ZARR:"/vsis3/zarr/py.zarr":/zlib_f4`, "Float32", mustRead(t, filepath.Join(expect, "zlib_f4.bin"))},
				{"python3-zarr blosc int16", `ZARR:"/vsis3/zarr/py.zarr":/blosc_i2`, "Int16", mustRead(t, filepath.Join(expect, "blosc_i2.bin"))},
				{"zarrgw zlib int32", `ZARR:"/vsis3/zarr/zg.zarr"`, "Int32", elementBytes(0, rows*cols)},
			} {
				info := mustRun(t, env, "", gdalinfo, a.gdal).stdout
				if !strings.Contains(info, "Size is 30, 20") || !strings.Contains(info, "Type="+a.typ) {
					t.Errorf("gdalinfo %s (%s):\n%s", a.gdal, a.name, info)
				}
				out := filepath.Join(t.TempDir(), "out.bin")
				mustRun(t, env, "", translate, "-q", "-of", "ENVI", a.gdal, out)
				if got := mustRead(t, out); !bytes.Equal(got, a.want) {
					t.Errorf("gdal_translate %s (%s): %d bytes that differ from the %d written", a.gdal, a.name, len(got), len(a.want))
				}
			}
			for _, chunk := range []string{"py.zarr/zlib_f4/2.3", "py.zarr/blosc_i2/0.0", "zg.zarr/2.3"} {
				if g.awaitRequests("GET", "zarr", chunk, 1) == 0 {
					t.Errorf("GDAL did not GET %s through the S3 API", chunk)
				}
			}
			if n := strings.Count(g.log.String(), `"method":"PUT","path":"/zarr`); n != 0 {
				t.Errorf("GDAL wrote through the S3 API (%d PUTs) while reading", n)
			}
		})
	}
}

// npyInt32 is a .npy document (version 1) of a C-order int32 array.
func npyInt32(r, c int, data []byte) []byte {
	header := fmt.Sprintf("{'descr': '<i4', 'fortran_order': False, 'shape': (%d, %d), }", r, c)
	pad := 64 - (10+len(header)+1)%64
	header += strings.Repeat(" ", pad%64) + "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(header)))
	b.WriteString(header)
	b.Write(data)
	return b.Bytes()
}
