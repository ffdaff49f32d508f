#!/usr/bin/env bash
# Installs what the tests need beyond Go: Debian's python3-zarr and
# python3-numcodecs (foreign v2 client and blosc oracle), python3-fsspec
# and python3-aiohttp (zarr-python reading over HTTP), python3-xarray
# (xarray.open_zarr of the samples through the gateway), zarrita.js (foreign
# v3 client) with a Float16Array polyfill for node 20, chromium (the
# browser test of the gateway's pages), the S3 clients the S3 API is
# tested with (awscli, python3-boto3, s3cmd, rclone, and gdal-bin for
# GDAL's Zarr driver over /vsis3/ and /vsicurl/), the web clients the
# directory pages are tested with (wget; rclone's http backend, fsspec),
# nginx (the load balancer of the scale-out tests, which start their
# own), the Python plugin SDK's packages (python3-grpcio, python3-protobuf,
# python3-cryptography; protoc and grpc_python_plugin to check its
# generated code) and python3-zfpy (a numcodecs codec zarrgw does not
# bundle, served through the numcodecs bridge), python3-netcdf4 and
# python3-h5py (NetCDF4/HDF5 files and their chunk indexes, for the
# references store's tests), and the servers the cloud stores
# are tested against: versitygw (S3, built with go install into
# $(go env GOPATH)/bin, about 2 minutes once) and Azurite (Azure Blob, npm,
# into tests/support/servers/js); and Dex, the OpenID Connect provider of
# the identity tests (built from scripts/dex into $(go env GOPATH)/bin,
# about 3 minutes once); and the Python environment of the reference
# implementations (zarr-python 3, tensorstore, zarrs, kerchunk,
# VirtualiZarr, xarray ...; python3-venv), pinned with hashes in
# scripts/python/requirements.txt.
# Idempotent: installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
for pkg in python3-zarr python3-numcodecs python3-fsspec python3-aiohttp python3-requests chromium \
  awscli python3-boto3 s3cmd rclone gdal-bin python3-gdal wget python3-xarray nginx \
  python3-grpcio python3-protobuf python3-cryptography python3-zfpy protobuf-compiler protobuf-compiler-grpc \
  python3-h5py python3-netcdf4 python3-venv; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
done
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing ${need_apt[*]} (apt)"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

# Every package of package.json must be present, so a machine set up before
# one was added gets it too.
js_missing=$(cd tests/interop/js && node -e '
  const fs = require("fs");
  const deps = Object.keys(require("./package.json").dependencies);
  console.log(deps.filter((d) => !fs.existsSync("node_modules/" + d + "/package.json")).join(" "));
')
if [ -n "$js_missing" ]; then
  echo "setup: installing $js_missing for zarrita.js (npm)"
  (cd tests/interop/js && npm install --no-audit --no-fund --loglevel=error)
fi
# versitygw: where tests/support/servers looks for it (PATH, or GOPATH/bin).
VERSITYGW_VERSION=v1.8.0
gobin="$(go env GOPATH | cut -d: -f1)/bin"
if ! command -v versitygw >/dev/null 2>&1 && [ ! -x "$gobin/versitygw" ]; then
  echo "setup: building versitygw $VERSITYGW_VERSION (go install, about 2 minutes)"
  GOFLAGS= go install "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION"
fi

# Dex (the OpenID Connect provider the identity tests start): where
# tests/support/servers looks for it (PATH, or GOPATH/bin). Dex cannot be
# go installed at a version (its go.mod has a replace directive), so it is
# built as a dependency of the module in scripts/dex, which pins it (and
# everything it needs, in go.sum), from a copy in a scratch directory. It
# needs cgo, for sqlite. DEX_VERSION names the release for `dex version`;
# scripts/dex/go.mod pins it (as the pseudo-version the proxy serves).
DEX_VERSION=v2.45.1
if ! command -v dex >/dev/null 2>&1 && [ ! -x "$gobin/dex" ]; then
  echo "setup: building Dex $DEX_VERSION (go build, about 3 minutes)"
  dexmod=$(mktemp -d)
  trap 'rm -rf "$dexmod"' EXIT
  cp scripts/dex/go.mod scripts/dex/go.sum scripts/dex/tools.go "$dexmod/"
  mkdir -p "$gobin"
  (cd "$dexmod" && CGO_ENABLED=1 GOFLAGS=-mod=readonly GOWORK=off \
    go build -ldflags "-X main.version=$DEX_VERSION" -o "$gobin/dex" github.com/dexidp/dex/cmd/dex)
fi
# The tests hash the Dex users' passwords with scripts/dex/passwordhash
# (go run): building it here fetches what it needs while the network is
# there, and leaves it in the build cache.
(cd scripts/dex && GOFLAGS=-mod=readonly GOWORK=off go build -o /dev/null ./passwordhash)

# Azurite, pinned in tests/support/servers/js/package.json.
if [ ! -x tests/support/servers/js/node_modules/.bin/azurite-blob ]; then
  echo "setup: installing Azurite (npm)"
  (cd tests/support/servers/js && npm install --no-audit --no-fund --loglevel=error)
fi
# The reference implementations' Python environment, in the user's cache
# directory keyed by the lock's hash: a fresh clone of the same lock (CI's,
# another worktree's) finds it built, a changed lock gets a new one beside
# it. tests/support/pyenv finds it the same way. The marker, written last,
# holds the lock's hash: a venv whose install was cut short has none, and is
# made again.
lock=scripts/python/requirements.txt
lockhash=$(sha256sum "$lock" | cut -d' ' -f1)
pyenv="${XDG_CACHE_HOME:-$HOME/.cache}/zarrgw/pyenv-${lockhash:0:16}"
if [ "$(cat "$pyenv/zarrgw-lock.sha256" 2>/dev/null)" != "$lockhash" ]; then
  echo "setup: making the Python environment $pyenv (pip, about 250 MB of wheels)"
  rm -rf "$pyenv"
  /usr/bin/python3 -m venv "$pyenv"
  # PIP_FIND_LINKS: only PyPI's wheels carry the lock's hashes.
  PIP_FIND_LINKS= "$pyenv/bin/pip" install --quiet --require-hashes --only-binary=:all: --no-deps -r "$lock"
  "$pyenv/bin/python" -c 'import zarr, numcodecs, ml_dtypes, tensorstore, zarrs, kerchunk, virtualizarr, h5py, netCDF4, obstore, s3fs, fsspec, pyarrow, fastparquet, xarray, zfpy'
  echo "$lockhash" >"$pyenv/zarrgw-lock.sha256"
fi
# Each run marks its environment as used; environments of other locks that
# no run has used for 14 days are removed (900 MB each), so switching
# branches back and forth keeps both while old locks do not pile up.
touch "$pyenv/zarrgw-lock.sha256"
find "$(dirname "$pyenv")" -maxdepth 2 -path '*/pyenv-*/zarrgw-lock.sha256' -mtime +14 -printf '%h\n' |
  while read -r old; do
    [ "$old" = "$pyenv" ] || { echo "setup: removing the unused Python environment $old"; rm -rf "$old"; }
  done
echo "setup: ok"
