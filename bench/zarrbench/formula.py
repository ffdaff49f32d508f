"""zarr_benchmarks' array, from its formula alone: a 1024^3 uint16 array whose
element [x, y, z] (x the first, slowest index) is (z + y*y//32 + x**3) mod 65536.

    formula.py raw     the elements as little-endian uint16 in C order, on stdout
    formula.py sha256  the SHA-256 of those bytes

Both are computed here with numpy, from the formula, never from an array a
Zarr implementation wrote: they are what every reader must give back.
"""
import hashlib
import sys

import numpy as np

N = 1024


def slabs():
    """Yields the array one x-slab (N x N elements) at a time, as bytes."""
    y = np.arange(N, dtype=np.uint64)
    z = np.arange(N, dtype=np.uint64)
    yz = (z[None, :] + (y * y // 32)[:, None])
    for x in range(N):
        yield ((yz + x**3) % 65536).astype("<u2").tobytes()


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    if what == "raw":
        out = sys.stdout.buffer
        for slab in slabs():
            out.write(slab)
    elif what == "sha256":
        h = hashlib.sha256()
        for slab in slabs():
            h.update(slab)
        print(h.hexdigest())
    else:
        sys.exit("usage: formula.py raw|sha256")


if __name__ == "__main__":
    main()
