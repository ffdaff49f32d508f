"""Live clients through a running `zarrgw serve`: zarr-python 3 (fsspec's
HTTP filesystem and obstore's HTTPStore over the key API, obstore's
S3Store over the S3 API), tensorstore (its http and s3 kvstores), the
zarrs codec pipeline in zarr-python, and xarray (fsspec over the key API,
s3fs over the S3 API), in one process.

usage: live.py MANIFEST.json   (written by live_test.go; see liveManifest)

First zarr-python writes its own arrays into the served directory
("py_writes"); then every client reads every array of "reads" and of
"corrupt" through the gateway and compares it element by element with
py/formula.py; then the writers of "writes" write their arrays through the
gateway (zarrgw reads them back on the Go side); then xarray opens the
groups of "xarray". Every reader also reads the arrays of "matrix", a
sample of the interoperability matrix (py/matrix_write.py --sample) in the
served directory, against its own expected values (py/matrix_values.py).
It prints one JSON document:

  {"versions": {...},
   "reads": {CLIENT: [{"path", "status": "exact"|"differs"|"error", "detail"}]},
   "matrix": {CLIENT: [{"path", "status": "exact"|"differs"|"error", "detail"}]},
   "writes": [{"client", "path", "error"}],  (error: the last lines of the traceback)
   "matrix_writes": [{"client", "path", "error"}],
   "xarray": [{"name", "status", "detail"}]}
"""

import json
import os
import sys
import traceback
from importlib.metadata import version

import numpy as np

import formula
import matrix_values as mv
import matrix_write

MANIFEST = json.load(open(sys.argv[1]))
S3 = MANIFEST["s3"]
# tensorstore's s3 kvstore takes its credentials from the environment
# ("aws_credentials": {"type": "environment"}); set before it is imported.
os.environ.update(
    AWS_ACCESS_KEY_ID=S3["key_id"],
    AWS_SECRET_ACCESS_KEY=S3["secret"],
    AWS_REGION=S3["region"],
    AWS_EC2_METADATA_DISABLED="true",
)

import numcodecs  # noqa: E402
import tensorstore as ts  # noqa: E402
import xarray as xr  # noqa: E402
import zarr  # noqa: E402
import zarr.codecs  # noqa: E402
from zarrs.pipeline import UnsupportedDataTypeError, UnsupportedMetadataError  # noqa: E402
from obstore.store import HTTPStore, S3Store  # noqa: E402
from zarr.storage import FsspecStore, LocalStore, ObjectStore  # noqa: E402

AUTH = {"Authorization": "Bearer " + MANIFEST["token"]}


def expected(spec):
    """The array spec's values from the formula, in numpy's form."""
    n = int(np.prod(spec["shape"], dtype=np.int64))
    vals = [formula.value(spec["formula"], i) for i in range(n)]
    dt = "object" if spec["dtype"] == "string" else spec["dtype"]
    return np.array(vals, dtype=dt).reshape(spec["shape"])


def compare(spec, got):
    """'exact', or a description of the first differences."""
    want = expected(spec)
    got = np.asarray(got)
    if got.dtype.byteorder not in "=|" and got.dtype != object:
        got = got.astype(got.dtype.newbyteorder("="))  # as stored (">u2") in native order
    if got.shape != want.shape:
        return "shape %s, want %s" % (list(got.shape), list(want.shape))
    if want.dtype != object and got.dtype != want.dtype:
        return "dtype %s, want %s" % (got.dtype, want.dtype)
    g, w = got.ravel(), want.ravel()
    if want.dtype.kind == "f":
        # bit for bit: a float read exactly has the same bytes
        bad = [i for i in range(len(w)) if g[i].tobytes() != w[i].tobytes()]
    else:
        bad = [i for i in range(len(w)) if g[i] != w[i]]
    if not bad:
        return "exact"
    shown = "; ".join("[%d] got %r want %r" % (i, g[i], w[i]) for i in bad[:3])
    return "%d of %d elements differ: %s" % (len(bad), len(w), shown)


# --- stores ---------------------------------------------------------------


def fsspec_key(read_only=True, auth=True):
    opts = {"client_kwargs": {"headers": AUTH}} if auth else {}
    return FsspecStore.from_url(MANIFEST["key_url"], read_only=read_only, storage_options=opts)


def obstore_key(read_only=True):
    # HTTPStore adds a "/" of its own after the URL's trailing one: the
    # gateway takes "/d/NAME//KEY" as KEY
    http = HTTPStore.from_url(MANIFEST["key_url"], client_options={"allow_http": True, "default_headers": AUTH})
    return ObjectStore(http, read_only=read_only)


