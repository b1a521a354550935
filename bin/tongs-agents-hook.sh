#!/bin/sh
# tongs-agents-hook.sh: the hook command harnesses wait for (docs/contract.md, "The hook shim"). It costs the agent a
# POSIX shell (builtins only, one fork) instead of a whole Node process: it captures the evidence that must be read
# before it returns (its own spawn order and the stat line of every ancestor, so identity rests on the harness process
# as it was, even if it exits before the worker looks), spools it, starts the Node worker detached with stdin (the
# payload) handed over, and exits 0 with nothing on stdout. Anything it cannot do ends in exit 0 (fail-open); before
# the worker is started, the synchronous Node hook takes the event instead where it can. POSIX sh only: no arrays, no `local`, no bashisms (a test runs it under dash).
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

# Field 4 (ppid) and field 22 (start time in clock ticks) of a /proc/PID/stat line. The command name (field 2) may hold
# spaces and parentheses, so the fields are counted after its last ")". A function has its own positional parameters.
stat_fields() {
  set -f
  # shellcheck disable=SC2086 # word splitting is the point
  set -- ${1##*) }
  set +f
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

# The first line names the format, then the parent PID, the number of stat lines, the stat lines (this process first).
# Only this entry's worker reads it, and it starts once the file is whole; other workers only look at the names, to
# wait for every entry spawned before theirs. printf is a builtin: writing it starts no program.
entry=$spool/$key.ev
printf 'tongs-agents-spool 1\n%s\n%s\n%s\n' "$PPID" $((depth + 1)) "$evidence" >"$entry" || {
  rm -f "$entry"
  exit 0
}

# The worker reads the payload from our stdin itself, with the hook's bounds (a harness that holds stdin open cannot
# hold us: we never read it). A background command's stdin would be /dev/null, so it goes through fd 3. Detached: its
# own session when setsid exists (no SIGHUP from the terminal, no signal to our process group); stdout and stderr to
# /dev/null, so the harness sees our pipes close as soon as we exit.
# (A failed redirection of a compound command, unlike one of `exec`, does not end the shell: exit 0 still follows.)
{
  if command -v setsid >/dev/null; then
    setsid "$node" "$here/tongs-agents-hook-worker.cjs" "$entry" "$@" <&3 3<&- >/dev/null 2>&1 &
  else
    nohup "$node" "$here/tongs-agents-hook-worker.cjs" "$entry" "$@" <&3 3<&- >/dev/null 2>&1 &
  fi
} 3<&0
exit 0
