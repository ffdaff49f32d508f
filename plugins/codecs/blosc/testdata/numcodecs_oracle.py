"""Oracle for the Go blosc codec: numcodecs' C implementation (c-blosc 1.x).

  numcodecs_oracle.py encode DIR   write frames numcodecs encodes, with their
                                   inputs and a manifest, into DIR
  numcodecs_oracle.py decode DIR   decode every DIR/*.frame listed in
                                   DIR/manifest.json with numcodecs and compare
                                   with the matching .raw; print a JSON report

Run with Debian's /usr/bin/python3 and python3-numcodecs. The cases are
deterministic, so a failure can be reproduced by rerunning.
"""
import json
import os
import sys

import numpy as np
from numcodecs import blosc

blosc.use_threads = False

CNAMES = [c for c in ["blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"]
          if c in blosc.list_compressors()]
SHUFFLES = [0, 1, 2]
TYPESIZES = [1, 2, 4, 8, 16]
SIZES = [1, 7, 100, 127, 128, 131, 1000, 4099, 40000, 200003, (1 << 20) + 5]
LEVELS = [1, 3, 5, 7, 9]


def data_for(seed, nbytes):
    """Compressible but not trivial bytes: a smooth signal with noisy low
    bits, every few cases plain random bytes or long runs."""
    rng = np.random.default_rng(seed)
    kind = seed % 5
    if kind == 0:
        return rng.integers(0, 256, nbytes, dtype=np.uint8).tobytes()
    if kind == 1:
        return np.repeat(rng.integers(0, 4, nbytes // 50 + 1, dtype=np.uint8), 50)[:nbytes].tobytes()
    n4 = nbytes // 4 + 1
    x = np.sin(np.arange(n4) * 0.002 * kind) * 1000 + rng.normal(0, 0.01, n4)
    return x.astype("<f4").tobytes()[:nbytes]


def cases():
    i = 0
    for cname in CNAMES:
        for shuffle in SHUFFLES:
            for ts in TYPESIZES:
                for size in SIZES:
                    if size > 200003 and (ts not in (4, 8) or shuffle == 0):
                        continue  # a few large multi-block frames suffice
                    nbytes = size // ts * ts
                    if nbytes == 0:
                        continue
                    clevel = LEVELS[i % len(LEVELS)]
                    if nbytes > 100000 and cname in ("zstd", "zlib", "lz4hc"):
                        clevel = min(clevel, 5)  # the C side is slow there
                    yield dict(name="c%04d" % i, cname=cname, shuffle=shuffle,
                               typesize=ts, clevel=clevel, nbytes=nbytes, seed=i)
                    i += 1


def encode(out):
    manifest = []
    for c in cases():
        raw = data_for(c["seed"], c["nbytes"])
        arr = np.frombuffer(raw, dtype="V%d" % c["typesize"] if c["typesize"] == 16 else "u%d" % c["typesize"])
        frame = blosc.compress(arr, c["cname"].encode(), c["clevel"], c["shuffle"])
        with open(os.path.join(out, c["name"] + ".raw"), "wb") as f:
            f.write(raw)
        with open(os.path.join(out, c["name"] + ".frame"), "wb") as f:
            f.write(frame)
        manifest.append(c)
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump({"cnames": CNAMES, "blosc_version": blosc.VERSION_STRING, "cases": manifest}, f)


def decode(out):
    with open(os.path.join(out, "manifest.json")) as f:
        manifest = json.load(f)
    failures = []
    for c in manifest["cases"]:
        with open(os.path.join(out, c["name"] + ".frame"), "rb") as f:
            frame = f.read()
        with open(os.path.join(out, c["name"] + ".raw"), "rb") as f:
            raw = f.read()
        try:
            got = blosc.decompress(frame)
        except Exception as e:  # report, keep going
            failures.append(dict(name=c["name"], error=repr(e)))
            continue
        if bytes(got) != raw:
            failures.append(dict(name=c["name"], error="decoded bytes differ (%d vs %d bytes)" % (len(got), len(raw))))
    json.dump({"checked": len(manifest["cases"]), "failures": failures}, sys.stdout)


if __name__ == "__main__":
    {"encode": encode, "decode": decode}[sys.argv[1]](sys.argv[2])
