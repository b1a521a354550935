// One picker frame as terminal lines: header, filter, rows, optional preview, message, key hints. Every text goes
// through fit(), which cuts it to its width by display columns after making it safe for the terminal (every control
// character visible, src/core/terminal-text.ts); the only escape sequences in a frame are the picker's own colours.
import { formatAge } from "../core/age.ts";
import { displayLine, visibleText } from "../core/terminal-text.ts";
import type { AttentionRank } from "../fleet/attention.ts";
import { contextCell, rowDetail } from "../fleet/row-words.ts";
import { selectedIndex, visibleRows, type AnswerPanel, type PickerModel, type Row } from "./model.ts";

export const GLYPHS: Record<AttentionRank, { glyph: string; color: string; label: string }> = {
  waiting: { glyph: "●", color: "33;1", label: "waiting" },
  error: { glyph: "✖", color: "31;1", label: "error" },
  "idle-unseen": { glyph: "◆", color: "32;1", label: "done" },
  running: { glyph: "▶", color: "36", label: "running" },
  started: { glyph: "○", color: "36", label: "started" },
  idle: { glyph: "✓", color: "32", label: "idle" },
  discovered: { glyph: "◇", color: "35", label: "found" },
  ended: { glyph: "·", color: "90", label: "ended" },
};
/** A turn a limit ended: ranked and coloured as an error, told apart by its glyph and word. */
const LIMITED = { glyph: "⧖", color: "31;1", label: "limited" };

/** Display columns of one code point: wide East Asian and emoji ranges take two, combining marks none. */
function columnsOf(codePoint: number): number {
  if ((codePoint >= 0x300 && codePoint <= 0x36f) || (codePoint >= 0x200b && codePoint <= 0x200f) || codePoint === 0xfe0f) return 0;
  if (
    (codePoint >= 0x1100 && codePoint <= 0x115f) ||
    (codePoint >= 0x2e80 && codePoint <= 0xa4cf) ||
    (codePoint >= 0xac00 && codePoint <= 0xd7a3) ||
    (codePoint >= 0xf900 && codePoint <= 0xfaff) ||
    (codePoint >= 0xfe30 && codePoint <= 0xfe4f) ||
    (codePoint >= 0xff00 && codePoint <= 0xff60) ||
    (codePoint >= 0xffe0 && codePoint <= 0xffe6) ||
    (codePoint >= 0x1f300 && codePoint <= 0x1faff) ||
    (codePoint >= 0x20000 && codePoint <= 0x3fffd)
  )
    return 2;
  return 1;
}

export function displayWidth(text: string): number {
  let width = 0;
  for (const char of text) width += columnsOf(char.codePointAt(0) as number);
  return width;
}

/**
 * Text made safe for the terminal (a newline or tab a space, anything else it could act on visible), cut to `width`
 * columns (an ellipsis marks a cut) and padded to exactly `width`.
 */
export function fit(raw: string, width: number): string {
  if (width <= 0) return "";
  const text = visibleText(raw).replace(/[\n\t]/g, " ");
  let out = "";
  let used = 0;
  const total = displayWidth(text);
  const budget = total > width ? width - 1 : width;
  for (const char of text) {
    const columns = columnsOf(char.codePointAt(0) as number);
    if (used + columns > budget) break;
    out += char;
    used += columns;
  }
  if (total > width) {
    out += "…";
    used += 1;
  }
  return out + " ".repeat(Math.max(0, width - used));
}

/** Where a session works: the directory's last part, with the branch when known (`webapp@main`). */
export function placeOf(row: Row, home: string): string {
  const cwd = row.session.cwd;
  const shown = home !== "/" && (cwd === home || cwd.startsWith(`${home}/`)) ? `~${cwd.slice(home.length)}` : cwd;
  const tail = shown.split("/").filter(Boolean).slice(-2).join("/") || shown;
  return row.branch ? `${tail}@${row.branch}` : tail;
}

/**
 * The answer panel: the row's open wait and its dialog as read from the pane (the request, the question, the options
 * numbered as shown, with the reply each gives), and the keys that work while it is open. Its first line is the rule.
 */
function answerPanel(panel: AnswerPanel, model: PickerModel): { title: string; lines: string[]; footer: string } {
  const row = model.rows.find((candidate) => candidate.key === panel.key);
  const name = row ? `${row.session.short_id} (${row.session.harness})` : "";
  if (!panel.open) return { title: `answer ${name}`, lines: ["", "  reading the dialog from its pane…"], footer: "esc cancel" };
  const { wait, dialog } = panel.open;
  const options = dialog.options.map(
    (option) => `  ${option.number}. ${displayLine(option.label)}${option.reply ? `   → ${option.reply}` : "   → only by its number"}`,
  );
  const context = dialog.context.slice(-4).map((line) => `  │ ${displayLine(line)}`);
  return {
    title: `answer ${name} · wait ${wait.id} · ${wait.kind}${wait.tool ? `: ${wait.tool}` : ""}`,
    lines: ["", ...context, `  ${displayLine(dialog.title)}`, ...options],
    footer: panel.sending ? "sending…" : `1…${dialog.options.length} send that reply · esc cancel`,
  };
}

