// The picker's state and what each key does to it. Pure: the terminal loop (tui.ts) feeds keys and performs effects.
import { ATTENTION_ORDER, rankOf, sortByAttention, type AttentionRank } from "../fleet/attention.ts";
import type { SeenMarks } from "../fleet/seen.ts";
import type { SessionView } from "../fleet/view.ts";
import type { OpenDialog } from "../answer/service.ts";

export interface Row {
  readonly session: SessionView;
  readonly rank: AttentionRank;
  readonly branch: string | undefined;
  /** The configured host the row came from; empty for this machine. */
  readonly host: string;
  /** What identifies the row across machines: the id here, `HOST<tab>ID` for a host's row (ids may repeat across hosts). */
  readonly key: string;
}

export interface PickerModel {
  readonly rows: readonly Row[];
  readonly query: string;
  /** Selection by row key, so it stays on the same session when rows update live. */
  readonly selectedKey: string | undefined;
  readonly preview: boolean;
  /** One line shown above the footer (a focus failure, what was pruned). */
  readonly message: string;
  /** One line per host whose last read was not fine (unreachable, failed, rows left out), saying why. */
  readonly hostNotes: readonly string[];
  /** Answering a waiting row (Ctrl-R): its open dialog, read from its pane, whose options a digit picks. */
  readonly answering?: AnswerPanel | undefined;
}

export interface AnswerPanel {
  /** The row being answered, by key. */
  readonly key: string;
  /** The open wait and the dialog shown for it; absent while it is being read. */
  readonly open?: OpenDialog;
  /** A reply is on its way: no other key until it is done. */
  readonly sending: boolean;
}

export type Key =
  | "up"
  | "down"
  | "enter"
  | "escape"
  | "backspace"
  | "clear-query"
  | "delete-word"
  | "toggle-preview"
  | "prune"
  | "answer"
  | "quit"
  | { char: string }
  /** Focus the nth shown row (Alt-1 .. Alt-9). */
  | { jump: number };

export type Effect =
  | { kind: "none" }
  | { kind: "quit" }
  | { kind: "focus"; row: Row }
  | { kind: "prune" }
  | { kind: "selection-changed" }
  /** Read the row's open wait and the dialog its pane shows. */
  | { kind: "read-dialog"; row: Row }
  /** Send the option numbered `number` of the dialog `open`, as shown: that wait, that dialog, or nothing. */
  | { kind: "answer"; row: Row; open: OpenDialog; number: number };

const NONE: Effect = { kind: "none" };

export function buildRows(sessions: readonly SessionView[], seen: SeenMarks, branchOf: (cwd: string) => string | undefined): Row[] {
  return sortByAttention(sessions, seen).map((session) => ({
    session,
    rank: rankOf(session, seen),
    branch: session.cwd ? branchOf(session.cwd) : undefined,
    host: "",
    key: session.id,
  }));
}

/** One host's rows, ranked as that host ranked them (it holds its own seen marks); no branch (its disk is not ours). */
export function hostRows(host: string, sessions: readonly (SessionView & { readonly attention: AttentionRank })[]): Row[] {
  return sessions.map(({ attention, ...session }) => ({
    session,
    rank: attention,
    branch: undefined,
    host,
    key: `${host}\t${session.id}`,
  }));
}

/** This machine's rows and the hosts' in one attention order: by each row's rank, then the most recent change. */
export function mergeRows(groups: readonly (readonly Row[])[]): Row[] {
  return groups
    .flat()
    .map((row) => ({ row, rank: ATTENTION_ORDER.indexOf(row.rank), changed: Date.parse(row.session.status_changed_at) }))
    .sort((a, b) => a.rank - b.rank || b.changed - a.changed || (a.row.key < b.row.key ? -1 : a.row.key > b.row.key ? 1 : 0))
    .map((entry) => entry.row);
}

export function initialModel(rows: readonly Row[]): PickerModel {
  return { rows, query: "", selectedKey: rows[0]?.key, preview: false, message: "", hostNotes: [] };
}

/** Replace the rows (a live update), keeping the selection on the same session when it is still shown. */
export function withRows(model: PickerModel, rows: readonly Row[], hostNotes: readonly string[] = model.hostNotes): PickerModel {
  const next = { ...model, rows, hostNotes };
  const visible = visibleRows(next);
  return visible.some((row) => row.key === model.selectedKey) ? next : { ...next, selectedKey: visible[0]?.key };
}

