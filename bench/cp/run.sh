#!/usr/bin/env bash
# zarrgw cp against rclone copy, in one run on the same data: a 1 GiB
# array of 1 MiB chunks (uint8, bytes codec) copied from the filesystem
# into versitygw (S3, posix backend, on loopback), each tool into a bucket
# of its own, ROUNDS times; the best time of each. rclone runs with its
# defaults (--transfers 4) and with --transfers 16, zarrgw cp with its
# default jobs (64 into the cloud). bench/RESULTS.md records the figures.
#   bash bench/cp/run.sh
#   SIZE_MIB=256 ROUNDS=1 bash bench/cp/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
size_mib="${SIZE_MIB:-1024}"
rounds="${ROUNDS:-3}"

[ -x /usr/bin/rclone ] || { echo "rclone missing: run bash scripts/setup.sh" >&2; exit 1; }
. bench/lib.sh
versitygw_bin >/dev/null
bench_init

go build -o "$work/zarrgw" ./cmd/zarrgw
src="$work/src/a.zarr"
random_array "$src" "$size_mib"
start_versitygw
port=$s3_port

cat > "$work/rclone.conf" <<CONF
[vgw]
type = s3
provider = Other
endpoint = http://127.0.0.1:$port
access_key_id = $AWS_ACCESS_KEY_ID
secret_access_key = $AWS_SECRET_ACCESS_KEY
region = us-east-1
CONF

# seconds TOOL BUCKET: one copy into a fresh bucket, timed
n=0
run() {
  n=$((n + 1))
  local bucket="bench-cp-$n"
  mkdir "$work/s3/$bucket"
  local t0 t1
  t0=$(date +%s.%N)
  case "$1" in
    zarrgw) "$work/zarrgw" cp -q "$src" "s3://$bucket/a.zarr" >/dev/null ;;
    rclone) /usr/bin/rclone --config "$work/rclone.conf" copy "$src" "vgw:$bucket/a.zarr" ;;
    rclone16) /usr/bin/rclone --config "$work/rclone.conf" copy --transfers 16 "$src" "vgw:$bucket/a.zarr" ;;
  esac
  t1=$(date +%s.%N)
  local got
  got=$(find "$work/s3/$bucket" -type f -path '*/c/*' | wc -l)
  [ "$got" -eq "$size_mib" ] || { echo "$1 copied $got of $size_mib chunks" >&2; exit 1; }
  rm -rf "${work:?}/s3/$bucket"
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}

declare -A best
for r in $(seq "$rounds"); do
  for tool in zarrgw rclone rclone16; do
    s=$(run $tool)
    echo "round $r: $tool ${s}s ($(awk -v m="$size_mib" -v s="$s" 'BEGIN { printf "%.0f", m / s }') MiB/s)"
    if [ -z "${best[$tool]:-}" ] || awk -v a="$s" -v b="${best[$tool]}" 'BEGIN { exit !(a < b) }'; then best[$tool]=$s; fi
  done
done
echo
for tool in zarrgw rclone rclone16; do
  echo "$tool: best ${best[$tool]}s, $(awk -v m="$size_mib" -v s="${best[$tool]}" 'BEGIN { printf "%.0f", m / s }') MiB/s"
done
awk -v z="${best[zarrgw]}" -v r="${best[rclone]}" -v r16="${best[rclone16]}" \
  'BEGIN { printf "zarrgw cp / rclone copy throughput: %.2f (defaults), %.2f (rclone --transfers 16); target >= 1\n", r / z, r16 / z }'
