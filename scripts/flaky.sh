#!/usr/bin/env bash
# Runs every test package COUNT times (default 5) and lists the tests that
# failed even once: the sweep for tests that depend on the machine's speed.
# With LOAD=N, N busy loops hog the cores for the whole run (a loaded
# machine). Packages are those of `make unit`, the binary tests included.
#   scripts/flaky.sh [COUNT]         quiet
#   LOAD=2 scripts/flaky.sh [COUNT]  with both cores of a 2-core machine busy
#   PKGS="./tests/transfer ./tests/s3" scripts/flaky.sh [COUNT]  only those
# Output: one go test log per package under ${OUT:-/tmp/zarrgw-flaky}, and a
# summary of the failed tests at the end. Exit status 1 if any failed.
set -uo pipefail
cd "$(dirname "$0")/.."
count=${1:-5}
out=${OUT:-/tmp/zarrgw-flaky}
mkdir -p "$out"
loops=()
if [ "${LOAD:-0}" -gt 0 ]; then
  for _ in $(seq "$LOAD"); do
    (while :; do :; done) &
    loops+=($!)
  done
  trap 'kill "${loops[@]}" 2>/dev/null' EXIT
fi
failed=0
for pkg in $(go list ${PKGS:-./...}); do
  log="$out/$(echo "${pkg#github.com/zarrgw/zarrgw/}" | tr / _).log"
  start=$(date +%s)
  if go test -count="$count" -timeout 60m "$pkg" >"$log" 2>&1; then
    echo "ok   $pkg ($(( $(date +%s) - start ))s)"
  else
    failed=1
    echo "FAIL $pkg ($(( $(date +%s) - start ))s):"
    grep -E '^\s*--- FAIL' "$log" | sed 's/ (.*//' | sort | uniq -c | sed 's/^/       /'
  fi
done
exit $failed
