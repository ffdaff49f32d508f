#!/usr/bin/env bash
# Regenerates requirements.txt, the lock of the interoperability tests'
# Python environment, from requirements.in: every wheel pip resolves for
# the machine's /usr/bin/python3 (CPython 3.11, linux x86_64), wheels only,
# each pinned to its version and the sha256 of the wheel PyPI serves.
#   bash scripts/python/lock.sh
# It resolves in a throwaway venv and scratch directory, both removed after.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
/usr/bin/python3 -m venv "$scratch/venv"
# PIP_FIND_LINKS would let a local wheel of the same version (another
# build, another hash) stand in for PyPI's.
PIP_FIND_LINKS= "$scratch/venv/bin/pip" download --quiet --only-binary=:all: \
  -d "$scratch/wheels" -r "$here/requirements.in"
"$scratch/venv/bin/python" - "$scratch/wheels" "$here/requirements.txt" <<'PY'
import hashlib, pathlib, sys, zipfile
from email.parser import HeaderParser

wheels, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
lines = []
for whl in sorted(wheels.glob("*.whl")):
    with zipfile.ZipFile(whl) as z:
        meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        head = HeaderParser().parsestr(z.read(meta).decode())
    digest = hashlib.sha256(whl.read_bytes()).hexdigest()
    name = head["Name"].lower().replace("_", "-").replace(".", "-")
    lines.append(f"{name}=={head['Version']} \\\n    --hash=sha256:{digest}\n    # {whl.name}\n")
lines.sort()
out.write_text(
    "# The interoperability tests' Python environment, for /usr/bin/python3\n"
    "# (CPython 3.11, linux x86_64), wheels only. Generated from requirements.in\n"
    "# by: bash scripts/python/lock.sh (do not edit by hand).\n"
    "# Installed by scripts/setup.sh with:\n"
    "#   pip install --require-hashes --only-binary=:all: --no-deps -r requirements.txt\n"
    + "".join(lines))
PY
echo "lock: wrote $here/requirements.txt ($(grep -c '^[a-z]' "$here/requirements.txt") packages)"
