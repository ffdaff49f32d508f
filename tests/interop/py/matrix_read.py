"""Reads every array of a manifest of the interoperability matrix with one
reader and compares it with the elements the shared formula gives
(matrix_values.expected), printing one result per array as JSON:

  {"reader": "zarr-python 3.1.6", "results": [{"id": ..., "result":
   "exact" | "wrong" | "error", "detail": "..."}]}

"wrong" means the reader returned elements other than the formula's (or
another shape or type); "error" that it refused or failed to read.

usage: matrix_read.py READER MANIFEST
  READER  zarr-python | zarrs | tensorstore (the venv's python) or
          zarr-python-2 (Debian's /usr/bin/python3 with zarr 2.13)
  MANIFEST  {"arrays": [{"id", "root", "path", "dtype", "shape",
            "formula", "fill", "written_rows"}]}
"""

import json
import os
import sys
import warnings

import matrix_values as mv


def zarr_python_reader():
    import zarr
    from zarr.storage import LocalStore

    def read(root, path):
        return zarr.open_array(store=LocalStore(root, read_only=True), path=path, mode="r")[...]

    return "zarr-python " + zarr.__version__, read


def zarrs_reader():
    from importlib.metadata import version

    import zarr
    import zarrs  # noqa: F401  (the pipeline's module must import)
    from zarr.storage import LocalStore

    zarr.config.set({"codec_pipeline.path": "zarrs.ZarrsCodecPipeline"})

    def read(root, path):
        a = zarr.open_array(store=LocalStore(root, read_only=True), path=path, mode="r")
        pipeline = type(a._async_array.codec_pipeline).__name__
        if pipeline != "ZarrsCodecPipeline":
            raise RuntimeError("zarr-python chose the codec pipeline %s, not zarrs'" % pipeline)
        return a[...]

    return "zarrs pipeline " + version("zarrs"), read


def tensorstore_reader():
    from importlib.metadata import version

    import tensorstore as ts

    def read(root, path):
        p = os.path.join(root, path)
        driver = "zarr3" if os.path.exists(os.path.join(p, "zarr.json")) else "zarr"
        spec = {"driver": driver, "kvstore": {"driver": "file", "path": p}}
        return ts.open(spec, open=True, read=True).result().read().result()

    return "tensorstore " + version("tensorstore"), read


def zarr_python_2_reader():
    import zarr

    def read(root, path):
        return zarr.open_array(store=root, path=path, mode="r")[...]

    return "zarr-python " + zarr.__version__, read


READERS = {
    "zarr-python": zarr_python_reader,
    "zarrs": zarrs_reader,
    "tensorstore": tensorstore_reader,
    "zarr-python-2": zarr_python_2_reader,
}


def main():
    warnings.simplefilter("ignore")
    which, manifest = sys.argv[1], sys.argv[2]
    try:
        name, read = READERS[which]()
    except ImportError as exc:
        print("%s: %s" % (which, exc), file=sys.stderr)
        sys.exit(3)
    with open(manifest) as f:
        arrays = json.load(f)["arrays"]
    results = []
    for e in arrays:
        r = {"id": e["id"]}
        try:
            want = mv.expected(e)
        except Exception as exc:  # a type this numpy lacks (ml_dtypes under Debian)
            r.update(result="error", detail="expected values: %s: %s" % (type(exc).__name__, exc))
            results.append(r)
            continue
        try:
            got = read(e["root"], e["path"])
        except Exception as exc:
            msg = str(exc).strip().splitlines()
            r.update(result="error", detail="%s: %s" % (type(exc).__name__, msg[0] if msg else ""))
            results.append(r)
            continue
        diff = mv.same_read(got, want)
        r.update(result="wrong" if diff else "exact", detail=diff or "")
        results.append(r)
    json.dump({"reader": name, "results": results}, sys.stdout)


if __name__ == "__main__":
    main()
