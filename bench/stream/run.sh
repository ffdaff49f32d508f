#!/usr/bin/env bash
# Cold reads, each in a fresh process: `zarrgw cat --format npy` of a
# 256 MiB uint16 array to /dev/null, and Array.Read of it into memory,
# against python3-zarr 2.13's first `a[...]` of the same array (written
# by python3-zarr), uncompressed and zstd level 1, and for zstd the decode
# limit: klauspost/compress decoding the same chunks, already in memory,
# on every core (bench/stream/decodelimit), in the same run.
# bench/RESULTS.md records the figures.
#   bash bench/stream/run.sh
#   ROUNDS=10 ZARRGW_BENCH_DIR=/var/tmp bash bench/stream/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds="${ROUNDS:-7}"
data="${ZARRGW_BENCH_DIR:-${TMPDIR:-/tmp}}/zarrgw-stream-bench"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
mkdir -p "$data"
/usr/bin/python3 bench/stream/make_arrays.py "$data"
go build -o "$bin/zarrgw" ./cmd/zarrgw
go build -o "$bin/coldread" ./bench/stream/coldread
go build -o "$bin/decodelimit" ./bench/stream/decodelimit
cat /proc/loadavg
/usr/bin/python3 bench/stream/compare.py "$bin/zarrgw" "$bin/coldread" "$bin/decodelimit" "$data" "$rounds"
cat /proc/loadavg
