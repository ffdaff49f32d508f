"""Cross-checks the registry codecs zarrs implements (packbits, reshape)
with zarrgw. zarr-python 3.1 does not know these codecs, so each is
registered here as a stand-in that only carries its metadata; the zarrs
codec pipeline (Rust) does the encoding and decoding, strictly (no
fallback to zarr-python's own codecs).

For each case of CASES_JSON ({name: {"dtype", "shape", "chunks",
"codecs", "data"}}) it writes the array with zarrs under ZARRS_DIR/name
and reads ZARRGW_DIR/name (written by zarrgw) with zarrs. It prints
{name: {"data": [flat, C order]} or {"error": "..."}}.

usage: zarrs_codecs.py CASES_JSON ZARRS_DIR ZARRGW_DIR
"""

import dataclasses
import os
import json
import sys
import traceback

import numpy as np
import zarr
from zarr.abc.codec import ArrayArrayCodec, ArrayBytesCodec
from zarr.registry import register_codec

zarr.config.set({"codec_pipeline.path": "zarrs.ZarrsCodecPipeline", "codec_pipeline.strict": True})


def stand_in(name, base):
    @dataclasses.dataclass(frozen=True)
    class StandIn(base):
        configuration: dict = dataclasses.field(default_factory=dict)

        @classmethod
        def from_dict(cls, data):
            return cls(configuration=dict(data.get("configuration") or {}))

        def to_dict(self):
            return {"name": name, "configuration": self.configuration}

        def resolve_metadata(self, chunk_spec):
            return chunk_spec

        def compute_encoded_size(self, n, spec):
            return n

        async def _decode_single(self, *args):
            raise NotImplementedError(name + " runs in zarrs only")

        async def _encode_single(self, *args):
            raise NotImplementedError(name + " runs in zarrs only")

    StandIn.__name__ = name
    register_codec(name, StandIn)


stand_in("packbits", ArrayBytesCodec)
stand_in("reshape", ArrayArrayCodec)


def metadata(case):
    return {
        "zarr_format": 3, "node_type": "array", "shape": case["shape"], "data_type": case["dtype"],
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": case["chunks"]}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": False if case["dtype"] == "bool" else 0, "codecs": case["codecs"], "attributes": {},
    }


def main():
    cases = json.load(open(sys.argv[1]))
    zarrs_dir, zarrgw_dir = sys.argv[2], sys.argv[3]
    out = {}
    for name, case in sorted(cases.items()):
        try:
            os.makedirs(zarrs_dir + "/" + name, exist_ok=True)
            with open(zarrs_dir + "/" + name + "/zarr.json", "w") as f:
                json.dump(metadata(case), f)
            a = zarr.open_array(zarrs_dir + "/" + name, mode="r+")
            a[...] = np.array(case["data"], dtype=case["dtype"]).reshape(case["shape"])
            b = zarr.open_array(zarrgw_dir + "/" + name, mode="r")
            out[name] = {"data": np.asarray(b[...]).ravel().astype("float64").tolist()}
        except Exception:
            out[name] = {"error": traceback.format_exc(limit=3)}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
