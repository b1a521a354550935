// The tmux block tongs-agents owns in the user's tmux.conf: a picker key (a popup), a next key, and a status segment.
// Written between markers, replaced in place, and removed leaving the file exactly as it was.
import { shellQuote } from "../../src/core/shell-quote.ts";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { tmuxSync } from "./runner.ts";

export const BEGIN = "# >>> tongs-agents >>>";
export const END = "# <<< tongs-agents <<<";

export interface SetupOptions {
  /** Absolute path of the Node binary and of bin/tongs-agents.js. */
  readonly node: string;
  readonly cli: string;
  readonly pickerKey: string;
  readonly nextKey: string;
  /** The status segment: first in status-right (true), last in status-left ("left"), or none. */
  readonly status: boolean | "left";
  /** Start the keypress server (docs/server.md) whenever tmux reads the file. */
  readonly server: boolean;
  /** `tmux -V` parsed; popups need 3.2. */
  readonly tmuxVersion: readonly [number, number] | undefined;
}

/** Quote for tmux's config parser: single quotes take everything literally; a single quote forces double quotes. */
export function tmuxQuote(text: string): string {
  if (!text.includes("'")) return `'${text}'`;
  return `"${text.replace(/[\\"$]/g, "\\$&")}"`;
}

/** The version of the tmux on PATH (`tmux -V`); undefined when there is none. */
export function installedTmuxVersion(env?: NodeJS.ProcessEnv): [number, number] | undefined {
  return parseTmuxVersion(tmuxSync(["-V"], env ? { env } : {}).stdout);
}

export function parseTmuxVersion(output: string): [number, number] | undefined {
  const match = /tmux (?:next-)?(\d+)\.(\d+)/.exec(output);
  return match ? [Number(match[1]), Number(match[2])] : undefined;
}

export function popupsSupported(version: readonly [number, number] | undefined): boolean {
  return version !== undefined && (version[0] > 3 || (version[0] === 3 && version[1] >= 2));
}

