// Human output for the CLI: one line per session. Fields are single display lines (src/core/terminal-text.ts); the
// writer (io.ts) makes the whole output safe for the terminal and adds the status colours.
import { formatAge } from "../core/age.ts";
import { shortenHome } from "../core/home.ts";
import { cutChars, displayLine } from "../core/terminal-text.ts";
import type { SessionView, ViewStatus } from "../fleet/view.ts";
import { contextCell, contextWords, limitWhen, quotaWords, rowDetail, shortCount, stateWord } from "../fleet/row-words.ts";
import type { Styled } from "./io.ts";

const STATUS_COLOR: Record<ViewStatus, number> = { waiting: 33, error: 31, idle: 32, running: 36, started: 36, discovered: 35, ended: 90 };

/** `text` in the colour of `status` (shown only on a colour terminal). */
export function colorStatus(status: ViewStatus, text: string): Styled {
  return { sgr: STATUS_COLOR[status], text };
}

/** `limited` for a turn a limit ended (its status is `error`), `stale` for a process gone, else the status. */
export function statusLabel(session: SessionView): string {
  return stateWord(session);
}

function pad(text: string, width: number): string {
  const length = [...text].length;
  return length >= width ? text : text + " ".repeat(width - length);
}

export function formatTable(
  sessions: readonly SessionView[],
  { now, width, home }: { now: number; width: number; home?: string | undefined },
): (string | Styled)[] {
  const rows = sessions.map((session) => ({
    id: session.short_id,
    harness: session.harness,
    status: statusLabel(session),
    view: session.status,
    age: formatAge(session.status_changed_at, now),
    context: contextCell(session.context),
    dir: displayLine(shortenHome(session.cwd, home)),
    detail: displayLine(rowDetail(session, now)),
  }));
  const header = { id: "ID", harness: "AGENT", status: "STATUS", age: "AGE", context: "CTX", dir: "DIRECTORY", detail: "DETAIL" };
  const widths = {
    id: Math.max(2, ...rows.map((row) => row.id.length)),
    harness: Math.max(5, ...rows.map((row) => row.harness.length)),
    status: Math.max(6, ...rows.map((row) => row.status.length)),
    age: Math.max(3, ...rows.map((row) => row.age.length)),
    context: Math.max(3, ...rows.map((row) => [...row.context].length)),
    dir: Math.min(36, Math.max(9, ...rows.map((row) => [...row.dir].length))),
  };
  const line = (row: typeof header, status: string | Styled): (string | Styled)[] => [
    `${pad(row.id, widths.id)}  ${pad(row.harness, widths.harness)}  `,
    status,
    `  ${pad(row.age, widths.age)}  ${pad(row.context, widths.context)}  ${pad(cutChars(row.dir, widths.dir), widths.dir)}  ${row.detail}`,
  ];
  const fixed = widths.id + widths.harness + widths.status + widths.age + widths.context + widths.dir + 12;
  const detailWidth = Math.max(10, width - fixed);
  const out = line(header, pad(header.status, widths.status));
  for (const row of rows)
    out.push("\n", ...line({ ...row, detail: cutChars(row.detail, detailWidth) }, colorStatus(row.view, pad(row.status, widths.status))));
  return out;
}

/** Only the hexadecimal form of an X11 window id is usual (xdotool, xwininfo); a record holds the decimal one. */
function hexWindow(id: string): string {
  return /^\d{1,10}$/.test(id) ? `0x${Number(id).toString(16)}` : id;
}

/**
 * Where the session's terminal is, innermost first, in each terminal's own words: `tmux work:2.1 (pane %7, server
 * /tmp/tmux-1000/default) in kitty window 3`. `tmuxPlace` is the pane's session:window.pane, looked up live (a
 * record keeps only the pane id, which stays the same while windows are moved or renumbered). Empty when nothing
 * was captured.
 */