def obstore_s3(read_only=True):
    s3 = S3Store(
        S3["bucket"],
        endpoint=S3["endpoint"],
        region=S3["region"],
        access_key_id=S3["key_id"],
        secret_access_key=S3["secret"],
        virtual_hosted_style_request=False,
        client_options={"allow_http": True},
    )
    return ObjectStore(s3, read_only=read_only)


def ts_kvstore(kind, path):
    if kind == "http":
        return {"driver": "http", "base_url": MANIFEST["key_url"], "path": path + "/", "headers": ["Authorization: " + AUTH["Authorization"]]}
    return {
        "driver": "s3",
        "bucket": S3["bucket"],
        "endpoint": S3["endpoint"],
        "aws_region": S3["region"],
        "aws_credentials": {"type": "environment"},
        "path": path + "/",
    }


# --- readers: (store or kvstore kind, array path) -> numpy array ------------


def zarr_reader(make_store):
    store = make_store()

    def read(spec):
        return zarr.open_array(store=store, path=spec["path"], mode="r", zarr_format=spec["zarr_format"])[...]

    return read


def zarrs_reader(make_store):
    store = make_store()

    def read(spec):
        # strict: an array or store the Rust pipeline cannot take is an
        # error, never a silent fall back to zarr-python's own pipeline
        with zarr.config.set({"codec_pipeline.path": "zarrs.ZarrsCodecPipeline", "codec_pipeline.strict": True}):
            a = zarr.open_array(store=store, path=spec["path"], mode="r", zarr_format=spec["zarr_format"])
            pipeline = type(a._async_array.codec_pipeline).__name__
            if pipeline != "ZarrsCodecPipeline":
                raise RuntimeError("zarr-python chose the codec pipeline %s, not zarrs'" % pipeline)
            return a[...]

    return read


def zarrs_fallback_reader(make_store):
    """The strict zarrs reader, but for what zarrs-python refuses as not
    supported (a data type, a codec): that zarr-python's own pipeline
    reads, as the matrix's zarrs reader does. It returns (values, the
    refusal's name or "")."""
    strict, store = zarrs_reader(make_store), make_store()

    def read(spec):
        try:
            return strict(spec), ""
        except (UnsupportedDataTypeError, UnsupportedMetadataError) as e:
            with zarr.config.set({"codec_pipeline.path": "zarrs.ZarrsCodecPipeline", "codec_pipeline.strict": False}):
                return zarr.open_array(store=store, path=spec["path"], mode="r", zarr_format=spec["zarr_format"])[...], type(e).__name__

    return read


def ts_reader(kind):
    def read(spec):
        driver = "zarr3" if spec["zarr_format"] == 3 else "zarr"
        return ts.open({"driver": driver, "kvstore": ts_kvstore(kind, spec["path"])}, open=True, read=True).result().read().result()

    return read


ZARRS_STORES = {
    "zarrs-fsspec-key": lambda: fsspec_key(auth=False),
    "zarrs-obstore-key": obstore_key,
    "zarrs-obstore-s3": obstore_s3,
}

READERS = {
    "zarr3-fsspec-key": lambda: zarr_reader(fsspec_key),
    "zarr3-obstore-key": lambda: zarr_reader(obstore_key),
    "zarr3-obstore-s3": lambda: zarr_reader(obstore_s3),
    "tensorstore-http-key": lambda: ts_reader("http"),
    "tensorstore-s3": lambda: ts_reader("s3"),
    # zarrs rebuilds an HTTP store from its URL and takes no headers: it
    # reads as an anonymous client
    **{c: (lambda store: lambda: zarrs_reader(store))(store) for c, store in ZARRS_STORES.items()},
}


def run_reads():
    """Every reader over "reads" and "corrupt", by the formula."""
    return run_readers(READERS, MANIFEST["reads"] + MANIFEST["corrupt"], lambda spec, got: (compare(spec, got), ""), lambda c, spec: c in spec.get("skip", {}))


def run_matrix_reads():
    """Every reader over the matrix's sample, by the matrix's values (the
    zarrs readers noting what zarr-python's own pipeline read)."""
    readers = {c: (lambda make: lambda: (lambda spec: (make()(spec), "")))(m) for c, m in READERS.items()}
    for client, store in ZARRS_STORES.items():
        readers[client] = (lambda store: lambda: zarrs_fallback_reader(store))(store)

    def cmp(spec, got):
        values, note = got
        return mv.same_read(values, mv.expected(spec)) or "exact", note

    return run_readers(readers, MANIFEST["matrix"], cmp, lambda c, spec: False)


