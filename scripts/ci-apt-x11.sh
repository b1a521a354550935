#!/usr/bin/env bash
# Debian/Ubuntu packages the live X11 suites need (test/live/kitty-focus.test.ts, test/live/x11-focus.test.ts):
# a virtual X server, a window manager, the X tools focus uses, the terminals under test, and Mesa's software OpenGL
# (llvmpipe) plus one font for kitty, which dlopens libGL and refuses to start without a monospace font.
# Run as root; idempotent (installs only what is missing). Call it from .ci/run before `npm test`.
set -euo pipefail

PACKAGES=(
  xvfb            # Xvfb: the X server the suites start on a display it picks itself (-displayfd)
  openbox         # EWMH window manager: _NET_ACTIVE_WINDOW, minimize/restore
  xdotool         # activate, focus, verify; typing real keystrokes in tests
  wmctrl          # the activation fallback, and how tests see openbox is up
  kitty           # kitty 0.26.5 on Debian 12
  xterm           # a plain X11 terminal (sets WINDOWID)
  tmux            # tmux inside kitty / xterm (the tmux suites need it too)
  libgl1 libglx-mesa0 libgl1-mesa-dri   # libGL + llvmpipe (swrast_dri.so): kitty needs OpenGL 3.3
  fonts-dejavu-core                     # a monospace font for kitty and xterm -fa
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$pkg")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "ci-apt-x11.sh: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null || apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi
