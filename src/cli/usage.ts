// `tongs-agents help`: every verb on a line or two. The harness lists come from the registry: adding a harness changes
// no text here.
import { DEFAULT_INSTALL_IDS, findHarness, HARNESSES, INSTALL_OPTIONS, INSTALLABLE_IDS } from "../harnesses/registry.ts";

const AGENTS = `${INSTALLABLE_IDS.join("|")}|all`;
const DEFAULTS = DEFAULT_INSTALL_IDS.map((id) => findHarness(id)?.displayName ?? id).join(" and ");
const OPTIONS = INSTALL_OPTIONS.map((option) => ` [--${option.name}]`).join("");

export const USAGE = `tongs-agents: which AI coding agent needs you now, and take me to it

Usage:
  tongs-agents list [--json] [--all] [--watch]
                                         sessions sorted by attention; --watch keeps it on screen
  tongs-agents show <query> [--json]     one session (id, short id, session id prefix or PID)
  tongs-agents explain <query> [--json]  why it shows that state: its last events, their source, what each changed
  tongs-agents focus <query> [--json] [--client <tty>]
                                         jump to the session's pane, tab and window
  tongs-agents answer <query> <reply|show> [--wait <id>] [--json]
                                         reply to a waiting session's dialog (allow, always, deny, <n>, ...), guarded
  tongs-agents pick [--client <tty>]     full-screen picker (tmux popup or any terminal); Enter jumps
  tongs-agents next [--client <tty>]     jump to the session that most needs you (repeat to cycle)
  tongs-agents wait <query> [--until waiting|idle|error|ended|attention] [--timeout SECONDS] [--json]
                                         return once the session is in that state (default: attention)
  tongs-agents status [--format tmux|plain|json]
                                         counts by state, for a status line
  tongs-agents tmux-setup [--write|--remove] [--picker-key a] [--next-key N] [--no-status]
                                         tmux bindings: picker popup, next, status segment
  tongs-agents popup --client <tty>      open the picker in a tmux popup (what the binding runs)
  tongs-agents launch [--profile NAME] [--window|--here] -- <command...>
                                         start an agent with a launch id (new tmux window by default)
  tongs-agents notify [--test] [--json]  notification settings and the channels found here; --test sends one
  tongs-agents notify mute [DURATION] | unmute | webhook add URL [--ntfy] | webhook remove N
                                         silence every channel for a while; post to a webhook or an ntfy topic
  tongs-agents hosts [list|add NAME [DESTINATION]|remove NAME]
                                         SSH hosts whose agents are listed with this machine's
  tongs-agents prune [--dry-run]         remove ended and stale records
  tongs-agents serve [--detach|--stop|--status]
                                         the keypress server: list, status, next, focus, show, explain, pick start faster
  tongs-agents install [--agent ${AGENTS}]... [--dry-run [--verbose]]${OPTIONS} [--hook shim|sync] [--json]
                                         add our hooks and MCP server (default: ${DEFAULTS})
  tongs-agents uninstall [--agent ${AGENTS}]... [--dry-run] [--purge] [--json]
                                         remove only what install added
  tongs-agents doctor [--agent ...] [--json]
                                         per harness: installed?, version, hooks current?, what to do
  tongs-agents demo [--no-attach]        simulated agents on a private tmux server, and the picker
  tongs-agents mcp                       MCP server on stdio (tools: list, get, explain, attention, wait, focus,
                                         cleanup)
  tongs-agents completion bash|zsh|fish  the shell completion script (README: the line for your shell's rc file)
  tongs-agents help [<command>]          this text, or that command's options and an example (also: <command> --help)
  tongs-agents --version                 the version and build
  Every command takes --color=always|never|auto (auto: colour on a terminal, none with NO_COLOR set).

The hook command, for harness configuration: tongs-agents-hook <event> --agent <${HARNESSES.map((harness) => harness.id).join("|")}>

Examples:
  tongs-agents list
  tongs-agents focus webapp
  tongs-agents install --dry-run`;
