#!/usr/bin/env bash
# The cache transformer (issue #27) in front of distant storage: an array
# of 256 chunks (a 16 x 16 grid of 64 x 64 float32, 16 KiB each) on S3
# (versitygw, posix backend) behind a proxy that adds LATENCY to every
# answer (toxiproxy's latency toxic, bench/cache/cachebench proxy), read
# through `zarrgw serve`'s key API by 4 client threads:
#   - through transformer "cache" { memory = "256MiB" }: a first pass (the
#     gateway just started, nothing kept) and a second pass;
#   - the same dataset without the cache (every GET a store GET);
#   - the same gateway over a local directory (fs store) holding the same
#     array (after one pass to warm the page cache);
# each the best of ROUNDS rounds, a fresh gateway per round. Then the same
# with zarrita.js (tests/interop/js's, FetchStore, 4 chunk requests at a
# time; zarr.open, which looks for v2 metadata first, and zarr.open.v3) if
# node and its node_modules are there. Then a Zipf-skewed read
# mix (s = 1.1, 16 client threads) over 2000 values of 32 KiB (62.5 MiB)
# with a memory tier of 10% of that: client requests and store GETs per
# second (the gateway's zarrgw_store_call_duration_seconds count),
# against the same mix without the cache. bench/RESULTS.md records the
# figures.
#   bash bench/cache/run.sh
#   ROUNDS=3 LATENCY=50ms ZIPF_SECONDS=15 bash bench/cache/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
rounds="${ROUNDS:-5}"
latency="${LATENCY:-50ms}"
zipf_seconds="${ZIPF_SECONDS:-15}"

. bench/lib.sh
versitygw_bin >/dev/null
bench_init

go build -o "$work/zarrgw" ./cmd/zarrgw
go build -o "$work/cachebench" ./bench/cache/cachebench
zarrgw="$work/zarrgw"
cb="$work/cachebench"

# S3, and the latency proxy in front of it
start_versitygw
unset AWS_ENDPOINT_URL # each command here names its endpoint: S3 itself, or the latency proxy
mkdir -p "$work/s3/bench"
proxy_port=$(free_port)
"$cb" proxy -listen "127.0.0.1:$proxy_port" -upstream "127.0.0.1:$s3_port" -latency "$latency" >"$work/proxy.log" 2>&1 &
pids+=($!)

# the arrays, on local disk and copied to S3
mkdir -p "$work/data"
"$zarrgw" create "$work/data" --path a --shape 1024,1024 --chunks 64,64 --dtype float32 --codecs '[{"name":"bytes","configuration":{"endian":"little"}}]' >/dev/null
head -c $((1024 * 1024 * 4)) /dev/urandom | "$zarrgw" write "$work/data" --path a --format raw
"$zarrgw" create "$work/data" --path z --shape $((2000 * 8192)) --chunks 8192 --dtype float32 --codecs '[{"name":"bytes","configuration":{"endian":"little"}}]' >/dev/null
head -c $((2000 * 8192 * 4)) /dev/urandom | "$zarrgw" write "$work/data" --path z --format raw
AWS_ENDPOINT_URL="http://127.0.0.1:$s3_port" "$zarrgw" cp "$work/data" s3://bench/ >/dev/null

gw_port=$(free_port)
gw="http://127.0.0.1:$gw_port"
cat >"$work/zarrgw.hcl" <<HCL
store "fs" "local" {
  root = "$work/data"
}
store "s3" "slow" {
  bucket   = "bench"
  endpoint = "http://127.0.0.1:$proxy_port"
}
dataset "s3cache" {
  store = store.s3.slow
  transformer "cache" {
    memory = "256MiB"
  }
}
dataset "s3" {
  store = store.s3.slow
}
dataset "local" {
  store = store.fs.local
}
dataset "zipfcache" {
  store = store.s3.slow
  transformer "cache" {
    memory = "6400KiB" # 10% of the 2000 values of 32 KiB
  }
}
dataset "zipf" {
  store = store.s3.slow
}
HCL
gw_pid=""
start_gateway() {
  "$zarrgw" serve -c "$work/zarrgw.hcl" --listen "127.0.0.1:$gw_port" 2>>"$work/gateway.log" &
  gw_pid=$!
  wait_http "$gw/d/local/a/zarr.json"
}
stop_gateway() { kill "$gw_pid"; wait "$gw_pid" 2>/dev/null || true; }
# min A B: the smaller number
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a < b) ? a : b }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
read_pass() { "$cb" read -base "$gw/d/$1" -prefix a/c -grid 16,16 -threads 4 -size 16384 | awk '{print $1}'; }