/** The block's lines (without markers). */
export function blockBody(options: SetupOptions): string[] {
  const cli = `${shellQuote(options.node)} ${shellQuote(options.cli)}`;
  // With the server, the keys that print and return go through the shell client (bin/tongs-agents-key.sh, beside
  // bin/tongs-agents.js): no Node process per key or status tick while the server runs.
  const key = options.server ? `/bin/sh ${shellQuote(join(dirname(options.cli), "tongs-agents-key.sh"))} ${shellQuote(options.node)}` : cli;
  const lines = [
    "# Managed by `tongs-agents tmux-setup --write`; `tongs-agents tmux-setup --remove` takes it out. Edits here are replaced.",
  ];
  // run-shell expands #{client_tty} (display-popup does not expand formats in its command), and `popup` opens the
  // picker in a popup pinned to that client. Every command ends successfully, so run-shell never shows an error pane.
  if (popupsSupported(options.tmuxVersion))
    lines.push(`bind-key ${options.pickerKey} run-shell -b ${tmuxQuote(`${cli} popup --client "#{client_tty}" >/dev/null 2>&1 || true`)}`);
  else lines.push(`bind-key ${options.pickerKey} new-window -n agents ${tmuxQuote(`${cli} pick --client "#{client_tty}"`)}`);
  lines.push(`bind-key ${options.nextKey} run-shell -b ${tmuxQuote(`${key} next --client "#{client_tty}" >/dev/null 2>&1 || true`)}`);
  // In the background, at once: a no-op when this build's server runs; one of another build is replaced.
  if (options.server) lines.push(`run-shell -b ${tmuxQuote(`${cli} serve --detach >/dev/null 2>&1 || true`)}`);
  if (options.status) {
    lines.push(`set -g @tongs_agents_status ${tmuxQuote(`#(${key} status --format tmux)`)}`);
    const side = options.status === "left" ? "left" : "right";
    lines.push(`if-shell -F '#{m:*tongs_agents_status*,#{status-${side}}}' '' "${statusCommands(options.tmuxVersion, side)}"`);
  }
  return lines;
}

/** Columns the segment takes at most: four states, each a glyph and a count of up to three digits, and the spaces. */
export const STATUS_SEGMENT_WIDTH = 20;

/**
 * Put the segment first in status-right, once however often the file is sourced (the if-shell around this), and widen
 * status-right-length by the segment's width. tmux draws status-right cut to status-right-length, keeping its start:
 * the stock status-right (a 21-character pane title, the clock and the date) all but fills the stock length of 40,
 * so a segment appended at the end was never seen; first, it is seen whatever the length, and the wider length keeps
 * the user's own status-right (stock or a theme's) as whole as it was. `set -F` expands `#{status-right}` to the
 * option's text as written (formats, #(commands) and styles in it are kept, not run); `##` keeps our reference
 * unexpanded. The length is widened only when it is not the one we set last time (@tongs_agents_length), so sourcing
 * a file that resets status-right but not its length does not widen it again. Arithmetic in formats needs tmux 3.2.
 */
function statusCommands(version: SetupOptions["tmuxVersion"], side: "left" | "right"): string {
  // On the left, last: status-left is drawn cut to its length keeping its start too, and the session name that
  // starts it is what people look for there; the wider length keeps the segment in view.
  const put =
    side === "right"
      ? "set -gF status-right '##{E:@tongs_agents_status} #{status-right}'"
      : "set -gF status-left '#{status-left}##{E:@tongs_agents_status} '";
  if (!popupsSupported(version)) return put;
  const length = `status-${side}-length`;
  const widen = `set -gF ${length} '#{?#{==:#{${length}},#{@tongs_agents_length}},#{${length}},#{e|+:#{${length}},${STATUS_SEGMENT_WIDTH}}}'`;
  return [put, widen, `set -gF @tongs_agents_length '#{${length}}'`].join(" ; ");
}

interface Markers {
  /** Newlines added before the block when it was appended (restored by removal). */
  readonly separator: number;
  readonly createdFile: boolean;
}

function beginLine({ separator, createdFile }: Markers): string {
  return `${BEGIN} separator=${separator}${createdFile ? " created-file=1" : ""}`;
}

function findBlock(text: string): { start: number; end: number; markers: Markers } | undefined {
  const start = text.indexOf(BEGIN);
  if (start < 0) return undefined;
  const endMarker = text.indexOf(END, start);
  if (endMarker < 0) return undefined;
  let end = endMarker + END.length;
  if (text[end] === "\n") end++;
  const header = text.slice(start, text.indexOf("\n", start));
  const separator = Number(/separator=(\d)/.exec(header)?.[1] ?? "0");
  return { start, end, markers: { separator, createdFile: /created-file=1/.test(header) } };
}

/** The file's new text with our block written (replaced in place, or appended). */
export function withBlock(original: string | undefined, body: readonly string[]): string {
  const existing = original === undefined ? undefined : findBlock(original);
  if (original !== undefined && existing) {
    const block = [beginLine(existing.markers), ...body, END].join("\n") + "\n";
    return original.slice(0, existing.start) + block + original.slice(existing.end);
  }
  const text = original ?? "";
  const separator = text === "" ? 0 : text.endsWith("\n") ? 1 : 2;
  const block = [beginLine({ separator, createdFile: original === undefined }), ...body, END].join("\n") + "\n";
  return text + "\n".repeat(separator) + block;
}

/** The file's text without our block (exactly as before it was added), or undefined when the file should go. */
export function withoutBlock(text: string): { text: string | undefined; found: boolean } {
  const block = findBlock(text);
  if (!block) return { text, found: false };
  const before = text.slice(0, block.start);
  const after = text.slice(block.end);
  const trimmed = before.endsWith("\n".repeat(block.markers.separator)) ? before.slice(0, before.length - block.markers.separator) : before;
  const result = trimmed + after;
  return { text: block.markers.createdFile && result === "" ? undefined : result, found: true };
}

/** ~/.tmux.conf, or $XDG_CONFIG_HOME/tmux/tmux.conf when that is the one that exists (tmux 3.1+ reads both). */
export function tmuxConfPath(env: NodeJS.ProcessEnv, home: string): string {
  const classic = join(home, ".tmux.conf");
  const xdg = join(env.XDG_CONFIG_HOME || join(home, ".config"), "tmux", "tmux.conf");
  return !existsSync(classic) && existsSync(xdg) ? xdg : classic;
}
