"""Times cold reads, each in a fresh process, and prints the ratios of the
streaming issue: `zarrgw cat --format npy` to /dev/null (whole process)
and Array.Read into memory (the read alone) against python3-zarr's first
`a[...]` (the read alone), with each one's peak resident set.

usage: /usr/bin/python3 compare.py ZARRGW COLDREAD DATADIR ROUNDS
Every figure is the best of ROUNDS; the machine is shared, and other load
only ever slows a round down.
"""
import os
import subprocess
import sys
import time

zarrgw, coldread, data, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
here = os.path.dirname(os.path.abspath(__file__))


def fresh(cmd, capture):
    """Runs cmd in a new process: (wall seconds, peak RSS MiB, stdout)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE if capture else devnull)
    out = p.stdout.read().decode().strip() if capture else ""
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    os.close(devnull)
    if status != 0:
        sys.exit("compare.py: %s exited with status %d" % (" ".join(cmd), status))
    return wall, usage.ru_maxrss / 1024, out


def best(cmd, capture, timed):
    """Best time over the rounds (wall, or what the command printed) and
    the largest peak RSS seen."""
    fresh(cmd, capture)  # the page cache holds the chunks from here on
    times, rss = [], 0.0
    for _ in range(rounds):
        wall, peak, out = fresh(cmd, capture)
        times.append(float(out) if timed else wall)
        rss = max(rss, peak)
    return min(times), rss


for variant in ("raw", "zstd"):
    path = os.path.join(data, variant + ".zarr")
    cat_t, cat_rss = best([zarrgw, "cat", "--format", "npy", path], False, False)
    read_t, read_rss = best([coldread, path], True, True)
    py_t, py_rss = best(["/usr/bin/python3", os.path.join(here, "python_first_read.py"), path], True, True)
    print("%s: zarrgw cat npy %.3f s (%.0f MiB RSS), Array.Read %.3f s (%.0f MiB RSS), python3-zarr first a[...] %.3f s (%.0f MiB RSS)"
          % (variant, cat_t, cat_rss, read_t, read_rss, py_t, py_rss))
    print("%s: python / zarrgw cat = %.2f (target >= 3), python / Array.Read = %.2f (target >= 1), cat RSS %.0f MiB (target < 128)"
          % (variant, py_t / cat_t, py_t / read_t, cat_rss))
