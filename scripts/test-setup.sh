#!/usr/bin/env bash
# Everything `npm test` needs on a fresh machine of this kind (Debian 12, root), before it runs: apt packages for the
# live suites, the pinned harness CLIs from the npm registry, rootless Podman with its API socket, and the e2e image.
# Idempotent: on a machine that has it all, a few seconds. Runs as npm's `pretest`.
set -euo pipefail
cd "$(dirname "$0")/.."

# tmux (focus, picker, tmux-setup, demo, Pi's UI), GNU screen (screen focus), and what the kitty/X11 suites run:
# Xvfb, kitty, openbox, xdotool, wmctrl, Mesa's software GL.
packages=(tmux screen xvfb kitty openbox xdotool wmctrl libgl1-mesa-dri x11-utils)
missing=()
for package in "${packages[@]}"; do dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package"); done
if ((${#missing[@]} > 0)); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "test-setup: missing apt packages: ${missing[*]} (run as root, or install them)" >&2
    exit 1
  fi
  echo "test-setup: installing ${missing[*]}" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The real harness CLIs the live suites drive (pinned in test/live/harnesses.json), outside the repository.
node test/live/install-harnesses.mjs
# Rootless Podman, its API socket and the e2e image (containers/ci.sh explains each step).
bash containers/ci.sh
