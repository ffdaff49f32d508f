#!/usr/bin/env bash
# Reading a NetCDF4 file's variables whole through a kerchunk reference
# set: `zarrgw cat` (the references store) against fsspec's
# ReferenceFileSystem under zarr-python 2 (Debian's), the way kerchunk's
# users read, on the same file and set (make.py: t2m, 24 chunks of 1 MiB
# float32 zlib+shuffle; tp, 1 536 chunks of int16 zlib), targets on the
# local filesystem and on a web server (Debian's nginx on loopback, the
# set's URLs http://), ROUNDS times; the best time of each, whole
# processes (start-up included). Both outputs are checked equal first.
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

# nginx serving $work, for the http:// form of the set
port=$(free_port)
mkdir -p "$work/nginx"
cat > "$work/nginx/nginx.conf" <<CONF
user root;
worker_processes 1;
pid $work/nginx/nginx.pid;
error_log stderr error;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path $work/nginx; proxy_temp_path $work/nginx; fastcgi_temp_path $work/nginx;
  uwsgi_temp_path $work/nginx; scgi_temp_path $work/nginx;
  server { listen 127.0.0.1:$port; root $work; }
}
CONF
/usr/sbin/nginx -e stderr -p "$work/nginx/" -c "$work/nginx/nginx.conf" -g "daemon off;" &
pids+=($!)
wait_http "http://127.0.0.1:$port/refs.json"
/usr/bin/python3 -c "
import json, sys
refs = json.load(open('$work/refs.json'))
for k, v in refs.items():
    if isinstance(v, list):
        v[0] = 'http://127.0.0.1:$port/' + v[0]
json.dump(refs, open('$work/refs-http.json', 'w'))"
# the set is local and its targets on the web server: allowed by name
sed -e 's/refs.json/refs-http.json/' -e "s|^  references = .*|&\n  allow_targets = [\"http://127.0.0.1:$port/\"]|" "$work/refs.hcl" > "$work/refs-http.hcl"

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
  for where in file http; do
    set=refs.json
    [ $where = http ] && set=refs-http.json
    for v in t2m tp; do
      for tool in zarrgw fsspec; do
        case $tool in
          zarrgw) s=$(seconds ./zarrgw cat -c "${set%.json}.hcl" nc --path "$v" --format raw) ;;
          fsspec) s=$(seconds /usr/bin/python3 "$reader" "$set" "$v" $where) ;;
        esac
        k="$where $v $tool"
        if [ -z "${best[$k]:-}" ] || awk -v s="$s" -v b="${best[$k]}" 'BEGIN { exit !(s < b) }'; then best[$k]=$s; fi
      done
    done
  done
done
for where in file http; do
  for v in t2m tp; do
    a=${best[$where $v zarrgw]} b=${best[$where $v fsspec]}
    printf '%s %s: zarrgw cat %ss, fsspec+zarr-python %ss, ratio %s\n' "$where" "$v" "$a" "$b" \
      "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }')"
  done
done