export function formatTerminalPlace(terminal: SessionView["terminal"], tmuxPlace?: string): string {
  const env = terminal.env;
  const places: string[] = [];
  if (env.TMUX_PANE) {
    const server = env.TMUX?.split(",")[0];
    const where = [`pane ${env.TMUX_PANE}`, ...(server ? [`server ${server}`] : [])].join(", ");
    places.push(tmuxPlace ? `tmux ${tmuxPlace} (${where})` : `tmux ${where}`);
  }
  if (env.STY) places.push(`GNU screen session ${env.STY}${env.WINDOW ? ` window ${env.WINDOW}` : ""}`);
  const outer = places.length;
  if (env.KITTY_WINDOW_ID) places.push(`kitty window ${env.KITTY_WINDOW_ID}`);
  else if (env.WEZTERM_PANE) places.push(`WezTerm pane ${env.WEZTERM_PANE}`);
  else if (env.ITERM_SESSION_ID) places.push(`iTerm2 session ${env.ITERM_SESSION_ID}`);
  else if (env.TERM_PROGRAM === "Apple_Terminal") places.push(`Terminal.app${terminal.tty ? ` tab ${terminal.tty}` : ""}`);
  else if (env.TERM_PROGRAM && env.TERM_PROGRAM !== "tmux") places.push(env.TERM_PROGRAM); // tmux sets it to "tmux" in its panes
  // The X11 window only when no terminal above names its own window (kitty and others set WINDOWID too).
  if (env.WINDOWID && places.length === outer)
    places.push(`X11 window ${hexWindow(env.WINDOWID)}${env.DISPLAY ? ` on ${env.DISPLAY}` : ""}`);
  return places.join(" in ");
}

export function formatDetails(session: SessionView, now: number, { tmuxPlace }: { tmuxPlace?: string } = {}): string {
  const fields: [string, string][] = [
    ["id", session.id],
    ["short id", session.short_id],
    ["agent", `${session.harness_name} (${session.harness})`],
    [
      "status",
      session.stale ? `${session.status} (stale: ${session.stale_reason}; last event said ${session.recorded_status})` : session.status,
    ],
    ["detail", session.detail],
    ["directory", session.cwd],
    ["pid", session.pid === null ? "unknown" : String(session.pid)],
    ["identity", session.identity],
    ["session id", session.session_id],
    ["instance id", session.instance_id],
    ["last event", session.last_event],
    ["changed", `${formatAge(session.status_changed_at, now)} ago (${session.status_changed_at})`],
    ["said by", `${session.state_source}, ${session.state_age_s} s ago`],
    ["started", session.created_at],
    ["launch id", session.launch_id],
    ["profile", session.profile_id],
    ["terminal", formatTerminalPlace(session.terminal, tmuxPlace)],
    ["tty", session.terminal.tty ?? ""],
  ];
  if (session.terminal.unprovable) fields.push(["terminal note", session.terminal.unprovable]);
  fields.push(...usageFields(session, now));
  const shown = fields.filter(([, value]) => value !== "");
  const width = Math.max(...shown.map(([key]) => key.length)) + 2;
  return shown.map(([key, value]) => `${pad(`${key}:`, width)}${displayLine(value)}`).join("\n");
}

/** What the session states about itself (docs/limits.md): `—` where its harness states nothing. */
function usageFields(session: SessionView, now: number): [string, string][] {
  if (session.identity === "discovered") return [];
  const { limit, tokens } = session;
  const fields: [string, string][] = [];
  if (limit) {
    const window = limit.window === null ? "" : `, window ${limit.window}`;
    fields.push(["limit", `${limit.kind} (stated as ${limit.stated}${window}): ${limitWhen(limit, now)}`]);
    if (limit.resets_at !== null) fields.push(["limit resets", limit.resets_at]);
  }
  fields.push(["model", session.model ?? "—"]);
  fields.push(["context", contextWords(session.context)]);
  const counted = tokens
    ? `${shortCount(tokens.input)} in, ${shortCount(tokens.output)} out, ${shortCount(tokens.cache_read)} cache read, ${shortCount(tokens.cache_write)} cache write${tokens.complete ? "" : " (since tongs-agents first read it)"}`
    : "—";
  fields.push(["tokens", counted]);
  if (session.quota.length === 0) fields.push(["quota", "—"]);
  for (const window of session.quota) fields.push(["quota", quotaWords(window, now)]);
  if (session.compacting) fields.push(["compacting", "yes"]);
  for (const agent of session.subagents)
    fields.push(["subagent", `${agent.type || "(no type)"} ${agent.id}, since ${formatAge(agent.since, now)} ago`]);
  return fields;
}
