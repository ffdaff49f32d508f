#!/usr/bin/env bash
# Compares the pure-Go blosc codec with numcodecs' C implementation
# (c-blosc 1.x), both single-threaded, on the same 1 MiB float32 chunk (a
# sine wave plus noise) and the same frames: numcodecs writes the input and
# its frames, the Go benchmarks decode those frames and encode that input.
# Prints MB/s for both sides and the Go/C ratios (best of COUNT rounds;
# other load on the machine lowers both sides, so run it on a quiet one).
#
# Needs Debian's python3-numcodecs:
#   apt-get update; apt-get install -y --no-install-recommends python3-numcodecs
set -euo pipefail

COUNT=${COUNT:-8}
PY=/usr/bin/python3
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! "$PY" -c 'import numcodecs.blosc' 2>/dev/null; then
	echo "numcodecs missing; install with: apt-get update; apt-get install -y --no-install-recommends python3-numcodecs" >&2
	exit 1
fi

echo "numcodecs (C) ..." >&2
"$PY" "$root/bench/blosc/cbench.py" "$tmp" "$COUNT" >"$tmp/c.txt"

echo "Go ..." >&2
(cd "$root" && BLOSC_BENCH_DIR="$tmp" go test ./plugins/codecs/blosc -run '^$' \
	-bench '^Benchmark(Decode|DecodeInto|Encode)$' -benchtime=0.3s -count="$COUNT") >"$tmp/go.txt"

"$PY" - "$tmp/c.txt" "$tmp/go.txt" <<'PYEOF'
import re, sys
c = {}
for line in open(sys.argv[1]):
    op, name, mbs = line.split()
    c[(op, name)] = float(mbs)
best = {}
for line in open(sys.argv[2]):
    m = re.match(r"Benchmark(Decode|DecodeInto|Encode)/(\w+)/(seq|par)-\d+\s+\d+\s+\d+ ns/op\s+([\d.]+) MB/s", line)
    if m:
        key = (m.group(1).lower(), m.group(2), m.group(3))
        best[key] = max(best.get(key, 0), float(m.group(4)))
# Single-threaded both sides. "decode" allocates a new output per call (C:
# decompress(frame); Go: DecodeBytes), "decodeinto" decodes into a reused
# buffer (C: decompress(frame, dest); Go: DecodeInto, which the array
# engine uses). "Go par" decodes the blocks of a frame on every core.
print("%-11s %-16s %8s %8s %6s %8s" % ("op", "case", "C MB/s", "Go MB/s", "Go/C", "Go par"))
for (op, name), cv in sorted(c.items()):
    g, gp = best.get((op, name, "seq"), 0), best.get((op, name, "par"), 0)
    par = ("%8.0f" % gp) if gp else ("%8s" % "-")
    print("%-11s %-16s %8.0f %8.0f %6.2f %s" % (op, name, cv, g, g / cv, par))
PYEOF