function haystack(row: Row): string {
  const { session } = row;
  return [
    row.host,
    session.short_id,
    session.harness,
    session.harness_name,
    row.rank,
    session.status,
    session.cwd,
    row.branch ?? "",
    session.detail,
    session.profile_id,
    session.session_id,
    session.pid ?? "",
  ]
    .join(" ")
    .toLowerCase();
}

/** Every whitespace-separated word of the query must appear somewhere in the row. */
export function visibleRows(model: Pick<PickerModel, "rows" | "query">): Row[] {
  const words = model.query.toLowerCase().split(/\s+/).filter(Boolean);
  return words.length === 0 ? [...model.rows] : model.rows.filter((row) => words.every((word) => haystack(row).includes(word)));
}

export function selectedIndex(model: PickerModel): number {
  return Math.max(
    0,
    visibleRows(model).findIndex((row) => row.key === model.selectedKey),
  );
}

function move(model: PickerModel, delta: number): { model: PickerModel; effect: Effect } {
  const visible = visibleRows(model);
  if (visible.length === 0) return { model, effect: NONE };
  const index = (selectedIndex(model) + delta + visible.length) % visible.length;
  return { model: { ...model, selectedKey: visible[index]?.key, message: "" }, effect: { kind: "selection-changed" } };
}

function setQuery(model: PickerModel, query: string): { model: PickerModel; effect: Effect } {
  const next = { ...model, query, message: "" };
  const visible = visibleRows(next);
  const keep = visible.some((row) => row.key === model.selectedKey);
  return { model: { ...next, selectedKey: keep ? model.selectedKey : visible[0]?.key }, effect: { kind: "selection-changed" } };
}

/** Ctrl-R on the selected row: open the answer panel where there is a wait to answer here, else say why not. */
function startAnswer(model: PickerModel): { model: PickerModel; effect: Effect } {
  const row = visibleRows(model)[selectedIndex(model)];
  if (!row) return { model, effect: NONE };
  const { session } = row;
  const why =
    row.host !== ""
      ? `answering ${row.host}'s agents from the picker is not possible yet: run tongs-agents answer ${session.short_id} on ${row.host}`
      : session.status !== "waiting"
        ? `nothing to answer: ${session.short_id} is ${session.status}`
        : undefined;
  if (why !== undefined) return { model: { ...model, message: why }, effect: NONE };
  return { model: { ...model, message: "", answering: { key: row.key, sending: false } }, effect: { kind: "read-dialog", row } };
}

/** Keys while the answer panel is open: a digit sends that option, Esc closes the panel; nothing else types or moves. */
function answerKey(model: PickerModel, panel: AnswerPanel, key: Key): { model: PickerModel; effect: Effect } {
  if (key === "quit") return { model, effect: { kind: "quit" } };
  if (key === "escape" && !panel.sending) return { model: { ...model, answering: undefined, message: "" }, effect: NONE };
  if (typeof key !== "object" || !("char" in key) || !/^[1-9]$/.test(key.char) || !panel.open || panel.sending)
    return { model, effect: NONE };
  const number = Number(key.char);
  if (!panel.open.dialog.options.some((option) => option.number === number))
    return { model: { ...model, message: `the dialog has no option ${number}` }, effect: NONE };
  const row = model.rows.find((candidate) => candidate.key === panel.key);
  if (!row) return { model: { ...model, answering: undefined, message: "the session left the list; nothing sent" }, effect: NONE };
  return {
    model: { ...model, answering: { ...panel, sending: true }, message: `sending option ${number}…` },
    effect: { kind: "answer", row, open: panel.open, number },
  };
}

/** The read for the panel came back: show the dialog, or close the panel and say why there is nothing to answer. */
export function withDialog(
  model: PickerModel,
  key: string,
  read: OpenDialog | { readonly ok: false; readonly detail: string },
): PickerModel {
  if (model.answering?.key !== key || model.answering.open) return model;
  return read.ok ? { ...model, answering: { ...model.answering, open: read } } : { ...model, answering: undefined, message: read.detail };
}

/** The answer is done (sent or refused): close the panel, and say what happened. */
export function answerDone(model: PickerModel, message: string): PickerModel {
  return { ...model, answering: undefined, message };
}

