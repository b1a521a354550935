#!/usr/bin/env bash
# Everything the e2e suites need on a fresh machine, as root, after `npm ci`: rootless Podman with its API socket
# (containers/podman.sh setup) and the e2e image (containers/build-images.ts). Idempotent: on a machine that already
# has both it takes a few seconds. Then run the suites with `npm run test:e2e`.
#   bash containers/ci.sh [--agents pi,claude|all] [--extras ssh|all]
set -euo pipefail
cd "$(dirname "$0")/.."

[[ -x node_modules/.bin/node ]] || { echo "containers/ci.sh: run 'npm ci' first (the image build uses the project's Node 22)" >&2; exit 1; }
# The project's Node 22 first on PATH, for the build script and for the npm it runs.
export PATH="$PWD/node_modules/.bin:$PATH"

phase() {
  local started=$SECONDS
  "$@"
  echo "containers/ci.sh: $1 $2 took $((SECONDS - started)) s" >&2
}

phase bash containers/podman.sh setup
eval "$(bash containers/podman.sh env)"
phase node containers/build-images.ts "$@" >/dev/null
