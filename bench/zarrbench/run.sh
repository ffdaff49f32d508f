#!/usr/bin/env bash
# zarr_benchmarks' workloads, every implementation side by side on this
# machine: bench/zarrbench/README.md says what and how.
#
#   bench/zarrbench/run.sh make    the arrays only (and their check)
#   bench/zarrbench/run.sh [--rounds N] [--cache cold|warm] [--workloads read-all,roundtrip,inner] [--only IMPL,...]
#
# Data: $ZARRBENCH_DATA (default /var/tmp/zarrgw-zarrbench), made once.
set -euo pipefail
cd "$(dirname "$0")/../.."
. bench/lib.sh
bench_init

data=${ZARRBENCH_DATA:-/var/tmp/zarrgw-zarrbench}
zarrs_tools_version=0.8.1
zarrs_tools=${XDG_CACHE_HOME:-$HOME/.cache}/zarrgw/zarrs_tools-$zarrs_tools_version
lock=scripts/python/requirements.txt
lockhash=$(sha256sum "$lock" | cut -d' ' -f1)
py=${XDG_CACHE_HOME:-$HOME/.cache}/zarrgw/pyenv-${lockhash:0:16}/bin/python
[ -x "$py" ] || { echo "the Python environment is missing: run bash scripts/setup.sh" >&2; exit 1; }

go build -o "$work/zarrgw" ./cmd/zarrgw
go build -o "$work/blocks" ./bench/zarrbench/blocks
go build -o "$work/limits" ./bench/zarrbench/limits

zstd='{"name":"zstd","configuration":{"level":0,"checksum":false}}'
bytes='{"name":"bytes","configuration":{"endian":"little"}}'
declare -A codecs=(
  [raw]="[$bytes]"
  [zstd]="[$bytes,$zstd]"
  [shard]="[{\"name\":\"sharding_indexed\",\"configuration\":{\"chunk_shape\":[64,64,64],\"codecs\":[$bytes,$zstd],\"index_codecs\":[$bytes,{\"name\":\"crc32c\"}],\"index_location\":\"end\"}}]"
)

# The three arrays, written once by zarrgw from the formula, then checked:
# zarrgw cat and zarr-python 3 (alone and with the zarrs pipeline) must give
# back the formula's bytes, by SHA-256.
want=$("$py" bench/zarrbench/formula.py sha256)
for name in raw zstd shard; do
  dir=$data/$name.zarr
  [ -f "$data/$name.checked" ] && continue
  if [ ! -f "$data/$name.written" ]; then
    echo "zarrbench: writing $dir" >&2
    rm -rf "$dir"
    "$work/zarrgw" create "$dir" --path / --shape 1024,1024,1024 --chunks 256,256,256 --dtype uint16 --codecs "${codecs[$name]}" >&2
    "$py" bench/zarrbench/formula.py raw | "$work/zarrgw" write "$dir" --path / --format raw --memory 256MiB >&2
    touch "$data/$name.written"
  fi
  for reader in zarrgw zarr-python zarr-python+zarrs; do
    case $reader in
      zarrgw) got=$("$work/zarrgw" cat "$dir" --path / --format raw | sha256sum | cut -d' ' -f1) ;;
      zarr-python) got=$("$py" bench/zarrbench/checksum.py "$dir") ;;
      zarr-python+zarrs) got=$("$py" bench/zarrbench/checksum.py "$dir" --zarrs) ;;
    esac
    [ "$got" = "$want" ] || { echo "zarrbench: $reader reads $dir as $got, the formula gives $want" >&2; exit 1; }
    echo "zarrbench: $reader reads $dir as the formula: $want" >&2
  done
  touch "$data/$name.checked"
done
[ "${1:-}" = make ] && exit 0

# zarrs' own benchmark binaries, from crates.io, pinned and locked.
if [ ! -x "$zarrs_tools/bin/zarrs_benchmark_read_sync" ] || [ ! -x "$zarrs_tools/bin/zarrs_reencode" ]; then
  echo "zarrbench: installing zarrs_tools $zarrs_tools_version (cargo, several minutes)" >&2
  cargo install --locked "zarrs_tools@$zarrs_tools_version" --features benchmark --root "$zarrs_tools"
fi


echo "zarrbench: load average before the runs: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
/usr/bin/python3 bench/zarrbench/run.py --data "$data" --work "$work" --zarrgw "$work/zarrgw" \
  --blocks "$work/blocks" --limits "$work/limits" --zarrs-tools "$zarrs_tools" --python "$py" --want "$want" "$@"
