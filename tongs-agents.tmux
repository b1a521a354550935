#!/usr/bin/env bash
# tongs-agents as a tmux plugin, in the tmux plugin manager's convention: with
#   set -g @plugin '<this repository>'
# in tmux.conf, TPM runs this file (and sourcing tmux.conf runs it again). It asks the installed `tongs-agents` for
# the tmux block (`tongs-agents tmux-setup`: the picker key, the next key, the status segment, the keypress server)
# and has tmux read it. Options, set before TPM's `run` line (docs/tmux-setup.md, "As a tmux plugin"):
#   @tongs-agents-picker-key  the key after the prefix that opens the picker (default a)
#   @tongs-agents-next-key    the key after the prefix that jumps to the next agent that needs you (default N)
#   @tongs-agents-status      where the status segment goes: right (default, first in status-right), left (last in
#                             status-left) or off
#   @tongs-agents-server      on (default) or off: the keypress server
# Without `tongs-agents` on tmux's PATH it binds nothing, says so in a message, and the segment's place says so too.
set -u

option() {
  local value
  value=$(tmux show-option -gqv "$1")
  printf '%s' "${value:-$2}"
}

side=$(option @tongs-agents-status right)
if ! command -v tongs-agents >/dev/null 2>&1; then
  message='tongs-agents: not on PATH (npm install -g tongs-agents), so no keys or status segment were set'
  tmux display-message "$message"
  # The message lasts seconds, and may come before any client is attached: the segment's place keeps saying it
  # (once, however often tmux.conf is read).
  notice='#[fg=red]tongs-agents not on PATH#[default] '
  case $side in
    off) ;;
    left)
      current=$(tmux show-option -gqv status-left)
      case $current in *"tongs-agents not on PATH"*) ;; *) tmux set -g status-left "$current$notice" ;; esac
      ;;
    *)
      current=$(tmux show-option -gqv status-right)
      case $current in *"tongs-agents not on PATH"*) ;; *) tmux set -g status-right "$notice$current" ;; esac
      ;;
  esac
  exit 0
fi

args=(tmux-setup --picker-key "$(option @tongs-agents-picker-key a)" --next-key "$(option @tongs-agents-next-key N)")
case $side in
  off) args+=(--no-status) ;;
  left) args+=(--status-left) ;;
  right) ;;
  *)
    tmux display-message "tongs-agents: @tongs-agents-status is right, left or off, not '$side'; using right"
    ;;
esac
[ "$(option @tongs-agents-server on)" = off ] && args+=(--no-server)

block=$(mktemp "${TMPDIR:-/tmp}/tongs-agents-tmux.XXXXXX") || exit 0
trap 'rm -f "$block"' EXIT
if ! error=$(tongs-agents "${args[@]}" 2>&1 >"$block"); then
  tmux display-message "tongs-agents: ${error:-tmux-setup failed}"
  exit 0
fi
tmux source-file "$block"
