// The terminal facts a focus backend needs, taken from the harness's environment through an allowlist. Nothing else
// from the environment is stored.
import { LIMITS, byteLength, isStorableText } from "./bounds.ts";
import type { Terminal } from "./schema.ts";

/** Variables that locate a terminal pane, tab or window; each is read by a focus backend (docs/focus.md). */
export const TERMINAL_ENV_KEYS = [
  "TMUX",
  "TMUX_PANE",
  "KITTY_WINDOW_ID",
  "KITTY_LISTEN_ON",
  "KITTY_PID",
  "WEZTERM_PANE",
  "WEZTERM_UNIX_SOCKET",
  "ITERM_SESSION_ID",
  "TERM_SESSION_ID",
  "TERM_PROGRAM",
  "WINDOWID",
  "DISPLAY",
  "STY",
  "WINDOW",
  "SCREENDIR",
] as const;

export function captureTerminal(
  env: NodeJS.ProcessEnv,
  { tty, unprovable }: { tty?: string | undefined; unprovable?: string | undefined } = {},
): Terminal {
  const captured: Record<string, string> = {};
  if (unprovable === undefined) {
    for (const key of TERMINAL_ENV_KEYS) {
      const value = env[key];
      if (value !== undefined && value !== "" && isStorableText(value) && byteLength(value) <= LIMITS.envValueBytes) captured[key] = value;
    }
  }
  const terminal: Terminal = { env: captured };
  if (unprovable !== undefined) terminal.unprovable = unprovable;
  else if (tty !== undefined && byteLength(tty) <= LIMITS.ttyBytes) terminal.tty = tty;
  return terminal;
}
