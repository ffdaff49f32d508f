# What the bench scripts share; source it after `cd` to the repository's
# top: . bench/lib.sh
#
# bench_init makes $work (removed at exit, with every PID in pids killed);
# free_port prints a free loopback port; wait_http URL waits for an
# answer; versitygw_bin prints versitygw's path (or exits saying how to
# install it); start_versitygw starts it on a free port over $work/s3 and
# exports the AWS_* variables of its bucket-less account, $s3_port and
# AWS_ENDPOINT_URL; random_array DIR SIZE_MIB writes a v3 uint8 array of
# SIZE_MIB random 1 MiB chunks (bytes codec) at DIR.

bench_init() {
  work=$(mktemp -d)
  pids=()
  trap bench_cleanup EXIT
}

bench_cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}

free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

wait_http() {
  for _ in $(seq 200); do curl -s -o /dev/null "$1" && return 0; sleep 0.05; done
  echo "no answer from $1" >&2
  exit 1
}

versitygw_bin() {
  local vgw
  vgw=$(command -v versitygw || echo "$(go env GOPATH | cut -d: -f1)/bin/versitygw")
  [ -x "$vgw" ] || { echo "versitygw missing: run bash scripts/setup.sh" >&2; exit 1; }
  echo "$vgw"
}

start_versitygw() {
  local vgw
  vgw=$(versitygw_bin)
  s3_port=$(free_port)
  mkdir -p "$work/s3"
  export AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench-secret-key AWS_REGION=us-east-1
  ROOT_ACCESS_KEY_ID=$AWS_ACCESS_KEY_ID ROOT_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY \
    "$vgw" --port "127.0.0.1:$s3_port" --region us-east-1 --quiet posix "$work/s3" >"$work/versitygw.log" 2>&1 &
  pids+=($!)
  wait_http "http://127.0.0.1:$s3_port/"
  export AWS_ENDPOINT_URL="http://127.0.0.1:$s3_port"
  unset AWS_CA_BUNDLE # versitygw's clients refuse custom root CAs while it is set
}

random_array() {
  local dir=$1 size_mib=$2
  mkdir -p "$dir/c"
  cat > "$dir/zarr.json" <<JSON
{"zarr_format":3,"node_type":"array","shape":[$((size_mib << 20))],"data_type":"uint8",
 "chunk_grid":{"name":"regular","configuration":{"chunk_shape":[1048576]}},
 "chunk_key_encoding":{"name":"default","configuration":{"separator":"/"}},
 "fill_value":0,"codecs":[{"name":"bytes"}],"attributes":{}}
JSON
  head -c $((size_mib << 20)) /dev/urandom | split -b 1048576 -a 5 -d - "$dir/c/x"
  local i=0 f
  for f in "$dir"/c/x*; do mv "$f" "$dir/c/$i"; i=$((i + 1)); done
}
