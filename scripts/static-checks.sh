#!/usr/bin/env bash
# The static checks `npm test` runs before the suites: ESLint, Prettier and tsc, side by side. Each uses one core, so on
# two cores they take about half as long as one after another; each one's output is printed whole once it ends.
set -uo pipefail
cd "$(dirname "$0")/.."
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
checks=(lint format:check typecheck)
pids=()
for check in "${checks[@]}"; do
  npm run --silent "$check" >"$out/$check" 2>&1 &
  pids+=($!)
done
status=0
for i in "${!checks[@]}"; do
  if wait "${pids[$i]}"; then
    echo "static checks: ${checks[$i]} passed" >&2
  else
    status=1
    echo "static checks: ${checks[$i]} failed:" >&2
    cat "$out/${checks[$i]}" >&2
  fi
done
exit "$status"
