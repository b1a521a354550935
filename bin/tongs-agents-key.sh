#!/bin/sh
# tongs-agents-key.sh: the keypress client in POSIX sh (docs/server.md, "The shell client"): what the tmux keys and
# status line run. A served verb costs a shell, one mkfifo, a background sleep and the verb's work in the running
# keypress server, not a Node process. It sends the server only its PID, its argument count and its build: the server
# reads this process's arguments, environment and working directory from /proc/PID, and answers on a FIFO of ours,
# one line each: r (ready: say go), o/e (a line of stdout/stderr), x (the exit code), f (refused: nothing ran).
# Whatever it cannot do as the Node client would (no server, no /proc, a terminal on stdout, another build, no answer
# within 2 s), the Node client does instead, with the same arguments; a verb runs only after our go, so never twice.
# POSIX sh only (tests run it under dash and bash --posix).
#
# usage: sh tongs-agents-key.sh <node> <verb> [arguments...]

node=$1
shift
case $0 in
*/*) here=${0%/*} ;;
*) here=. ;;
esac

node_client() {
  exec "$node" "$here/tongs-agents.js" "$@" 4<&- 5>&- 6>&-
}

# `list` can be long, and a shell reads a line a byte at a time: the Node client prints it faster.
case ${1-} in
status | next | focus | show | explain) ;;
*) node_client "$@" ;;
esac
# On a terminal the verb draws for its width and colours: the Node client knows them.
if [ -t 1 ] || [ "${TONGS_AGENTS_SERVER-}" = off ] || [ ! -r "/proc/$$/environ" ]; then
  node_client "$@"
fi

case ${TONGS_AGENTS_STATE_DIR-} in
/*) dir=$TONGS_AGENTS_STATE_DIR/server ;;
*) case ${XDG_STATE_HOME-} in
  /*) dir=$XDG_STATE_HOME/tongs-agents/server ;;
  *) dir=${HOME-}/.local/state/tongs-agents/server ;;
  esac ;;
esac
# Ours, as the server made it (the Node client checks its mode too, before sending its environment; we send none).
if [ ! -O "$dir" ] || [ -h "$dir" ]; then
  node_client "$@"
fi

# The state of process $1 from its stat line (R, S, D... T stopped, Z ended), in $state; empty when there is none.
# The command name may hold spaces and parentheses: the fields are counted after its last ")".
state_of() {
  state=
  IFS= read -r stat 2>/dev/null <"/proc/$1/stat" || return 0
  set -f
  # shellcheck disable=SC2086 # word splitting is the point
  set -- ${stat##*) }
  set +f
  state=${1-}
}

# The server's FIFO is named for its PID: one whose process ended (killed) or is stopped (^Z) is passed over; a
# stopped one would not answer the Node client either, so that runs the verb itself at once.
server=
for fifo in "$dir"/keys.*; do
  [ -p "$fifo" ] || continue
  state_of "${fifo##*.}"
  case $state in
  '' | Z | X | x) ;;
  T | t) export TONGS_AGENTS_SERVER_UNANSWERED=1 ;;
  *)
    server=${fifo##*.}
    unset TONGS_AGENTS_SERVER_UNANSWERED
    break
    ;;
  esac
done
build=
[ -n "$server" ] && IFS= read -r build <"$here/../dist/build" 2>/dev/null
reply=$dir/reply.$$
# A reply FIFO a killed client of our PID left: made again.
if [ -z "$build" ] || ! { mkfifo -m 600 "$reply" || { rm -f "$reply" && mkfifo -m 600 "$reply"; }; } 2>/dev/null; then
  node_client "$@"
fi

# Ours is open before we ask, so the server, which opens it for writing without waiting, finds us reading (fd 4).
# The watchdog holds its writing end (fd 6): no end of file before the server's is open, and the watchdog's word
# when the server says nothing. The server's FIFO is fd 5 (a stopping server takes its name away first), checked to
# be one: a name removed just now is made as a plain file by <>. O_RDWR opens (<>) never wait for the other end;
# `command` keeps a failed redirection from ending the shell.
if ! { command exec 3<>"$reply" 4<"$reply" 6>"$reply" 3<&- 5<>"$fifo"; } 2>/dev/null || [ ! -p /dev/fd/5 ]; then
  [ -f "$fifo" ] && rm -f "$fifo"
  rm -f "$reply"
  node_client "$@"
fi

# The watchdog, once a second: t when the server has not said r within 2 s (busy past that, or stopped), d when it
# ended, l when the verb has run 60 s (the Node client's bound). USR1 says r came. Its sleep runs in the foreground,
# so a signal is acted on when that second ends: a TERM ends it within a second, with nothing of it left.
(
  ready=
  seconds=0
  trap 'ready=1 seconds=0' USR1
  trap 'exit 0' TERM
  while :; do
    sleep 1 6>&-
    seconds=$((seconds + 1))
    state_of "$server"
    case $state in
    '' | Z | X | x) word=d ;;
    *) if [ -z "$ready" ] && [ $seconds -ge 2 ]; then word=t; elif [ $seconds -ge 60 ]; then word=l; else continue; fi ;;
    esac
    printf '%s\n' "$word" >&6
    exit 0
  done
) </dev/null >/dev/null 2>&1 4<&- 5>&- &
watchdog=$!
exec 6>&-
# A reader gone (`| head`): stop quietly, as the Node client does.
trap '' PIPE
printf '%s %s %s\n' "$$" "$#" "$build" >&5

ready=
code=
while IFS= read -r line; do
  case $line in
  o*) printf '%s\n' "${line#o}" 2>/dev/null || break ;;
  e*) printf '%s\n' "${line#e}" >&2 ;;
  x*)
    code=${line#x}
    break
    ;;
  r)
    ready=1
    kill -s USR1 "$watchdog" 2>/dev/null
    printf 'g %s\n' "$$" >&5
    ;;
  t | d | f*) [ -z "$ready" ] && break ;;
  l)
    printf 'tongs-agents: the server did not finish within 60000 ms while running the command\n' >&2
    code=1
    break
    ;;
  esac
done <&4
kill "$watchdog" 2>/dev/null

if [ -z "$ready" ]; then
  rm -f "$reply"
  # Nothing ran. The server does not wait for a go from us (cancel); refused (f), the Node client asks the server
  # itself (an older build is replaced that way); unanswered (t, d), it runs the verb in its own process at once.
  printf 'c %s\n' "$$" >&5
  case $line in
  f*) ;;
  *) export TONGS_AGENTS_SERVER_UNANSWERED=1 ;;
  esac
  node_client "$@"
fi
case $code in
'' | *[!0-9]*)
  # An end of file or d after r: the server went away.
  [ -n "$line" ] && [ "$line" != d ] && exit 0 # our stdout's reader went away (o, above)
  printf 'tongs-agents: the server went away while running the command\n' >&2
  exit 1
  ;;
esac
exit "$code"
