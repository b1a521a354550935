#!/bin/sh
# tongs-agents-key.sh: the keypress client in POSIX sh (docs/server.md, "The shell client"): what the tmux keys and
# status line run. A served verb costs a shell, one mkfifo and the verb's work in the running keypress server, not a
# Node process. It sends the server only its PID, its argument count and its build: the server reads this process's
# arguments, environment and working directory from /proc/PID (exactly what the Node client would send), and answers
# on a FIFO of ours, one line each: r (ready: say go), o/e (a line of stdout/stderr), x (the exit code), f (refused:
# nothing ran). Whatever it cannot do as the Node client would (no server, no /proc, a terminal on stdout, another
# build, no answer within 2 s), the Node client does instead, with the same arguments. POSIX sh only (a test runs it
# under dash and bash).
#
# usage: sh tongs-agents-key.sh <node> <verb> [arguments...]

node=$1
shift
here=${0%/*}

case ${1-} in
list | status | next | focus | show | explain) ;;
*) exec "$node" "$here/tongs-agents.js" "$@" ;;
esac
# On a terminal the verb draws for its width and colours: the Node client knows them.
if [ -t 1 ] || [ "${TONGS_AGENTS_SERVER-}" = off ] || [ ! -r "/proc/$$/environ" ]; then
  exec "$node" "$here/tongs-agents.js" "$@"
fi

case ${TONGS_AGENTS_STATE_DIR-} in
/*) state=$TONGS_AGENTS_STATE_DIR ;;
*) case ${XDG_STATE_HOME-} in
  /*) state=$XDG_STATE_HOME/tongs-agents ;;
  *) state=${HOME-}/.local/state/tongs-agents ;;
  esac ;;
esac
dir=$state/server

# The server's FIFO is named for its PID: one whose process is gone (killed) is passed over.
fifo=
for candidate in "$dir"/keys.*; do
  if [ -p "$candidate" ] && kill -0 "${candidate##*.}" 2>/dev/null; then
    fifo=$candidate
    break
  fi
done
build=
[ -n "$fifo" ] && IFS= read -r build <"$here/../dist/build" 2>/dev/null
reply=$dir/reply.$$
if [ -z "$build" ] || ! mkfifo -m 600 "$reply" 2>/dev/null; then
  exec "$node" "$here/tongs-agents.js" "$@"
fi

# Ours is open before we ask, so the server, which opens it for writing without waiting, finds us reading: fd 4
# reads, and fd 3 holds a writer until the server's is open (a FIFO with no writer reads as its end). The server's
# is fd 5, for the request, `go` and `cancel` (a stopping server takes its name away first). O_RDWR opens (<>) never
# wait for the other end; `command` keeps a failed redirection from ending the shell.
if ! { command exec 3<>"$reply" 4<"$reply" 5<>"$fifo"; } 2>/dev/null; then
  rm -f "$reply"
  exec "$node" "$here/tongs-agents.js" "$@" 3>&- 4<&- 5>&-
fi
# A server that never answers (it died, or runs another verb past 2 s): the watchdog says t in its place, through
# fd 3 (the server may have taken our FIFO's name away already). A signal caught while a command runs is acted on
# after it, so $! in the trap is the sleep whenever one started; KILL, because a TERM that reaches the sleep between
# its fork and its exec is taken by the shell's trap, and lost.
(
  trap 'kill -s KILL $! 2>/dev/null; exit 0' TERM
  sleep 2 3>&- &
  wait $!
  printf 't\n' >&3
) </dev/null >/dev/null 2>&1 4<&- 5>&- &
watchdog=$!
printf '%s %s %s\n' "$$" "$#" "$build" >&5

ready=
code=
while IFS= read -r line; do
  case $line in
  o*) printf '%s\n' "${line#o}" ;;
  e*) printf '%s\n' "${line#e}" >&2 ;;
  x*)
    code=${line#x}
    break
    ;;
  r)
    # The server holds its end now: ours goes, so the server's closing reads as the end.
    ready=1
    exec 3>&-
    kill "$watchdog" 2>/dev/null
    printf 'g %s\n' "$$" >&5
    ;;
  *) [ -z "$ready" ] && break ;;
  esac
done <&4

if [ -z "$ready" ]; then
  # Nothing ran: tell the server not to wait for us, then the Node client runs the verb.
  kill "$watchdog" 2>/dev/null
  printf 'c %s\n' "$$" >&5
  rm -f "$reply"
  exec "$node" "$here/tongs-agents.js" "$@" 3>&- 4<&- 5>&-
fi
case $code in
'' | *[!0-9]*)
  printf 'tongs-agents: the server went away while running the command\n' >&2
  exit 1
  ;;
esac
exit "$code"
