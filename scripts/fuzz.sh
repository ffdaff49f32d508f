#!/usr/bin/env bash
# Runs every Go fuzz target in the module briefly (default 10s each).
set -euo pipefail
cd "$(dirname "$0")/.."
time="${1:-10s}"
failed=0
while IFS= read -r line; do
  file="${line%%:*}"
  name=$(sed -E 's/^.*func (Fuzz[A-Za-z0-9_]+).*/\1/' <<<"$line")
  pkg="./$(dirname "$file")"
  echo "fuzz: $pkg $name ($time)"
  if ! go test -run '^$' -fuzz "^${name}\$" -fuzztime "$time" "$pkg"; then
    failed=1
  fi
done < <(git ls-files '*_test.go' | xargs grep -H -E '^func Fuzz[A-Za-z0-9_]+\(' || true)
exit $failed