export interface FrameOptions {
  readonly width: number;
  readonly height: number;
  readonly now: number;
  readonly color: boolean;
  readonly home: string;
  /** Lines of the selected session's pane, when the preview is on and could be captured. */
  readonly preview?: readonly string[] | undefined;
  readonly previewNote?: string;
}

export function renderFrame(model: PickerModel, options: FrameOptions): string[] {
  const { width, height, now, color } = options;
  const paint = (code: string, text: string) => (color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const visible = visibleRows(model);
  const selected = selectedIndex(model);
  const counts = new Map<AttentionRank, number>();
  for (const row of model.rows) counts.set(row.rank, (counts.get(row.rank) ?? 0) + 1);
  const summary = (["waiting", "error", "idle-unseen", "running"] as const)
    .filter((rank) => counts.get(rank))
    .map((rank) => `${counts.get(rank)} ${GLYPHS[rank].label}`);

  const lines: string[] = [];
  lines.push(
    paint(
      "1",
      fit(
        `tongs-agents  ${model.rows.length} session${model.rows.length === 1 ? "" : "s"}${summary.length ? `  ·  ${summary.join(" · ")}` : ""}`,
        width,
      ),
    ),
  );
  lines.push(fit(`> ${model.query}${model.query ? "" : "type to filter"}`, width));

  const panel = model.answering ? answerPanel(model.answering, model) : undefined;
  const footer = paint(
    "90",
    fit(panel?.footer ?? "enter focus · alt-1…9 jump · ↑↓ move · ^R answer · ^T preview · ^X clear ended · esc quit", width),
  );
  const messageLines = model.message ? 1 : 0;
  // A host that gave no rows keeps one line (the list gives way), so it is never silently missing.
  const notes = model.hostNotes.map((note) => paint("31", fit(`  ? ${displayLine(note)}`, width)));
  const available = Math.max(1, height - lines.length - 1 - messageLines - notes.length);
  // The answer panel takes the preview's place, as much of the screen as it needs (the list keeps at least a line).
  const previewHeight = panel ? Math.min(panel.lines.length, available - 1) : model.preview ? Math.floor(available / 2) : 0;
  const listHeight = available - previewHeight;

  // Keep the selection in view.
  const start = Math.min(Math.max(0, selected - listHeight + 1), Math.max(0, visible.length - listHeight));
  const shown = visible.slice(start, start + listHeight);
  const ageWidth = 4;
  const harnessWidth = Math.max(6, ...visible.map((row) => row.session.harness.length));
  const labelWidth = 7;
  // The host column appears once hosts are configured (empty for this machine's rows).
  const hostWidth =
    model.rows.some((row) => row.host !== "") || notes.length > 0 ? Math.max(4, ...visible.map((row) => row.host.length)) : 0;
  const placeWidth = Math.min(32, Math.max(10, ...visible.map((row) => displayWidth(placeOf(row, options.home)))));
  if (visible.length === 0)
    lines.push(paint("90", fit(model.rows.length === 0 ? "  no agent sessions" : "  nothing matches the filter", width)));
  for (const [offset, row] of shown.entries()) {
    const index = start + offset;
    const style = row.rank === "error" && row.session.limit ? LIMITED : GLYPHS[row.rank];
    const number = index < 9 ? String(index + 1) : " ";
    const profile = row.session.profile_id ? ` [${row.session.profile_id}]` : "";
    const context = row.session.context ? `${contextCell(row.session.context)} ` : "";
    const detail = context + displayLine(row.session.stale ? `stale: ${row.session.stale_reason}` : rowDetail(row.session, now)) + profile;
    const label = fit(style.label, labelWidth);
    const host = hostWidth > 0 ? ` ${fit(row.host, hostWidth)}` : "";
    const columns = `${host} ${fit(row.session.harness, harnessWidth)} ${fit(displayLine(placeOf(row, options.home)), placeWidth)} ${fit(formatAge(row.session.status_changed_at, now), ageWidth)} `;
    const used = 2 + 1 + 1 + labelWidth + displayWidth(columns);
    const rest = `${columns}${fit(detail, Math.max(0, width - used))}`;
    if (index === selected)
      lines.push(color ? `\u001b[7m${number} ${style.glyph} ${label}${rest}\u001b[0m` : `${number}>${style.glyph} ${label}${rest}`);
    else lines.push(`${number} ${paint(style.color, style.glyph)} ${paint(style.color, label)}${rest}`);
  }
  while (lines.length < 2 + listHeight) lines.push(" ".repeat(width));
  lines.push(...notes);

  if (panel) {
    const title = `── ${panel.title} `;
    lines.push(paint("33", fit(title + "─".repeat(Math.max(0, width - displayWidth(title))), width)));
    for (const line of panel.lines.slice(1, previewHeight)) lines.push(fit(line, width));
  } else if (model.preview) {
    const note = options.previewNote ?? "";
    // The rule runs exactly to the edge: longer, fit() would mark it as cut with an ellipsis.
    const title = `── preview ${note ? `(${note}) ` : ""}`;
    lines.push(paint("90", fit(title + "─".repeat(Math.max(0, width - displayWidth(title))), width)));
    const body = (options.preview ?? []).slice(-(previewHeight - 1));
    for (let index = 0; index < previewHeight - 1; index++) lines.push(fit(body[index] ?? "", width));
  }
  if (model.message) lines.push(paint("33", fit(model.message, width)));
  lines.push(footer);
  return lines.slice(0, height);
}
