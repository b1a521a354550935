#!/usr/bin/env bash
# Regenerate the README's screenshots from a real terminal: `tongs-agents demo` in kitty on a private Xvfb display, the
# picker popup over the demo's tmux panes (docs/picker.png), then the same with the preview on, Ctrl-T
# (docs/picker-preview.png). Everything it starts (Xvfb, kitty, through kitty the demo and its private tmux server) it
# stops by PID or by private socket, and it removes its temp dir; it never touches the user's config.
#
# Needs the apt packages xvfb, kitty, fonts-dejavu-core, libgl1 libglx-mesa0 libgl1-mesa-dri, tmux (the live suites'
# list in scripts/test-setup.sh) plus imagemagick (import, convert) and optipng. Run after UI changes:
#   bash scripts/screenshot.sh            # writes docs/picker.png and docs/picker-preview.png
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
node=$root/node_modules/.bin/node # the pinned Node 22 (the system one may be older)
cols=140 rows=40 font_size=11

for program in Xvfb kitty tmux import convert optipng; do
  command -v "$program" >/dev/null || { echo "screenshot: $program is not installed (see the header of $0)" >&2; exit 1; }
done
[[ -x $node ]] || { echo "screenshot: run npm ci first ($node is missing)" >&2; exit 1; }

work=$(mktemp -d /tmp/tongs-shot-XXXXXX)
xvfb_pid="" kitty_pid=""

# A child that has exited but is not reaped yet still answers kill -0: read its state instead.
running() {
  local state
  state=$(ps -o stat= -p "$1" 2>/dev/null) && [[ $state != Z* ]]
}
# Stop one process we started: TERM, up to 5 s, then KILL.
stop() {
  local pid=$1
  [[ -n $pid ]] || return 0
  if running "$pid"; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 50); do running "$pid" || break; sleep 0.1; done
    running "$pid" && kill -KILL "$pid" 2>/dev/null
  fi
  wait "$pid" 2>/dev/null || true
}
cleanup() {
  stop "$kitty_pid"
  # The demo removes its tmux server when it ends; if it could not, its private socket still reaches it.
  for socket in "$work"/tongs-demo-*/tmux.sock; do [[ -S $socket ]] && tmux -S "$socket" kill-server 2>/dev/null || true; done
  stop "$xvfb_pid"
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# Wait up to $1 seconds for the command after it to succeed.
wait_for() {
  local seconds=$1 what=$2
  shift 2
  local deadline=$((SECONDS + seconds))
  while ((SECONDS < deadline)); do "$@" && return 0; sleep 0.2; done
  echo "screenshot: timed out waiting for $what" >&2
  [[ -s $work/kitty.log ]] && sed 's/^/kitty: /' "$work/kitty.log" >&2
  screen_text | sed 's/^/screen: /' >&2 || true
  return 1
}

# A sandbox: the demo, kitty and the hook see only temp dirs (the demo also puts its own root under TMPDIR).
mkdir -p "$work/home" "$work/config" "$work/cache" "$work/data" "$work/state" "$work/runtime"
chmod 700 "$work/runtime"
export HOME=$work/home XDG_CONFIG_HOME=$work/config XDG_CACHE_HOME=$work/cache XDG_DATA_HOME=$work/data \
  XDG_STATE_HOME=$work/state XDG_RUNTIME_DIR=$work/runtime TMPDIR=$work TONGS_AGENTS_STATE_DIR=$work/tongs-state \
  CLAUDE_CONFIG_DIR=$work/claude CODEX_HOME=$work/codex PI_CODING_AGENT_DIR=$work/pi
unset TMUX TMUX_PANE KITTY_WINDOW_ID KITTY_LISTEN_ON WAYLAND_DISPLAY

"$node" scripts/build.mjs

# Xvfb picks a free display itself and writes its number to fd 3.
Xvfb -displayfd 3 -screen 0 1600x1000x24 -nolisten tcp -noreset 3>"$work/display" 2>"$work/xvfb.log" &
xvfb_pid=$!
wait_for 20 "Xvfb to report its display" grep -q . "$work/display"
export DISPLAY=:$(head -n1 "$work/display")

# The picker also lists agent processes it discovers on the machine (`found` rows): run kitty, and so the demo, in a
# PID namespace of its own, where the only agents are the demo's. When kitty (its first process) ends, the kernel ends
# everything left in the namespace. Without namespaces, real agents running here may appear in the picture.
isolate=()
if unshare --pid --fork --mount-proc true 2>/dev/null; then
  isolate=(unshare --pid --mount-proc --kill-child=SIGTERM)
elif unshare --user --map-root-user --pid --fork --mount-proc true 2>/dev/null; then
  isolate=(unshare --user --map-root-user --pid --mount-proc --kill-child=SIGTERM)
else
  echo "screenshot: cannot make a PID namespace (unshare); agents running on this machine may show in the picker" >&2
fi

socket=unix:$work/kitty.sock
"${isolate[@]}" kitty --config NONE -o allow_remote_control=yes --listen-on "$socket" \
  -o font_family="DejaVu Sans Mono" -o font_size=$font_size -o remember_window_size=no \
  -o initial_window_width=${cols}c -o initial_window_height=${rows}c -o window_padding_width=4 \
  -o confirm_os_window_close=0 -o cursor_blink_interval=0 -o linux_display_server=x11 \
  "$node" "$root/bin/tongs-agents.js" demo 2>"$work/kitty.log" &
kitty_pid=$!

screen_text() { kitty @ --to "$socket" get-text 2>/dev/null; }
# The picker is up and lists all five simulated sessions, in every state the demo reaches.
picker_complete() {
  local text
  text=$(screen_text) || return 1
  for word in "5 sessions" waiting error done running started webapp api infra docs scratch; do [[ $text == *"$word"* ]] || return 1; done
}
wait_for 60 "the picker to show all five sessions" picker_complete
sleep 1 # let the popup finish drawing

xid=$(kitty @ --to "$socket" ls | "$node" -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s)[0].platform_window_id))')
shoot() {
  local out=$1
  import -window "$xid" "png:$work/shot.png"
  # Text on a flat background: a 64-colour palette, undithered (dithering speckles the flat areas), keeps the
  # antialiasing and makes the file about 20 KB.
  convert "$work/shot.png" -strip +dither -colors 64 "png8:$out"
  optipng -quiet -o5 "$out"
  echo "screenshot: wrote $out ($(stat -c %s "$out") bytes, $(identify -format %wx%h "$out"))"
}
shoot docs/picker.png

kitty @ --to "$socket" send-text $'\x14' # Ctrl-T: preview the selected session's pane
preview_shown() { [[ $(screen_text) == *"── preview"* ]]; }
wait_for 20 "the preview" preview_shown
sleep 1
shoot docs/picker-preview.png

# Leave the way a user does: Esc closes the picker, prefix+d detaches, and the demo removes its server and files.
kitty @ --to "$socket" send-text $'\x1b'
sleep 1.5 # tmux waits escape-time to tell Esc from Meta
kitty @ --to "$socket" send-text $'\x02d'
not_running() { ! running "$1"; }
wait_for 20 "the demo and kitty to exit" not_running "$kitty_pid" || true
