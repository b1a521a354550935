#!/bin/sh
# tongs-agents-key.sh: the keypress client in POSIX sh (docs/server.md, "The shell client"): what the tmux keys and
# status line run. A served verb costs a shell, one mkfifo, a background sleep and the verb's work in the running
# keypress server, not a Node process. It sends the server only its PID, its argument count and its build: the server
# reads this process's arguments, environment and working directory from /proc/PID, and answers on a FIFO of ours,
# one line each: r (ready: say go), o/e (a line of stdout/stderr), x (the exit code), f (refused: nothing ran).
# Whatever it cannot do as the Node client would (no server, no /proc, a terminal on stdout, another build, no answer
# within 2 s), the Node client does instead, with the same arguments; a verb runs only after our go, so never twice.
# POSIX sh only (tests run it under dash and bash --posix). Every variable of ours is ta_*: a shell exports what it
# got from its environment, so a caller's variable of the same name would reach the Node client changed.
#
# usage: sh tongs-agents-key.sh <node> <verb> [arguments...]

ta_node=$1
shift
case $0 in
*/*) ta_here=${0%/*} ;;
*) ta_here=. ;;
esac

ta_node_client() {
  exec "$ta_node" "$ta_here/tongs-agents.js" "$@" 4<&- 5>&- 6>&-
}

# `list` can be long, and a shell reads a line a byte at a time: the Node client prints it faster.
case ${1-} in
status | next | focus | show | explain) ;;
*) ta_node_client "$@" ;;
esac
# On a terminal the verb draws for its width and colours: the Node client knows them. Our mark for the Node client
# already in the environment: the Node client, which takes it away before the verb sees it.
if [ -t 1 ] || [ "${TONGS_AGENTS_SERVER-}" = off ] || [ -n "${TONGS_AGENTS_SERVER_UNANSWERED+set}" ] ||
  [ ! -r "/proc/$$/environ" ]; then
  ta_node_client "$@"
fi

case ${TONGS_AGENTS_STATE_DIR-} in
/*) ta_dir=$TONGS_AGENTS_STATE_DIR/server ;;
*) case ${XDG_STATE_HOME-} in
  /*) ta_dir=$XDG_STATE_HOME/tongs-agents/server ;;
  *) ta_dir=${HOME-}/.local/state/tongs-agents/server ;;
  esac ;;
esac
# Ours, as the server made it (the Node client checks its mode too, before sending its environment; we send none).
if [ ! -O "$ta_dir" ] || [ -h "$ta_dir" ]; then
  ta_node_client "$@"
fi

# Process $1's state (R, S, D... T stopped, Z ended) and start time (clock ticks since boot), from its stat line, in
# ta_state and ta_started; empty when there is none. The command name may hold spaces and parentheses: the fields
# are counted after its last ")".
ta_state_of() {
  ta_state=
  ta_started=
  IFS= read -r ta_stat 2>/dev/null <"/proc/$1/stat" || return 0
  set -f
  # shellcheck disable=SC2086 # word splitting is the point
  set -- ${ta_stat##*) }
  set +f
  ta_state=${1-}
  ta_started=${20-}
}

# The server's FIFO is keys.<pid>.<start time>: one whose process ended (killed), or whose PID another process has
# now, is passed over; so is a stopped one (^Z), which would not answer the Node client either: that runs the verb
# itself at once.
ta_server=
for ta_fifo in "$ta_dir"/keys.*.*; do
  [ -p "$ta_fifo" ] || continue
  ta_name=${ta_fifo##*/keys.}
  ta_state_of "${ta_name%%.*}"
  [ "$ta_started" = "${ta_name#*.}" ] || continue
  case $ta_state in
  '' | Z | X | x) ;;
  T | t) ta_stopped=1 ;;
  *)
    ta_server=${ta_name%%.*}
    break
    ;;
  esac
done
if [ -z "$ta_server" ] && [ -n "${ta_stopped-}" ]; then
  export TONGS_AGENTS_SERVER_UNANSWERED=1
  ta_node_client "$@"
