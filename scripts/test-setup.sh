#!/usr/bin/env bash
# Everything `npm test` needs on a fresh machine of this kind (Debian 12, root), before it runs: apt packages for the
# live suites, the pinned harness CLIs from the npm registry, rootless Podman with its API socket, and the e2e image.
# Idempotent: on a machine that has it all, a few seconds. Runs as npm's `pretest`.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS

packages=(
  tmux            # tmux focus, the picker, tmux-setup, the demo, Pi's UI, tmux inside kitty/xterm
  screen          # GNU screen focus
  procps          # ps: process discovery (ps-list) and the demo stopping the processes its tmux server started
  xvfb            # Xvfb: the X server the kitty/X11 suites start on a display it picks itself (-displayfd)
  openbox         # EWMH window manager: _NET_ACTIVE_WINDOW, minimize/restore
  xdotool         # activate, focus, verify; typing real keystrokes in tests
  wmctrl          # the activation fallback, and how tests see openbox is up
  kitty           # kitty 0.26.5 on Debian 12
  xterm           # a plain X11 terminal (sets WINDOWID)
  libgl1 libglx-mesa0 libgl1-mesa-dri   # libGL + llvmpipe: kitty needs OpenGL 3.3 and dlopens libGL
  fonts-dejavu-core                     # kitty refuses to start without a monospace font
  dbus-daemon     # a private session bus for the notification suites
  ca-certificates # the CA bundle the Copilot CLI container suite copies in (its HTTP client needs trust roots)
  dunst           # a real notification daemon on it (dunstctl invokes a notification's action)
  bash zsh fish   # the shells whose completion scripts test/live/completion.test.ts runs
)
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

# kitty runs its Python at -OO, which reads only `.opt-2.pyc` byte code; Debian compiles the plain `.pyc` alone, and
# kitty writes none. Each kitty start-up (and each `kitty @` command) compiled every module it imports from source:
# 1.1-1.4 CPU-s per start against 0.7 s with the byte code (docs/containers.md, "Where CI's time goes"). Compiled
# once here, as Debian's own py3compile would, where kitty's own module has none yet.
if [[ $(id -u) -eq 0 ]] && ! compgen -G "/usr/lib/kitty/kitty/__pycache__/boss.*.opt-2.pyc" >/dev/null; then
  stdlib="$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')"
  python3 -OO -m compileall -q "$stdlib" /usr/lib/python3/dist-packages /usr/lib/kitty >/dev/null 2>&1 ||
    echo "test-setup: some modules did not compile for kitty's -OO (it compiles those at each start)" >&2
fi

echo "test-setup: apt packages took $((SECONDS - started)) s" >&2

# The real harness CLIs the live suites drive (pinned in test/live/harnesses.json), outside the repository.
phase=$SECONDS
node test/live/install-harnesses.mjs
echo "test-setup: the harness CLIs took $((SECONDS - phase)) s" >&2
# Rootless Podman, its API socket and the one image every e2e suite runs in (containers/ci.sh explains each step).
bash containers/ci.sh --agents all --extras all
echo "test-setup: done in $((SECONDS - started)) s" >&2
