// Size and content bounds, enforced before anything is written (docs/contract.md, "Bounds").

export const LIMITS = {
  /** The whole normalized (fleet-event) payload, and each stored record, in bytes. */
  inputBytes: 64 * 1024,
  recordBytes: 64 * 1024,
  /**
   * How much of stdin the hook reads: native payloads carry tool inputs and responses (a file read or written, a
   * command's output) of which a record keeps nothing. 16 MiB is far above any payload seen (issue: 70-80 KB) and
   * reads in well under the input's time bound (docs/reliability.md). Past it, the prefix is used (hook-input.ts).
   */
  stdinBytes: 16 * 1024 * 1024,
  /** The prefix of a native payload's free text (tool name, last message, notification type) that is kept. */
  keptTextBytes: 8 * 1024,
  /** Native session ids and instance ids. */
  idBytes: 512,
  cwdBytes: 4096,
  detailBytes: 512,
  toolBytes: 256,
  eventIdBytes: 128,
  /** Terminal environment map captured into a record. */
  envEntries: 32,
  envKeyBytes: 64,
  envValueBytes: 1024,
  ttyBytes: 64,
  processStartBytes: 160,
  /** A harness's transcript file (Claude's `transcript_path`, Codex's rollout): an absolute `.jsonl` path. */
  transcriptPathBytes: 1024,
  /** A harness's id for one tool call (Claude Code `toolu_...`, Codex `call_...`); a longer one is not kept. */
  toolUseIdBytes: 128,
  /** Waits a record keeps open at once (permission dialogs, questions), and running tools that may have asked. */
  pendingWaits: 8,
  waitCandidates: 8,
  runningTools: 16,
  /** Subagents a record keeps (started and not yet stopped). */
  subagents: 16,
  /** A model's name as a harness states it. */
  modelBytes: 128,
  /** A record's history (docs/contract.md, "History"): entries, and the bound of each entry's text. */
  historyEntries: 8,
  historyTextBytes: 200,
  /** Queued events applied per record write (their entry names are kept in the record until the next write). */
  queueBatch: 32,
  /** Timestamps in a record may be at most this far in the future (clock skew between writers). */
  futureSkewMs: 5 * 60 * 1000,
} as const;

export function byteLength(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** Text we are willing to store: well-formed Unicode (so valid UTF-8) without NUL. */
export function isStorableText(text: string): boolean {
  return text.isWellFormed() && !text.includes("\0");
}

// C0/C1 controls (ESC included, so ANSI sequences lose their teeth), DEL, and the bidirectional overrides and isolates
// that can make a line read differently from what it contains.
// eslint-disable-next-line no-control-regex
const NOT_STORED = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * One line of a harness's free text as a record keeps it (a tool name, a last reply): those characters become spaces,
 * runs of whitespace one space. What reaches a terminal is made safe apart, whatever its source
 * (src/core/terminal-text.ts).
 */
export function toDisplayLine(text: string): string {
  return text.replace(NOT_STORED, " ").replace(/\s+/g, " ").trim();
}

/** Cut text to at most `maxBytes` UTF-8 bytes on a code point boundary, marking the cut with an ellipsis. */
export function truncateBytes(text: string, maxBytes: number): string {
  if (byteLength(text) <= maxBytes) return text;
  const ellipsis = "…";
  const budget = maxBytes - byteLength(ellipsis);
  let out = "";
  let used = 0;
  for (const char of text) {
    const size = byteLength(char);
    if (used + size > budget) break;
    out += char;
    used += size;
  }
  return out + ellipsis;
}
