#!/usr/bin/env bash
# Gateway load on loopback, bounded in time: wrk GETs random 4 KiB values
# through `zarrgw serve` (key API), through nginx serving the same
# directory, and through Go's bare net/http FileServer (what any Go server
# pays here), same connections, threads and duration; then the gateway's
# peak RSS while it streams a 4 GiB array slice to a client.
# Installs Debian's nginx and wrk when missing. bench/RESULTS.md records
# the figures.
#   bash bench/gateway/run.sh
#   DURATION=20s CONNECTIONS=64 ROUNDS=3 bash bench/gateway/run.sh
#   SLICE=0 bash bench/gateway/run.sh   # without the 4 GiB slice
set -euo pipefail
cd "$(dirname "$0")/../.."
duration="${DURATION:-10s}"
conns="${CONNECTIONS:-32}"
rounds="${ROUNDS:-3}"
keys=1000

need=()
command -v wrk >/dev/null || need+=(wrk)
[ -x /usr/sbin/nginx ] || need+=(nginx)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

work=$(mktemp -d)
chmod 755 "$work" # nginx workers run as another user
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_http() { for _ in $(seq 100); do curl -sf -o /dev/null "$1" && return 0; sleep 0.1; done; echo "no answer from $1" >&2; exit 1; }

go build -o "$work/zarrgw" ./cmd/zarrgw
mkdir -p "$work/data/small"; chmod 755 "$work/data" "$work/data/small"
/usr/bin/python3 -c "
import os, sys
for i in range($keys):
    with open(os.path.join(sys.argv[1], 'k%d' % i), 'wb') as f:
        f.write(os.urandom(4096))
" "$work/data/small"

gw_port=$(free_port)
cat > "$work/zarrgw.hcl" <<HCL
store "fs" "bench" {
  root = "$work/data"
}
dataset "small" {
  store     = store.fs.bench
  prefix    = "small"
  read_only = true
}
dataset "big" {
  store  = store.fs.bench
  prefix = "big"
  access {
    read  = ["*"]
    write = ["*"]
  }
}
HCL
"$work/zarrgw" serve -c "$work/zarrgw.hcl" --listen "127.0.0.1:$gw_port" 2>"$work/gateway.log" &
gw_pid=$!; pids+=("$gw_pid")

ng_port=$(free_port)
mkdir -p "$work/nginx"
cat > "$work/nginx/nginx.conf" <<NGINX
worker_processes auto;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 1024; }
http {
  access_log $work/nginx/access.log;
  sendfile on;
  keepalive_requests 100000;
  server {
    listen 127.0.0.1:$ng_port;
    root $work/data;
  }
}
NGINX
/usr/sbin/nginx -c "$work/nginx/nginx.conf" -g 'daemon off;' &
pids+=("$!")
go build -o "$work/gofileserver" ./bench/gateway/gofileserver
go_port=$(free_port)
"$work/gofileserver" "127.0.0.1:$go_port" "$work/data" &
pids+=("$!")
wait_http "http://127.0.0.1:$gw_port/d/small/k0"
wait_http "http://127.0.0.1:$go_port/small/k0"
wait_http "http://127.0.0.1:$ng_port/small/k0"

# wrk_once NAME URL PREFIX: one round; keeps NAME's best requests/s and
# its p99. The rounds take the servers in turn, so that load from
# elsewhere on the machine falls on all of them alike.
wrk_once() {
  local out rps best
  out=$(BENCH_KEYS=$keys BENCH_PREFIX="$3" wrk -t2 -c"$conns" -d"$duration" --latency -s bench/gateway/random.lua "$2")
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  echo "  round $r: $1 $rps requests/s, p99 $(awk '$1 == "99%" {print $2}' <<<"$out")"
  best=$(eval "echo \${${1}_rps:-0}")
  if awk -v a="$rps" -v b="$best" 'BEGIN {exit !(a > b)}'; then
    eval "${1}_rps=$rps; ${1}_p99=$(awk '$1 == "99%" {print $2}' <<<"$out")"
  fi
}
for r in $(seq "$rounds"); do
  wrk_once nginx "http://127.0.0.1:$ng_port" /small/
  wrk_once gofileserver "http://127.0.0.1:$go_port" /small/
  wrk_once zarrgw "http://127.0.0.1:$gw_port" /d/small/
done
for n in nginx gofileserver zarrgw; do
  eval "echo \"$n: \${${n}_rps} requests/s, p99 \${${n}_p99} (best of $rounds rounds of $duration, $conns connections, 2 threads)\""
done
awk -v a="$zarrgw_rps" -v b="$nginx_rps" -v g="$gofileserver_rps" 'BEGIN {
  printf "zarrgw / nginx = %.2f (target >= 0.5); net/http FileServer / nginx = %.2f; zarrgw / FileServer = %.2f (target >= 1.0)\n", a / b, g / b, a / g }'

[ "${SLICE:-1}" = 1 ] || exit 0 # SLICE=0: the small GETs only

# 4 GiB slice streamed to a client: the gateway's peak RSS.
curl -sf -X PUT --data-binary '{"zarr_format":3,"node_type":"array","shape":[65536,65536],"data_type":"uint8",
  "chunk_grid":{"name":"regular","configuration":{"chunk_shape":[1024,1024]}},"chunk_key_encoding":{"name":"default"},
  "fill_value":7,"codecs":[{"name":"bytes"}],"attributes":{}}' "http://127.0.0.1:$gw_port/d/big/a/zarr.json"
before=$(awk '/VmHWM/ {print $2}' "/proc/$gw_pid/status")
start=$(date +%s.%N)
got=$(curl -sf "http://127.0.0.1:$gw_port/d/big/a?format=raw" | wc -c)
end=$(date +%s.%N)
peak=$(awk '/VmHWM/ {print $2}' "/proc/$gw_pid/status")
awk -v n="$got" -v s="$start" -v e="$end" -v b="$before" -v p="$peak" 'BEGIN {
  printf "4 GiB slice: %.0f bytes in %.1f s (%.0f MB/s); gateway peak RSS %.0f MiB (%.0f MiB before; target < 256)\n", n, e - s, n / (e - s) / 1e6, p / 1024, b / 1024 }'
