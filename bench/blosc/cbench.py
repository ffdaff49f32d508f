"""Times numcodecs' C blosc (c-blosc 1.x) single-threaded on the inputs the
Go benchmarks use, and leaves input and frames in DIR for them.

  cbench.py DIR REPEAT

Prints one line per measurement: "<encode|decode> <case> <MB/s>", the best
of REPEAT timing rounds (wall clock).
"""
import os
import sys
import timeit

import numpy as np
from numcodecs import blosc

blosc.use_threads = False
blosc.set_nthreads(1)

CASES = [
    ("lz4_shuffle", "lz4", 5, blosc.SHUFFLE),
    ("zstd_bitshuffle", "zstd", 5, blosc.BITSHUFFLE),
    ("blosclz_shuffle", "blosclz", 5, blosc.SHUFFLE),
]


def main(out, repeat):
    n = 1 << 18  # 1 MiB of float32
    rng = np.random.default_rng(42)
    data = (np.sin(np.arange(n) * 0.001) * 1000 + rng.normal(0, 0.01, n)).astype("<f4")
    with open(os.path.join(out, "input.f32"), "wb") as f:
        f.write(data.tobytes())
    for name, cname, clevel, shuffle in CASES:
        frame = blosc.compress(data, cname.encode(), clevel, shuffle)
        with open(os.path.join(out, name + ".frame"), "wb") as f:
            f.write(frame)
        assert bytes(blosc.decompress(frame)) == data.tobytes()
        dest = np.empty_like(data)
        for op, fn in (("encode", lambda: blosc.compress(data, cname.encode(), clevel, shuffle)),
                       ("decode", lambda: blosc.decompress(frame)),
                       ("decodeinto", lambda: blosc.decompress(frame, dest))):
            number = max(1, int(0.05 / max(timeit.timeit(fn, number=1), 1e-6)))
            best = min(timeit.repeat(fn, number=number, repeat=repeat)) / number
            print(op, name, "%.1f" % (data.nbytes / best / 1e6))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