/**
 * Keys (docs in the README, "pick"), after fzf: every printable character types into the filter; actions are on
 * arrows and control keys (Up/Down, Ctrl-P/Ctrl-N, Ctrl-K/Ctrl-J and Tab/Shift-Tab move; Enter focuses; Ctrl-T
 * toggles the preview; Ctrl-X removes ended and stale sessions; Ctrl-R answers the selected waiting row, its keys then
 * the panel's (answerKey); Ctrl-U clears the filter, Ctrl-W its last word; Esc clears the filter, else closes; Ctrl-C,
 * Ctrl-D, Ctrl-G and Ctrl-Q close); row jumps are on keys that type nothing (Alt-1 .. Alt-9 focus that shown row).
 */
export function handleKey(model: PickerModel, key: Key): { model: PickerModel; effect: Effect } {
  if (model.answering) return answerKey(model, model.answering, key);
  if (typeof key === "object") {
    if ("char" in key) return setQuery(model, model.query + key.char);
    const row = visibleRows(model)[key.jump - 1];
    return row ? { model: { ...model, selectedKey: row.key }, effect: { kind: "focus", row } } : { model, effect: NONE };
  }
  switch (key) {
    case "up":
      return move(model, -1);
    case "down":
      return move(model, 1);
    case "enter": {
      const row = visibleRows(model)[selectedIndex(model)];
      return row ? { model, effect: { kind: "focus", row } } : { model, effect: NONE };
    }
    case "backspace":
      return setQuery(model, [...model.query].slice(0, -1).join(""));
    case "clear-query":
      return setQuery(model, "");
    case "delete-word":
      return setQuery(model, model.query.replace(/\S*\s*$/, ""));
    case "escape":
      return model.query === "" ? { model, effect: { kind: "quit" } } : setQuery(model, "");
    case "toggle-preview":
      return { model: { ...model, preview: !model.preview }, effect: { kind: "selection-changed" } };
    case "prune":
      return { model, effect: { kind: "prune" } };
    case "answer":
      return startAnswer(model);
    case "quit":
      return { model, effect: { kind: "quit" } };
  }
}

/** Decode terminal input (raw mode) into keys. Unknown escape sequences are ignored, never typed into the filter. */
export function decodeKeys(data: string): Key[] {
  const keys: Key[] = [];
  for (let index = 0; index < data.length;) {
    const rest = data.slice(index);
    // eslint-disable-next-line no-control-regex
    const sequence = /^\u001b(?:\[[0-9;]*[A-Za-z~]|O[A-Za-z])/.exec(rest);
    if (sequence) {
      const code = sequence[0];
      if (code.endsWith("A")) keys.push("up");
      else if (code.endsWith("B")) keys.push("down");
      else if (code === "\u001b[Z") keys.push("up"); // Shift-Tab
      index += code.length;
      continue;
    }
    // Alt-<key> arrives as Esc and the key: Alt-1 .. Alt-9 jump to that row; other Alt keys do nothing.
    // eslint-disable-next-line no-control-regex
    const alt = /^\u001b([\x20-\x7e])/.exec(rest);
    if (alt) {
      if (/^[1-9]$/.test(alt[1] as string)) keys.push({ jump: Number(alt[1]) });
      index += 2;
      continue;
    }
    const char = String.fromCodePoint(rest.codePointAt(0) as number);
    index += char.length;
    if (char === "\u001b") keys.push("escape");
    else if (char === "\r") keys.push("enter");
    else if (char === "\t" || char === "\u000e" || char === "\n")
      keys.push("down"); // Tab, Ctrl-N, Ctrl-J
    else if (char === "\u0010" || char === "\u000b")
      keys.push("up"); // Ctrl-P, Ctrl-K
    else if (char === "\u007f" || char === "\b") keys.push("backspace");
    else if (char === "\u0015")
      keys.push("clear-query"); // Ctrl-U
    else if (char === "\u0017")
      keys.push("delete-word"); // Ctrl-W
    else if (char === "\u0014")
      keys.push("toggle-preview"); // Ctrl-T
    else if (char === "\u0018")
      keys.push("prune"); // Ctrl-X
    else if (char === "\u0012")
      keys.push("answer"); // Ctrl-R
    else if (char === "\u0003" || char === "\u0004" || char === "\u0007" || char === "\u0011")
      keys.push("quit"); // Ctrl-C, Ctrl-D, Ctrl-G, Ctrl-Q
    else if (char >= " ") keys.push({ char });
  }
  return keys;
}
