"""Times cold reads, each in a fresh process, and prints the ratios of the
streaming issue: `zarrgw cat --format npy` to /dev/null (whole process)
and Array.Read into memory (the read alone) against python3-zarr's first
`a[...]` (the read alone), with each one's peak resident set; for the
zstd arrays also against the decode limit (DECODELIMIT: klauspost/compress
decoding the same chunks in memory on every core, no I/O).

usage: /usr/bin/python3 compare.py ZARRGW COLDREAD DECODELIMIT DATADIR ROUNDS
Every figure is the best of ROUNDS, the measurements of a variant taken in
turn within each round; the machine is shared, and other load only ever
slows a round down. cat's CPU seconds (user + system, whole process) are
those of its best round.
"""
import os
import subprocess
import sys
import time

zarrgw, coldread, decodelimit, data, rounds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
here = os.path.dirname(os.path.abspath(__file__))


def fresh(cmd, capture):
    """Runs cmd in a new process: (wall seconds, CPU seconds (user +
    system), peak RSS MiB, stdout)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE if capture else devnull)
    out = p.stdout.read().decode().strip() if capture else ""
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    os.close(devnull)
    if status != 0:
        sys.exit("compare.py: %s exited with status %d" % (" ".join(cmd), status))
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out


def compare(variant):
    """Runs every measurement of a variant ROUNDS times, interleaved (one
    of each per round), so that a burst of other load falls on all of them
    alike; keeps each one's best time, its CPU seconds in that round and
    the largest peak RSS seen."""
    path = os.path.join(data, variant + ".zarr")
    cmds = {
        "cat": ([zarrgw, "cat", "--format", "npy", path], False),
        "read": ([coldread, path], True),
        "python": (["/usr/bin/python3", os.path.join(here, "python_first_read.py"), path], True),
    }
    if variant.startswith("zstd"):
        # the limit's own best of three passes in one process
        cmds["limit"] = ([decodelimit, path, "3"], True)
    for cmd, capture in cmds.values():
        fresh(cmd, capture)  # the page cache holds the chunks from here on
    best = {}
    for _ in range(rounds):
        for name, (cmd, capture) in cmds.items():
            wall, cpu, peak, out = fresh(cmd, capture)
            t = float(out) if capture else wall
            b = best.get(name)
            if b is None or t < b[0]:
                best[name] = (t, cpu, max(peak, b[2] if b else 0))
            else:
                best[name] = (b[0], b[1], max(peak, b[2]))
    return best


for variant in ("raw", "zstd", "zstdrows"):
    b = compare(variant)
    cat_t, cat_cpu, cat_rss = b["cat"]
    read_t, _, read_rss = b["read"]
    py_t, _, py_rss = b["python"]
    print("%s: zarrgw cat npy %.3f s (%.3f CPU s, %.0f MiB RSS), Array.Read %.3f s (%.0f MiB RSS), python3-zarr first a[...] %.3f s (%.0f MiB RSS)"
          % (variant, cat_t, cat_cpu, cat_rss, read_t, read_rss, py_t, py_rss))
    print("%s: python / zarrgw cat = %.2f (target >= 3), python / Array.Read = %.2f (target >= 1), cat RSS %.0f MiB (target < 128)"
          % (variant, py_t / cat_t, py_t / read_t, cat_rss))
    if "limit" in b:
        limit_t = b["limit"][0]
        print("%s: decode limit %.3f s, zarrgw cat / limit = %.2f (target >= 0.8), Array.Read / limit = %.2f"
              % (variant, limit_t, limit_t / cat_t, limit_t / read_t))