fi
ta_build=
[ -n "$ta_server" ] && IFS= read -r ta_build <"$ta_here/../dist/build" 2>/dev/null
ta_reply=$ta_dir/reply.$$
# A reply FIFO a killed client of our PID left: made again.
if [ -z "$ta_build" ] || ! { mkfifo -m 600 "$ta_reply" || { rm -f "$ta_reply" && mkfifo -m 600 "$ta_reply"; }; } 2>/dev/null; then
  ta_node_client "$@"
fi

# Ours is open before we ask, so the server, which opens it for writing without waiting, finds us reading (fd 4).
# The watchdog holds its writing end (fd 6): no end of file before the server's is open, and the watchdog's word
# when the server says nothing. The server's FIFO is fd 5 (a stopping server takes its name away first), checked to
# be one: a name removed just now is made as a plain file by <>. O_RDWR opens (<>) never wait for the other end;
# `command` keeps a failed redirection from ending the shell.
if ! { command exec 3<>"$ta_reply" 4<"$ta_reply" 6>"$ta_reply" 3<&- 5<>"$ta_fifo"; } 2>/dev/null || [ ! -p "/proc/$$/fd/5" ]; then
  [ -f "$ta_fifo" ] && rm -f "$ta_fifo"
  rm -f "$ta_reply"
  ta_node_client "$@"
fi

# The watchdog wakes once a second: t at 2 s (we ignore it once the server said r: no word to the watchdog, which a
# signal sent at once could kill before its trap is set), d when the server's process ended, l at 62 s (2 s to
# start, then the Node client's bound of 60 s); it ends when we do. Its sleep runs in the foreground, so a TERM is
# acted on when that second ends: within a second, nothing of it left. $$ is ours in the subshell too.
(
  trap 'exit 0' TERM
  ta_seconds=0
  while :; do
    sleep 1 6>&-
    ta_seconds=$((ta_seconds + 1))
    ta_state_of $$
    case $ta_state in '' | Z | X | x) exit 0 ;; esac
    ta_state_of "$ta_server"
    case $ta_state in
    '' | Z | X | x)
      printf 'd\n' >&6
      exit 0
      ;;
    esac
    if [ $ta_seconds -eq 2 ]; then
      printf 't\n' >&6
    elif [ $ta_seconds -ge 62 ]; then
      printf 'l\n' >&6
      exit 0
    fi
  done
) </dev/null >/dev/null 2>&1 4<&- 5>&- &
ta_watchdog=$!
exec 6>&-
# A reader gone (`| head`): stop quietly, as the Node client does.
trap '' PIPE
printf '%s %s %s\n' "$$" "$#" "$ta_build" >&5

ta_ready=
ta_code=
while IFS= read -r ta_line; do
  case $ta_line in
  o*) printf '%s\n' "${ta_line#o}" 2>/dev/null || break ;;
  e*) printf '%s\n' "${ta_line#e}" >&2 ;;
  x*)
    ta_code=${ta_line#x}
    break
    ;;
  r)
    ta_ready=1
    printf 'g %s\n' "$$" >&5
    ;;
  t | d | f*) [ -z "$ta_ready" ] && break ;;
  l)
    printf 'tongs-agents: the server did not finish within 60000 ms while running the command\n' >&2
    ta_code=1
    break
    ;;
  esac
done <&4
kill "$ta_watchdog" 2>/dev/null

if [ -z "$ta_ready" ]; then
  rm -f "$ta_reply"
  # Nothing ran. The server does not wait for a go from us (cancel); refused (f), the Node client asks the server
  # itself (an older build is replaced that way); unanswered (t, d), it runs the verb in its own process at once.
  printf 'c %s\n' "$$" >&5
  case $ta_line in
  f*) ;;
  *) export TONGS_AGENTS_SERVER_UNANSWERED=1 ;;
  esac
  ta_node_client "$@"
fi
case $ta_code in
'' | *[!0-9]*)
  # An end of file or d after r: the server went away.
  [ -n "$ta_line" ] && [ "$ta_line" != d ] && exit 0 # our stdout's reader went away (o, above)
  printf 'tongs-agents: the server went away while running the command\n' >&2
  exit 1
  ;;
esac
exit "$ta_code"
