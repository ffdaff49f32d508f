#!/usr/bin/env bash
# zarrgw cp in N = 1, 2 and 4 partitions run at once on this machine,
# fs -> versitygw (S3, posix backend, loopback): a SIZE_MIB array of
# 1 MiB chunks (uint8, bytes codec, random) copied byte for byte, and
# rewritten as sharded v3 (--chunks-per-shard 4: 4 MiB shards), each run
# into a bucket of its own. Every partition runs under /usr/bin/time for
# its peak resident memory. The time of a run is from the start of its
# partitions to the end of the last; the best of ROUNDS rounds is kept,
# with the peak memory of that round. "whole" is cp without --partition.
# bench/RESULTS.md records the figures.
#   bash bench/partition/run.sh
#   SIZE_MIB=256 ROUNDS=1 bash bench/partition/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
size_mib="${SIZE_MIB:-1024}"
rounds="${ROUNDS:-3}"

[ -x /usr/bin/time ] || { echo "/usr/bin/time missing (apt-get install time)" >&2; exit 1; }
. bench/lib.sh
versitygw_bin >/dev/null
bench_init

go build -o "$work/zarrgw" ./cmd/zarrgw
src="$work/src/a.zarr"
random_array "$src" "$size_mib"
start_versitygw
export XDG_CACHE_HOME="$work/cache" # the journals, gone with the run

# one MODE N: N partitions (0 for whole) into a fresh bucket at once;
# prints "seconds peak_kib_max peak_kib_mean"
n=0
one() {
  local mode=$1 parts=$2
  n=$((n + 1))
  local bucket="bench-part-$n"
  mkdir "$work/s3/$bucket"
  local extra=()
  [ "$mode" = rewrite ] && extra=(--chunks-per-shard 4)
  local t0 t1 running=()
  t0=$(date +%s.%N)
  if [ "$parts" -eq 0 ]; then
    /usr/bin/time -f %M -o "$work/rss.0" "$work/zarrgw" cp -q "${extra[@]}" "$src" "s3://$bucket/a.zarr" >/dev/null &
    running+=($!)
  else
    for i in $(seq 0 $((parts - 1))); do
      /usr/bin/time -f %M -o "$work/rss.$i" "$work/zarrgw" cp -q --partition "$i/$parts" "${extra[@]}" \
        "$src" "s3://$bucket/a.zarr" >/dev/null &
      running+=($!)
    done
  fi
  for p in "${running[@]}"; do wait "$p"; done
  t1=$(date +%s.%N)
  local want=$size_mib
  [ "$mode" = rewrite ] && want=$(( (size_mib + 3) / 4 ))
  local got
  got=$(find "$work/s3/$bucket" -type f -path '*/c/*' | wc -l)
  [ "$got" -eq "$want" ] || { echo "$mode, $parts partitions: $got of $want objects" >&2; exit 1; }
  rm -rf "${work:?}/s3/$bucket"
  local rss
  rss=$(cat "$work"/rss.* | awk '{ if ($1 > m) m = $1; s += $1; k++ } END { printf "%d %d", m, s / k }')
  rm -f "$work"/rss.*
  awk -v a="$t0" -v b="$t1" -v r="$rss" 'BEGIN { printf "%.3f %s", b - a, r }'
}

declare -A best rss
for r in $(seq "$rounds"); do
  for mode in copy rewrite; do
    for parts in 0 1 2 4; do
      read -r s m mean <<<"$(one $mode $parts)"
      key="$mode $parts"
      echo "round $r: $mode, $([ "$parts" -eq 0 ] && echo whole || echo "$parts partitions"): ${s}s" \
        "($(awk -v m="$size_mib" -v s="$s" 'BEGIN { printf "%.0f", m / s }') MiB/s), peak RSS per process max $((m / 1024)) MiB, mean $((mean / 1024)) MiB"
      if [ -z "${best[$key]:-}" ] || awk -v a="$s" -v b="${best[$key]}" 'BEGIN { exit !(a < b) }'; then
        best[$key]=$s
        rss[$key]="$((m / 1024)) MiB max, $((mean / 1024)) MiB mean"
      fi
    done
  done
done
echo
echo "| mode | partitions | best time | throughput | peak RSS per process |"
echo "|---|---|---|---|---|"
for mode in copy rewrite; do
  for parts in 0 1 2 4; do
    key="$mode $parts"
    echo "| $mode | $([ "$parts" -eq 0 ] && echo "whole (no --partition)" || echo "$parts") | ${best[$key]} s |" \
      "$(awk -v m="$size_mib" -v s="${best[$key]}" 'BEGIN { printf "%.0f", m / s }') MiB/s | ${rss[$key]} |"
  done
done
