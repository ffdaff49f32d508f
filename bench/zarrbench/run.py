"""Runs zarr_benchmarks' workloads against every implementation, each run a
whole process timed by /usr/bin/time -v, the implementations alternating
round by round (the order turns each round), and prints a Markdown table of
each cell's best and median wall time and peak RSS. run.sh prepares what
this needs and calls it; see bench/zarrbench/README.md.

Cold runs: this machine does not let us drop the page cache
(/proc/sys/vm/drop_caches is not writable here), so before each cold run
every file of the arrays involved is evicted with posix_fadvise
(POSIX_FADV_DONTNEED), which drops their clean pages: the run reads them
from the disk again. Warm runs read them once first.
"""
import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time
import urllib.request

IMAGES = {"uncompressed": "raw.zarr", "zstd": "zstd.zarr", "sharded": "shard.zarr"}


def evict(path):
    for root, _, files in os.walk(path):
        for name in files:
            fd = os.open(os.path.join(root, name), os.O_RDONLY)
            try:
                os.fdatasync(fd)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


def warm(path):
    for root, _, files in os.walk(path):
        for name in files:
            with open(os.path.join(root, name), "rb") as f:
                while f.read(1 << 24):
                    pass


def timed(argv, printed=None):
    """Runs argv under /usr/bin/time -v: (wall seconds, peak RSS in MiB,
    user + system CPU seconds).
    With printed, the seconds are those the command prints on its line
    starting so ("zstd decode: ... 1.234 s on 2 cores"), not its wall."""
    p = subprocess.run(["/usr/bin/time", "-v"] + argv, stdout=subprocess.PIPE if printed else subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {p.returncode}:\n{p.stderr[-3000:]}")
    m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", p.stderr)
    wall = int(m.group(1) or 0) * 3600 + int(m.group(2)) * 60 + float(m.group(3))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1)) / 1024
    cpu = sum(float(re.search(rf"{k} time \(seconds\): ([\d.]+)", p.stderr).group(1)) for k in ("User", "System"))
    if printed:
        wall = float(re.search(re.escape(printed) + r".*?([\d.]+) s on", p.stdout).group(1))
    return wall, rss, cpu


