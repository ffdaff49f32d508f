#!/usr/bin/env bash
# The S3 API on loopback, bounded in time: small-object GETs (1000 values
# of 4 KiB, CONNECTIONS at once, DURATION a round) and 64 MiB GETs and PUTs
# through zarrgw's S3 listener signed in the Authorization header (as SDKs
# and CLIs sign) and presigned, through versitygw (posix backend) serving
# the same directory in both forms, through the gateway's own key API, and
# through the S3 listener unsigned (anonymous, the bucket being open: the
# S3 path without SigV4), with one client (bench/s3/main.go: one Go HTTP
# client, every request signed before the clock starts; and the SDK's
# PutObject), ROUNDS rounds in rotating order, the best of each kept.
# Prints the best of each (req/s, MB/s) and the ratios; bench/RESULTS.md
# records them. WHAT narrows what is measured.
#   bash bench/s3/run.sh
#   DURATION=5s CONNECTIONS=64 ROUNDS=5 bash bench/s3/run.sh
#   WHAT=small-get ROUNDS=3 bash bench/s3/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
duration="${DURATION:-10s}"
conns="${CONNECTIONS:-32}"
rounds="${ROUNDS:-5}"

gobin="$(go env GOPATH | cut -d: -f1)/bin"
versitygw="${VERSITYGW:-$gobin/versitygw}"
[ -x "$versitygw" ] || { echo "versitygw missing: run bash scripts/setup.sh" >&2; exit 1; }

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done; echo "nothing listens on $1" >&2; exit 1; }

go build -o "$work/zarrgw" ./cmd/zarrgw
go build -o "$work/s3bench" ./bench/s3

# the bucket "bench": a directory both servers serve
mkdir -p "$work/data/bench/small" "$work/data/bench/big"
/usr/bin/python3 -c "
import os, sys
for i in range(1000):
    with open(os.path.join(sys.argv[1], 'small', 'k%d' % i), 'wb') as f:
        f.write(os.urandom(4096))
with open(os.path.join(sys.argv[1], 'big', 'obj'), 'wb') as f:
    f.write(os.urandom(64 << 20))
" "$work/data/bench"

key_id=BENCHKEYID
secret=$(head -c 20 /dev/urandom | od -An -tx1 | tr -d ' \n')
gw_port=$(free_port); gw_s3_port=$(free_port); vgw_port=$(free_port)
cat > "$work/zarrgw.hcl" <<HCL
variable "secret" {
  env = "BENCH_S3_SECRET"
}
store "fs" "bench" {
  root = "$work/data"
}
principal "bench" {
  s3_access_key_id     = "$key_id"
  s3_secret_access_key = var.secret
}
dataset "bench" {
  store  = store.fs.bench
  prefix = "bench"
  access {
    read  = ["*"]
    write = ["*"]
  }
}
server {
  listen           = "127.0.0.1:$gw_port"
  max_request_size = "128MiB"
  s3 {
    listen          = "127.0.0.1:$gw_s3_port"
    region          = "us-east-1"
    max_object_size = "128MiB"
  }
}
HCL
BENCH_S3_SECRET="$secret" "$work/zarrgw" serve -c "$work/zarrgw.hcl" 2>"$work/gateway.log" &
pids+=("$!")
ROOT_ACCESS_KEY_ID="$key_id" ROOT_SECRET_ACCESS_KEY="$secret" "$versitygw" --port "127.0.0.1:$vgw_port" \
  --region us-east-1 --quiet posix "$work/data" >"$work/versitygw.log" 2>&1 &
pids+=("$!")
wait_port "$gw_s3_port"; wait_port "$gw_port"; wait_port "$vgw_port"

echo "zarrgw $(git rev-parse --short HEAD), versitygw $("$versitygw" --version 2>/dev/null | head -1 || true)"
echo "small GETs: 1000 x 4 KiB, $conns connections, $duration a round; big: 64 MiB x 4 a round; best of $rounds rounds; load: $(cut -d' ' -f1-3 /proc/loadavg)"
gw_s3="http://127.0.0.1:$gw_s3_port"; vgw="http://127.0.0.1:$vgw_port"
targets="zarrgw-header=s3h:$gw_s3,zarrgw-presigned=s3:$gw_s3,zarrgw-unsigned=anon:$gw_s3/bench/,key-api=keys:http://127.0.0.1:$gw_port/d/bench/"
targets="$targets,versitygw-header=s3h:$vgw,versitygw-presigned=s3:$vgw"
ratios="zarrgw-header/key-api,zarrgw-presigned/key-api,zarrgw-unsigned/key-api"
ratios="$ratios,zarrgw-header/zarrgw-unsigned,zarrgw-presigned/zarrgw-unsigned"
ratios="$ratios,zarrgw-header/versitygw-header,zarrgw-presigned/versitygw-presigned"
"$work/s3bench" -targets "$targets" -ratios "$ratios" -what "${WHAT:-small-get,big-get,big-put,big-put-sdk}" \
  -key-id "$key_id" -secret "$secret" -conns "$conns" -duration "$duration" -rounds "$rounds" -big-n 4
