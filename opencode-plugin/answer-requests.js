// @ts-check
// The answering side of the request files `tongs-agents answer` drops into `<state dir>/answer-requests/`
// (docs/answer.md): one file per reply, named `<address>.<random>.request`, where the address names the one process
// that may apply it (an OpenCode process's instance token for its plugin, answer-channel.js; a held Claude Code hook's
// own id, src/hook/claude-hold.ts). That process claims it by renaming it to `.claimed`; the CLI withdraws a request
// nobody claimed in time by renaming it too, so exactly one rename wins and a reply is applied once or never. The
// outcome goes beside it as `.outcome` (written to a temp file, then renamed). The CLI's side is
// src/answer/request-channel.ts. Plain JavaScript: OpenCode loads this file as it is, the hook bundles it.
import { readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The directory under the state dir (docs/contract.md, "State directory"). */
export const REQUESTS_DIR = "answer-requests";
/** A request older than this when found is not applied: the CLI has withdrawn it or given up on it by then. */
export const STALE_MS = 10_000;
const REQUEST_BYTES = 16_384;
const NAME = /^([A-Za-z0-9-]{1,64})\.([0-9a-f]{16,32})\.request$/;

/**
 * @typedef {{ ok: true, sent: string, option: { number: number, label: string } }
 *   | { ok: false, reason: string, detail: string }} Outcome
 */

/** Is `file` a request addressed to `address`? @param {string} file @param {string} address */
export function isRequestFor(file, address) {
  const match = NAME.exec(file);
  return match !== null && match[1] === address;
}

/** The request files addressed to `address` now in `dir`. @param {string} dir @param {string} address */
export function requestsFor(dir, address) {
  try {
    return readdirSync(dir).filter((name) => isRequestFor(name, address));
  } catch {
    return [];
  }
}

/**
 * Claim `file` and read it: undefined when it was withdrawn or claimed already (nothing to do, nothing to write);
 * otherwise the request, or the outcome that refuses it (not what tongs-agents writes, or stale).
 * @param {string} dir @param {string} file @param {number} now
 * @returns {undefined | { ok: true, request: Record<string, any> } | { ok: false, outcome: Outcome }}
 */
export function claimRequest(dir, file, now) {
  const claimed = join(dir, file.replace(/\.request$/, ".claimed"));
  try {
    renameSync(join(dir, file), claimed);
  } catch {
    return undefined;
  }
  /** @type {unknown} */
  let parsed;
  try {
    const text = readFileSync(claimed, "utf8");
    if (text.length > REQUEST_BYTES) throw new Error("too large");
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== "object" || parsed === null)
    return {
      ok: false,
      outcome: { ok: false, reason: "bad-request", detail: "the request file is not what tongs-agents writes; nothing sent" },
    };
  const request = /** @type {Record<string, any>} */ (parsed);
  const at = Date.parse(String(request.at));
  if (!Number.isFinite(at) || now - at > STALE_MS)
    return { ok: false, outcome: { ok: false, reason: "stale", detail: "the request was older than its receiver accepts; nothing sent" } };
  return { ok: true, request };
}

/** Write the outcome of a claimed `file` for the CLI, and drop the claimed request. @param {string} dir @param {string} file @param {Outcome} outcome */
export function finishRequest(dir, file, outcome) {
  const base = join(dir, file.replace(/\.request$/, ""));
  try {
    writeFileSync(`${base}.outcome.tmp`, JSON.stringify(outcome), { mode: 0o600 });
    renameSync(`${base}.outcome.tmp`, `${base}.outcome`);
  } catch {
    // The CLI then says it cannot tell what happened.
  }
  try {
    unlinkSync(`${base}.claimed`);
  } catch {
    // Already gone.
  }
}