class Server:
    """zarrgw serve over the three arrays; its peak RSS is reset before a
    run (clear_refs 5) and read after it, so each run gets the server's own
    peak for that request."""

    def __init__(self, zarrgw, data, work):
        self.port = free_port()
        cfg = os.path.join(work, "serve.hcl")
        with open(cfg, "w") as f:
            for name, d in IMAGES.items():
                f.write(f'store "fs" "{name}" {{\n  root = "{os.path.join(data, d)}"\n}}\n')
                f.write(f'dataset "{name}" {{\n  store = store.fs.{name}\n}}\n')
        self.log = open(os.path.join(work, "serve.log"), "w")
        self.proc = subprocess.Popen([zarrgw, "serve", "-c", cfg, "--listen", f"127.0.0.1:{self.port}"],
                                     stdout=self.log, stderr=subprocess.STDOUT)
        for _ in range(400):
            try:
                urllib.request.urlopen(self.url("uncompressed") + "/zarr.json").read()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("zarrgw serve did not answer; see " + self.log.name)

    def url(self, image):
        return f"http://127.0.0.1:{self.port}/d/{image}"

    def reset_peak(self):
        with open(f"/proc/{self.proc.pid}/clear_refs", "w") as f:
            f.write("5")

    def peak_mib(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            return int(re.search(r"VmHWM:\s+(\d+) kB", f.read()).group(1)) / 1024

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def free_port():
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def implementations(args, server):
    """workload -> implementation -> function(image dir, out dir, image) -> argv, server-side or not."""
    here = os.path.dirname(os.path.abspath(__file__))
    peers = [args.python, os.path.join(here, "peers.py")]
    zt = lambda name: os.path.join(args.zarrs_tools, "bin", name)  # noqa: E731
    chain = lambda d: json.load(open(os.path.join(d, "zarr.json")))["codecs"]  # noqa: E731
    return {
        "read-all": {
            "zarrs": lambda d, o, i: ([zt("zarrs_benchmark_read_sync"), "--read-all", d], False),
            "tensorstore": lambda d, o, i: (peers + ["read-all", "tensorstore", d], False),
            "zarr-python 3": lambda d, o, i: (peers + ["read-all", "zarr", d], False),
            "zarr-python 3 + zarrs": lambda d, o, i: (peers + ["read-all", "zarrs", d], False),
            "zarrgw cat": lambda d, o, i: ([args.zarrgw, "cat", d, "--path", "/", "--format", "raw"], False),
            "zarrgw array API": lambda d, o, i: (["curl", "-sS", "--fail", "-o", "/dev/null",
                                                  server.url(i) + "?format=raw"], True),
        },
        "roundtrip": {
            "zarrs": lambda d, o, i: ([zt("zarrs_reencode"), d, o], False),
            "tensorstore": lambda d, o, i: (peers + ["roundtrip", "tensorstore", d, o], False),
            "zarr-python 3": lambda d, o, i: (peers + ["roundtrip", "zarr", d, o], False),
            "zarr-python 3 + zarrs": lambda d, o, i: (peers + ["roundtrip", "zarrs", d, o], False),
            # --codecs makes cp decode and encode every chunk (a byte copy
            # otherwise), with the chain the source has.
            "zarrgw cp": lambda d, o, i: ([args.zarrgw, "cp", "--fresh", "--codecs", json.dumps(chain(d)), d, o], False),
        },
        # What bounds the rest, apart from any Zarr implementation: the
        # codec alone on every core from memory, and durable writes at the
        # disk's pace (limits/main.go). Their seconds are the work's own.
        "limits": {
            "zstd decode, all cores, no I/O": lambda d, o, i: ([args.limits, "zstd", os.path.join(args.data, "zstd.zarr")], "zstd decode"),
            "zstd encode, all cores, no I/O": lambda d, o, i: ([args.limits, "zstd", os.path.join(args.data, "zstd.zarr")], "zstd encode"),
            "durable writes, 64 x 32 MiB": lambda d, o, i: ([args.limits, "durable", o, "64", "32"], "durable writes"),
        },
        "inner": {
            "zarrs": lambda d, o, i: ([zt("zarrs_benchmark_read_sync"), "--inner-chunks", "--concurrent-chunks", "8", d], False),
            "tensorstore": lambda d, o, i: (peers + ["inner", "tensorstore", d, "8"], False),
            "zarr-python 3": lambda d, o, i: (peers + ["inner", "zarr", d, "8"], False),
            "zarr-python 3 + zarrs": lambda d, o, i: (peers + ["inner", "zarrs", d, "8"], False),
            "zarrgw array API": lambda d, o, i: ([args.blocks, "-url", server.url(i), "-shape", "1024,1024,1024",
                                                  "-block", "64,64,64", "-itemsize", "2", "-concurrency", "8"], True),
        },
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--zarrgw", required=True)
    ap.add_argument("--blocks", required=True)
    ap.add_argument("--limits", required=True)
    ap.add_argument("--zarrs-tools", required=True)
    ap.add_argument("--python", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--cache", choices=["cold", "warm"], default="cold")
    ap.add_argument("--workloads", default="read-all,roundtrip,inner,limits")
    ap.add_argument("--only", default="", help="comma-separated implementations (default: all)")
    ap.add_argument("--json", help="write every measurement here")
    ap.add_argument("--want", required=True, help="the formula's SHA-256, which zarrgw cp's copies must read as")
    args = ap.parse_args()

    # SIGTERM ends the run through the finally below, which stops the server.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    server = Server(args.zarrgw, args.data, args.work)
    args.load_before = open("/proc/loadavg").read().split()[:3]
    results = {}
    try:
        impls = implementations(args, server)
        for workload in args.workloads.split(","):
            images = {"inner": ["sharded"], "limits": ["zstd"]}.get(workload, list(IMAGES))
            names = [n for n in impls[workload] if not args.only or n in args.only.split(",")]
            for image in images:
                src = os.path.join(args.data, IMAGES[image])
                for r in range(args.rounds):
                    order = names[r % len(names):] + names[:r % len(names)]
                    for name in order:
                        out = os.path.join(args.work, "out.zarr")
                        shutil.rmtree(out, ignore_errors=True)
                        argv, served = impls[workload][name](src, out, image)
                        if args.cache == "cold":
                            evict(src)
                        else:
                            warm(src)
                        if served is True:
                            server.reset_peak()
                        wall, rss, cpu = timed(argv, printed=served if isinstance(served, str) else None)
                        if served is True:
                            rss, cpu = server.peak_mib(), None  # the client's CPU is not the server's
                        results.setdefault((workload, image, name), []).append((wall, rss, cpu))
                        print(f"{workload:9} {image:12} {name:22} round {r}: {wall:7.2f} s {rss:8.0f} MiB",
                              file=sys.stderr, flush=True)
                        if r == 0 and name == "zarrgw cp":
                            check_copy(args, out)
                shutil.rmtree(os.path.join(args.work, "out.zarr"), ignore_errors=True)
    finally:
        server.stop()
    if args.json:
        with open(args.json, "w") as f:
            json.dump([{"workload": w, "image": i, "impl": n, "runs (wall s, peak RSS MiB, CPU s)": v} for (w, i, n), v in results.items()], f, indent=1)
    print_table(results, args)


def check_copy(args, out):
    """The copy zarrgw cp made reads as the formula, by zarrgw and by
    zarr-python 3 (checksum.py), or the run fails."""
    here = os.path.dirname(os.path.abspath(__file__))
    cat = subprocess.run(f"'{args.zarrgw}' cat '{out}' --path / --format raw | sha256sum", shell=True,
                         capture_output=True, text=True, check=True).stdout.split()[0]
    py = subprocess.run([args.python, os.path.join(here, "checksum.py"), out], capture_output=True, text=True,
                        check=True).stdout.strip()
    if cat != args.want or py != args.want:
        raise RuntimeError(f"zarrgw cp's copy {out} reads as {cat} (zarrgw) and {py} (zarr-python 3), "
                           f"the formula gives {args.want}")
    print(f"zarrgw cp's copy reads as the formula (zarrgw and zarr-python 3): {args.want}", file=sys.stderr)


def print_table(results, args):
    load = open("/proc/loadavg").read().split()[:3]
    print(f"\n{args.cache} page cache, {args.rounds} rounds; load average (1, 5, 15 min) "
          f"at the start {' '.join(args.load_before)}, at the end {' '.join(load)}\n")
    print("| workload | array | implementation | best s | median s | median CPU s | peak RSS MiB |")
    print("|---|---|---|---|---|---|---|")
    for (w, i, n), runs in results.items():
        walls = [x for x, _, _ in runs]
        cpus = [c for _, _, c in runs if c is not None]
        cpu = f"{statistics.median(cpus):.2f}" if cpus else "-"
        print(f"| {w} | {i} | {n} | {min(walls):.2f} | {statistics.median(walls):.2f} | {cpu} | {max(r for _, r, _ in runs):.0f} |")


if __name__ == "__main__":
    main()