def run_readers(readers, specs, cmp_fn, skip):
    out = {}
    for client, make in readers.items():
        results = []
        try:
            read = make()
        except Exception:
            out[client] = [{"path": "", "status": "error", "detail": traceback.format_exc(limit=4)}]
            continue
        for spec in specs:
            if skip(client, spec):
                continue
            r = {"path": spec["path"]}
            try:
                cmp, note = cmp_fn(spec, read(spec))
                r.update(status="exact" if cmp == "exact" else "differs", detail=note if cmp == "exact" else cmp)
            except Exception as e:
                r.update(status="error", detail="%s: %s" % (type(e).__name__, str(e)[:600]))
            results.append(r)
        out[client] = results
    return out


# --- zarr-python's own arrays, written to the served directory ------------


def zarr_compressors(spec):
    name, v3 = spec.get("compressor", "none"), spec["zarr_format"] == 3
    if name == "none":
        return None
    if v3:
        return {
            "zstd": zarr.codecs.ZstdCodec(level=3),
            "gzip": zarr.codecs.GzipCodec(level=5),
            "blosc": zarr.codecs.BloscCodec(cname="lz4", clevel=5, shuffle="shuffle"),
        }[name]
    return {"zlib": numcodecs.Zlib(level=3), "blosc": numcodecs.Blosc(cname="zstd", clevel=3), "zstd": numcodecs.Zstd(level=3)}[name]


def zarr_create(store, spec):
    kwargs = {}
    if spec.get("shards"):
        kwargs["shards"] = spec["shards"]
    comp = zarr_compressors(spec)
    a = zarr.create_array(
        store=store,
        name=spec["path"],
        shape=spec["shape"],
        chunks=spec["chunks"],
        dtype=str if spec["dtype"] == "string" else spec["dtype"],
        zarr_format=spec["zarr_format"],
        compressors=comp if comp is not None else None,
        fill_value=spec.get("fill_value", 0 if spec["dtype"] != "string" else ""),
        dimension_names=spec.get("dims") if spec["zarr_format"] == 3 else None,
        **kwargs,
    )
    return a


def run_py_writes():
    store = LocalStore(MANIFEST["local_root"])
    for spec in MANIFEST["py_writes"]:
        a = zarr_create(store, spec)
        a[...] = expected(spec)
    for g in MANIFEST.get("py_xarray", []):
        ds = xr.Dataset(
            {v["name"]: (v["dims"], expected(v)) for v in g["data_vars"]},
            coords={v["name"]: (v["dims"], expected(v)) for v in g["coords"]},
            attrs=g["attrs"],
        )
        # the chunks of the manifest (edge chunks), zarr-python's default codecs
        encoding = {v["name"]: {"chunks": v["chunks"]} for v in g["data_vars"] + g["coords"]}
        ds.to_zarr(os.path.join(MANIFEST["local_root"], g["path"]), zarr_format=3, consolidated=True, mode="w-", encoding=encoding)


# --- writes through the gateway -------------------------------------------


def write_zarr(make_store, pipeline=None):
    def write(spec):
        store = make_store(read_only=False)
        conf = {"codec_pipeline.path": pipeline, "codec_pipeline.strict": True} if pipeline else {}
        with zarr.config.set(conf):
            if spec.get("existing"):
                a = zarr.open_array(store=store, path=spec["path"], mode="r+", zarr_format=spec["zarr_format"])
            else:
                a = zarr_create(store, spec)
            if pipeline:
                got = type(a._async_array.codec_pipeline).__name__
                if got != pipeline.rsplit(".", 1)[1]:
                    raise RuntimeError("zarr-python chose the codec pipeline %s, not %s" % (got, pipeline))
            a[...] = expected(spec)

    return write


def write_ts(kind):
    return lambda spec: write_ts_kvstore(kind, spec)