echo "256 chunks of 16 KiB through the key API, 4 client threads, $latency per store request; best of $rounds rounds:"
first="" second="" nocache="" local=""
for _ in $(seq "$rounds"); do
  start_gateway
  f=$(read_pass s3cache); s=$(read_pass s3cache)
  n=$(read_pass s3)
  read_pass local >/dev/null; l=$(read_pass local)
  stop_gateway
  echo "  round: first $f s, second $s s, no cache $n s, local disk $l s"
  first=$(min "$f" "$first"); second=$(min "$s" "$second"); nocache=$(min "$n" "$nocache"); local=$(min "$l" "$local")
done
echo "cache, first pass:  $first s"
echo "cache, second pass: $second s   first / second = $(ratio "$first" "$second") (target >= 10)"
echo "no cache:           $nocache s"
echo "local disk (fs):    $local s   second-pass speed / local-disk speed = $(ratio "$local" "$second") (target >= 0.8)"

js="$repo/tests/interop/js"
if command -v node >/dev/null && [ -d "$js/node_modules/zarrita" ]; then
  mkdir -p "$work/js"
  cp bench/cache/zarrita_read.mjs "$work/js/"
  ln -s "$js/node_modules" "$work/js/node_modules"
  echo
  for mode in auto v3; do
    echo "zarrita.js $(node -p "require('$js/node_modules/zarrita/package.json').version") reading the array (FetchStore, 4 chunk requests at a time, zarr.open$([ $mode = v3 ] && echo .v3)); best of $rounds rounds:"
    first="" second="" local=""
    for _ in $(seq "$rounds"); do
      start_gateway
      # local disk first (warming node and the page cache), then the
      # cache's first and second reads, then local disk again, which is
      # compared
      out=$(node "$work/js/zarrita_read.mjs" a 4 $mode "$gw/d/local" "$gw/d/s3cache" "$gw/d/s3cache" "$gw/d/local")
      stop_gateway
      f=$(awk 'NR == 2 {print $2}' <<<"$out"); s=$(awk 'NR == 3 {print $2}' <<<"$out"); l=$(awk 'NR == 4 {print $2}' <<<"$out")
      echo "  round: first $f s, second $s s, local disk $l s"
      first=$(min "$f" "$first"); second=$(min "$s" "$second"); local=$(min "$l" "$local")
    done
    echo "zarrita.js ($mode), cache, first read:  $first s"
    echo "zarrita.js ($mode), cache, second read: $second s   first / second = $(ratio "$first" "$second")"
    echo "zarrita.js ($mode), local disk:         $local s   second-read speed / local-disk speed = $(ratio "$local" "$second")"
  done
else
  echo "zarrita.js: node or tests/interop/js/node_modules missing (npm ci in tests/interop/js): skipped"
fi

echo
echo "Zipf mix (s = 1.1) over 2000 values of 32 KiB, 16 client threads, ${zipf_seconds}s measured:"
start_gateway
echo -n "with a cache of 10% (after 5 s of the same mix): "
"$cb" zipf -base "$gw/d/zipfcache" -prefix z/c -n 2000 -s 1.1 -threads 16 -size 32768 \
  -warmup 5s -duration "${zipf_seconds}s" -metrics "$gw/metrics" -store store.s3.slow
echo -n "without a cache:                                  "
"$cb" zipf -base "$gw/d/zipf" -prefix z/c -n 2000 -s 1.1 -threads 16 -size 32768 \
  -warmup 0s -duration "${zipf_seconds}s" -metrics "$gw/metrics" -store store.s3.slow
stop_gateway
