"""Reads one zarrgw-written v3 array with each reference implementation of
the pinned Python environment (scripts/python/requirements.txt) and prints
what each read, as JSON: {"reader": {"shape": [...], "dtype": "...",
"data": [flat, C order]} or {"error": "..."}}.

usage: zarr3_smoke.py STORE_DIR ARRAY_PATH
"""

import json
import os
import sys
import traceback
from importlib.metadata import version

import numpy as np
import tensorstore as ts
import zarr


def described(a):
    a = np.asarray(a)
    return {"shape": list(a.shape), "dtype": str(a.dtype), "data": a.ravel().tolist()}


def with_zarr_python(store, path):
    return zarr.open_array(store=store, path=path, mode="r", zarr_format=3)[...]


def with_zarrs_pipeline(store, path):
    # zarr-python with its codec pipeline replaced by zarrs (Rust).
    with zarr.config.set({"codec_pipeline.path": "zarrs.ZarrsCodecPipeline"}):
        import zarrs  # noqa: F401  (the pipeline's module must import)

        a = zarr.open_array(store=store, path=path, mode="r", zarr_format=3)
        pipeline = type(a._async_array.codec_pipeline).__name__
        if pipeline != "ZarrsCodecPipeline":
            raise RuntimeError(f"zarr-python chose the codec pipeline {pipeline}, not zarrs'")
        return a[...]


def with_tensorstore(store, path):
    spec = {"driver": "zarr3", "kvstore": {"driver": "file", "path": os.path.join(store, path)}}
    return ts.open(spec, open=True, read=True).result().read().result()


def main():
    store, path = sys.argv[1], sys.argv[2]
    out = {}
    for name, read in [
        ("zarr-python " + zarr.__version__, with_zarr_python),
        ("zarrs pipeline " + version("zarrs"), with_zarrs_pipeline),
        ("tensorstore " + version("tensorstore"), with_tensorstore),
    ]:
        try:
            out[name] = described(read(store, path))
        except Exception:
            out[name] = {"error": traceback.format_exc(limit=3)}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