def write_ts_kvstore(kind, spec):
    values = expected(spec)
    kv = ts_kvstore(kind, spec["path"])
    if spec["zarr_format"] == 3:
        codecs = [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd", "configuration": {"level": 3}}]
        chunks = spec["chunks"]
        if spec.get("shards"):
            codecs = [{"name": "sharding_indexed", "configuration": {"chunk_shape": spec["chunks"], "codecs": codecs}}]
            chunks = spec["shards"]
        s = {
            "driver": "zarr3",
            "kvstore": kv,
            "metadata": {
                "shape": spec["shape"],
                "data_type": spec["dtype"],
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
                "codecs": codecs,
            },
        }
    else:
        s = {
            "driver": "zarr",
            "kvstore": kv,
            "metadata": {"shape": spec["shape"], "dtype": np.dtype(spec["dtype"]).str, "chunks": spec["chunks"], "compressor": {"id": "zlib", "level": 3}},
        }
    a = ts.open(s, create=True, open=False).result()
    a.write(values).result()


WRITERS = {
    "zarr3-fsspec-key": write_zarr(lambda read_only: fsspec_key(read_only=read_only)),
    "zarr3-obstore-key": write_zarr(lambda read_only: obstore_key(read_only=read_only)),
    "zarr3-obstore-s3": write_zarr(lambda read_only: obstore_s3(read_only=read_only)),
    "zarrs-obstore-s3": write_zarr(lambda read_only: obstore_s3(read_only=read_only), "zarrs.ZarrsCodecPipeline"),
    "tensorstore-s3": write_ts("s3"),
    "tensorstore-http-key": write_ts("http"),
}


def run_writes():
    out = []
    for spec in MANIFEST["writes"]:
        r = {"client": spec["client"], "path": spec["path"], "error": ""}
        try:
            WRITERS[spec["client"]](spec)
        except Exception:
            r["error"] = traceback.format_exc(limit=4)
        out.append(r)
    return out


def run_matrix_writes():
    """The writers write arrays of the matrix's sample through the gateway
    ("matrix_writes": the entry, at its path under written-matrix/, and
    its client), as matrix_write.py writes them; zarrgw reads them back
    on the Go side. The obstore HTTP client writes the rows into an array
    whose metadata the Go side put there (see liveWrites)."""
    out = []
    for e in MANIFEST["matrix_writes"]:
        client = e["client"]
        r = {"client": client, "path": e["path"], "error": ""}
        try:
            if client == "tensorstore-s3":
                matrix_write.write_tensorstore("", e, kvstore=ts_kvstore("s3", e["path"]))
            elif client == "zarr3-obstore-key":
                a = zarr.open_array(store=obstore_key(read_only=False), path=e["path"], mode="r+", zarr_format=e["format"])
                rows = e["written_rows"]
                a[:rows] = mv.expected(e)[:rows]
            else:
                store = {"zarr3-fsspec-key": fsspec_key, "zarr3-obstore-s3": obstore_s3, "zarrs-obstore-s3": obstore_s3}[client](read_only=False)
                conf = {"codec_pipeline.path": "zarrs.ZarrsCodecPipeline", "codec_pipeline.strict": True} if client.startswith("zarrs-") else {}
                with zarr.config.set(conf):
                    matrix_write.write_zarr_python("", e, store=store)
        except Exception:
            r["error"] = traceback.format_exc(limit=4)
        out.append(r)
    return out


# --- xarray ---------------------------------------------------------------


def s3fs_options():
    return {"key": S3["key_id"], "secret": S3["secret"], "client_kwargs": {"endpoint_url": S3["endpoint"], "region_name": S3["region"]}}


def check_dataset(ds, case):
    """'exact', or what differs: variables, dimensions, coordinates, values."""
    want_vars = {v["name"]: v for v in case["data_vars"]}
    want_coords = {v["name"]: v for v in case["coords"]}
    if set(ds.data_vars) != set(want_vars):
        return "data variables %s, want %s" % (sorted(ds.data_vars), sorted(want_vars))
    if set(ds.coords) != set(want_coords):
        return "coordinates %s, want %s" % (sorted(ds.coords), sorted(want_coords))
    for name, v in list(want_vars.items()) + list(want_coords.items()):
        var = ds[name]
        if list(var.dims) != v["dims"]:
            return "%s: dimensions %s, want %s" % (name, list(var.dims), v["dims"])
        cmp = compare(v, var.values)
        if cmp != "exact":
            return "%s: %s" % (name, cmp)
    for k, val in case["attrs"].items():
        if ds.attrs.get(k) != val:
            return "attribute %s: %r, want %r" % (k, ds.attrs.get(k), val)
    return "exact"


def run_xarray():
    out = []
    for case in MANIFEST["xarray"]:
        r = {"name": case["name"]}
        try:
            opts = s3fs_options() if case["url"].startswith("s3://") else {}
            with xr.open_zarr(case["url"], consolidated=case["consolidated"], zarr_format=3, storage_options=opts) as ds:
                cmp = check_dataset(ds, case)
            r.update(status="exact" if cmp == "exact" else "differs", detail="" if cmp == "exact" else cmp)
        except Exception as e:
            r.update(status="error", detail="%s: %s" % (type(e).__name__, str(e)[:600]))
        out.append(r)
    return out


def main():
    run_py_writes()
    out = {
        "versions": {m: version(m) for m in ["zarr", "tensorstore", "zarrs", "obstore", "xarray", "fsspec", "s3fs"]},
        "reads": run_reads(),
        "matrix": run_matrix_reads(),
        "writes": run_writes(),
        "matrix_writes": run_matrix_writes(),
        "xarray": run_xarray(),
    }
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
