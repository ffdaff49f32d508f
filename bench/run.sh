#!/usr/bin/env bash
# Runs the whole-array benchmarks and prints the ratios the issues set
# targets for. Results go to stdout; bench/RESULTS.md records them.
# Each figure is the best of COUNT rounds, for zarrgw and python3-zarr
# alike: on a shared machine other load only ever slows a round down.
#   bash bench/run.sh
#   BENCHTIME=3x COUNT=3 bash bench/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
benchtime="${BENCHTIME:-5x}"
count="${COUNT:-5}"
export ZARRGW_BENCH_DIR="${ZARRGW_BENCH_DIR:-${TMPDIR:-/tmp}}"
out=$(mktemp)
go test -run '^$' -bench . -benchtime "$benchtime" -count "$count" ./bench/array/ | tee "$out"

# mbs NAME: the best MB/s of benchmark NAME.
mbs() { awk -v n="Benchmark$1" '$1 ~ "^"n"(-[0-9]+)?$" {for (i=1;i<=NF;i++) if ($(i+1)=="MB/s" && $i > best) best = $i} END {print best}' "$out"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

echo
for v in Raw Zstd; do
  r=$(mbs ReadAll$v); c=$(mbs CodecOnly$v); w=$(mbs WriteAll$v)
  echo "$v: read-all $r MB/s, codec-only $c MB/s, write-all $w MB/s; read-all / codec-only = $(ratio "$r" "$c") (target >= 0.9)"
done
if /usr/bin/python3 -c 'import zarr' 2>/dev/null; then
  for v in raw zstd; do
    p=$(/usr/bin/python3 bench/array/read_zarr_python.py "$ZARRGW_BENCH_DIR/zarrgw-bench-$v.zarr" "$count")
    V=$( [ $v = raw ] && echo Raw || echo Zstd )
    r=$(mbs ReadAll$V)
    echo "$V: python3-zarr $(/usr/bin/python3 -c 'import zarr; print(zarr.__version__)') read-all $p MB/s; zarrgw / python = $(ratio "$r" "$p") (target >= 3)"
  done
else
  echo "python3-zarr missing: run bash scripts/setup.sh"
fi
rm -f "$out"
