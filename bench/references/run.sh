#!/usr/bin/env bash
# Reading a NetCDF4 file's variables whole through a kerchunk reference
# set: `zarrgw cat` (the references store) against fsspec's
# ReferenceFileSystem under zarr-python 2 (Debian's), the way kerchunk's
# users read, on the same file and set (make.py: t2m, 24 chunks of 1 MiB
# float32 zlib+shuffle; tp, 1 536 chunks of int16 zlib), targets on the
# local filesystem, ROUNDS times; the best time of each, whole processes
# (start-up included). Both outputs are checked equal first.
# bench/RESULTS.md records the figures.
#   bash bench/references/run.sh
#   ROUNDS=3 bash bench/references/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds="${ROUNDS:-5}"
/usr/bin/python3 -c "import netCDF4, h5py, zarr, fsspec" || { echo "python3-netcdf4, python3-h5py, python3-zarr needed: run bash scripts/setup.sh" >&2; exit 1; }
. bench/lib.sh
bench_init

go build -o "$work/zarrgw" ./cmd/zarrgw
/usr/bin/python3 bench/references/make.py "$work"
cat > "$work/refs.hcl" <<'HCL'
store "references" "nc" {
  references = "./refs.json"
}

dataset "nc" {
  store     = store.references.nc
  read_only = true
}
HCL
cd "$work"
reader=$OLDPWD/bench/references/read_fsspec.py

for v in t2m tp; do
  a=$(./zarrgw cat -c refs.hcl nc --path "$v" --format raw | md5sum)
  b=$(/usr/bin/python3 -c "
import sys, hashlib, zarr
from fsspec.implementations.reference import ReferenceFileSystem
a = zarr.open_array(ReferenceFileSystem('refs.json', remote_protocol='file').get_mapper('$v'), mode='r')[...]
sys.stdout.write(hashlib.md5(a.astype(a.dtype.newbyteorder('<')).tobytes()).hexdigest() + '  -\n')")
  [ "$a" = "$b" ] || { echo "$v: zarrgw and fsspec disagree ($a, $b)" >&2; exit 1; }
done

seconds() {
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >/dev/null
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}

declare -A best
for _ in $(seq "$rounds"); do
  for v in t2m tp; do
    for tool in zarrgw fsspec; do
      case $tool in
        zarrgw) s=$(seconds ./zarrgw cat -c refs.hcl nc --path "$v" --format raw) ;;
        fsspec) s=$(seconds /usr/bin/python3 "$reader" refs.json "$v") ;;
      esac
      k="$v $tool"
      if [ -z "${best[$k]:-}" ] || awk -v s="$s" -v b="${best[$k]}" 'BEGIN { exit !(s < b) }'; then best[$k]=$s; fi
    done
  done
done
for v in t2m tp; do
  printf '%s: zarrgw cat %ss, fsspec+zarr-python %ss, ratio %s\n' "$v" "${best[$v zarrgw]}" "${best[$v fsspec]}" \
    "$(awk -v a="${best[$v zarrgw]}" -v b="${best[$v fsspec]}" 'BEGIN { printf "%.2f", a / b }')"
done
