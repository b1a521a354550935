#!/bin/sh
# tongs-agents-hook.sh: the hook command harnesses wait for (docs/contract.md, "The hook shim"). It costs the agent a
# POSIX shell and one small program, never a Node process: it captures what only it can (its own spawn order and the
# stat line of every ancestor, so identity rests on the harness process as it was; the allowlisted environment; the
# working directory; the payload, copied from stdin by `dd` or `head` in the background) into one queue entry, makes sure the
# drainer runs (it applies every queued event, in batches: src/hook/drainer.ts), and exits 0 with nothing on stdout.
# Anything it cannot do ends in exit 0 (fail-open); before the entry is written, the synchronous Node hook takes the
# event instead where it can. POSIX sh only: no arrays, no `local`, no bashisms (a test runs it under dash).
#
# usage: sh tongs-agents-hook.sh <node> <alias> --agent <harness>

node=$1
[ $# -eq 4 ] || exit 0
shift
here=${0%/*}
exec 2>/dev/null

# The synchronous hook: for a system without /proc (macOS) or a state dir we cannot use. It reads stdin itself.
sync_hook() {
  [ -x "$node" ] && [ -f "$here/tongs-agents-hook.cjs" ] && exec "$node" "$here/tongs-agents-hook.cjs" "$@" >/dev/null
  exit 0
}

case ${TONGS_AGENTS_STATE_DIR-} in
/*) state=$TONGS_AGENTS_STATE_DIR ;;
*) case ${XDG_STATE_HOME-} in
  /*) state=$XDG_STATE_HOME/tongs-agents ;;
  *) case ${HOME-} in
    /*) state=$HOME/.local/state/tongs-agents ;;
    *) sync_hook "$@" ;;
    esac ;;
  esac ;;
esac
spool=$state/incoming

# Field 4 (ppid) and field 22 (start time in clock ticks) of a /proc/PID/stat line, and field 3 (state). The command
# name (field 2) may hold spaces and parentheses, so the fields are counted after its last ")". A function has its own
# positional parameters.
stat_fields() {
  set -f
  # shellcheck disable=SC2086 # word splitting is the point
  set -- ${1##*) }
  set +f
  pstate=${1-}
  ppid=${2-}
  start=${20-}
}

IFS= read -r self </proc/$$/stat || sync_hook "$@"
stat_fields "$self"
case $start in '' | *[!0-9]*) sync_hook "$@" ;; esac
key=$start-$$
evidence=$self
pid=$PPID
depth=0
while [ "$pid" -gt 1 ] 2>/dev/null && [ $depth -lt 24 ]; do
  IFS= read -r line <"/proc/$pid/stat" || break
  evidence="$evidence
$line"
  stat_fields "$line"
  pid=$ppid
  depth=$((depth + 1))
done

if [ ! -d "$spool" ]; then
  (umask 077 && mkdir -p "$spool") || sync_hook "$@"
fi
[ -L "$spool" ] && sync_hook "$@"
[ -x "$node" ] || exit 0
command -v head >/dev/null || sync_hook "$@"
entry=$spool/$key

# The payload: `head` copies stdin (up to the 16 MiB read cap and one byte more, so a longer one shows as cut) into
# the entry's .in file, in the background, so a harness that holds stdin open cannot hold us. A background command's
# stdin would be /dev/null, so it goes through fd 3. A terminal is never read (someone running the hook by hand).
# (No stdin at all, fd 0 closed: nothing to copy either.) GNU head writes through stdio, which keeps a payload smaller
# than its buffer until head exits: with stdin held open the file would stay empty, so where coreutils' stdbuf is
# there, head runs unbuffered (stdbuf execs head: the same process, the same PID). Where the drainer found that dd
# takes a byte count (src/hook/shim-copier.ts: it leaves a mark in the spool), dd copies alone, writing each read at
# once: one program fewer per event.
if [ -f "$spool/.copy-with-dd" ]; then
  copy="dd iflag=count_bytes bs=65536 status=none count=16777217"
elif command -v stdbuf >/dev/null; then
  copy="stdbuf -o0 head -c 16777217"
else
  copy="head -c 16777217"
fi
reader=none
if [ ! -t 0 ] && { true <&0; } 2>/dev/null; then
  # shellcheck disable=SC2086 # $copy is a command and its words
  { $copy <&3 3<&- >"$entry.in" & } 3<&0
  copier=$!
  reader="$copier -"
  if IFS= read -r line <"/proc/$copier/stat"; then
    stat_fields "$line"
    reader="$copier $start"
  fi
fi

# One entry, in one file: the format, the parent PID, the stat lines (this process first), the payload's reader, then
# NUL-terminated fields (the arguments, the working directory, the allowlisted environment: src/hook/shim-entry.ts,
# HOOK_ENV_KEYS; empty means unset) and a last line that says the entry is whole. printf is a builtin: writing it
# starts no program.
# (Simple commands, each with its own redirection: a failed redirection of one never ends the shell.)
gone() {
  rm -f "$entry.ev" "$entry.in"
  exit 0
}
printf 'tongs-agents-spool 2\n%s\n%s\n%s\n%s\n' "$PPID" $((depth + 1)) "$evidence" "$reader" >"$entry.ev" || gone
printf '%s\0' "$#" "$@" "$PWD" \
  "TMUX=${TMUX-}" "TMUX_PANE=${TMUX_PANE-}" "KITTY_WINDOW_ID=${KITTY_WINDOW_ID-}" "KITTY_LISTEN_ON=${KITTY_LISTEN_ON-}" \
  "KITTY_PID=${KITTY_PID-}" "WEZTERM_PANE=${WEZTERM_PANE-}" "WEZTERM_UNIX_SOCKET=${WEZTERM_UNIX_SOCKET-}" \
  "ITERM_SESSION_ID=${ITERM_SESSION_ID-}" "TERM_SESSION_ID=${TERM_SESSION_ID-}" "TERM_PROGRAM=${TERM_PROGRAM-}" \
  "WINDOWID=${WINDOWID-}" "DISPLAY=${DISPLAY-}" "STY=${STY-}" "WINDOW=${WINDOW-}" "SCREENDIR=${SCREENDIR-}" \
  "TONGS_AGENTS_LAUNCH_ID=${TONGS_AGENTS_LAUNCH_ID-}" "TONGS_AGENTS_PROFILE=${TONGS_AGENTS_PROFILE-}" \
  "TONGS_AGENTS_NOTIFY=${TONGS_AGENTS_NOTIFY-}" "TONGS_AGENTS_DEBUG=${TONGS_AGENTS_DEBUG-}" "HOME=${HOME-}" \
  "XDG_CONFIG_HOME=${XDG_CONFIG_HOME-}" "XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR-}" \
  "DBUS_SESSION_BUS_ADDRESS=${DBUS_SESSION_BUS_ADDRESS-}" "WAYLAND_DISPLAY=${WAYLAND_DISPLAY-}" "PATH=${PATH-}" \
  "TERM=${TERM-}" "SSH_CONNECTION=${SSH_CONNECTION-}" >>"$entry.ev" || gone
printf 'end\n' >>"$entry.ev" || gone

# The drainer: alive when the PID in drainer.pid still has the start time written beside it, and is not stopped (the
# queue would wait for as long as it is; when it runs again it finds another named and leaves). Otherwise start one,
# detached (its own session, so no hangup or signal of the agent's terminal reaches it), with an environment of its
# own (each event brings its allowlisted one), and name it at once, so the hooks that follow do not start more.
dpid=
dstart=
read -r dpid dstart <"$state/drainer.pid"
case $dpid in
'' | *[!0-9]*) ;;
*) if IFS= read -r line <"/proc/$dpid/stat"; then
  stat_fields "$line"
  [ "$start" = "$dstart" ] && case $pstate in Z | X | T | t) ;; *) exit 0 ;; esac
fi ;;
esac
if command -v setsid >/dev/null; then
  setsid env -i PATH="${PATH-}" HOME="${HOME-}" TONGS_AGENTS_DEBUG="${TONGS_AGENTS_DEBUG-}" "$node" "$here/tongs-agents-drainer.cjs" "$state" </dev/null >/dev/null 2>&1 &
else
  nohup env -i PATH="${PATH-}" HOME="${HOME-}" TONGS_AGENTS_DEBUG="${TONGS_AGENTS_DEBUG-}" "$node" "$here/tongs-agents-drainer.cjs" "$state" </dev/null >/dev/null 2>&1 &
fi
drainer=$!
# Named in one rename, so a shim reading drainer.pid never sees half of it (and starts a second drainer).
if IFS= read -r line <"/proc/$drainer/stat"; then
  stat_fields "$line"
  printf '%s %s\n' "$drainer" "$start" >"$state/drainer.pid.$$.tmp" && mv -f "$state/drainer.pid.$$.tmp" "$state/drainer.pid" ||
    rm -f "$state/drainer.pid.$$.tmp"
fi
exit 0
