// @ts-check
// The answer channel inside OpenCode (docs/answer.md, "OpenCode"): `tongs-agents answer` drops a request file into
// `<state dir>/answer-requests/` named for this process's instance token; this plugin claims it by renaming it (exactly
// one side wins a rename: the CLI withdraws a request nobody claimed in time), checks that the request the record's
// wait was opened for is still open here, replies through OpenCode's own SDK client (in-process, no TCP listener), and
// writes the outcome beside it. OpenCode's server itself refuses a reply to a request that is no longer pending, so a
// reply racing an answer in the pane is never a second action.
// Nothing here may block or break OpenCode: every step is wrapped, the work per request is bounded, and while idle it
// costs one fs.watch on one directory plus a slow readdir poll (in case the watch misses an event).
import { mkdirSync, lstatSync, watch as watchDir } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { displayLine } from "../pi-bridge/lib/text.js";
import { claimRequest, finishRequest, isRequestFor, requestsFor, REQUESTS_DIR } from "./answer-requests.js";

export { REQUESTS_DIR };
/** How often the directory is read when the watch said nothing. */
export const POLL_MS = 1_000;
/** How long OpenCode's server may take to take a reply. */
export const REPLY_TIMEOUT_MS = 5_000;
/** Requests ids seen closed, per process, to tell "already answered" from "never seen". */
const CLOSED_KEPT = 128;

/**
 * @typedef {{ kind: "allow" } | { kind: "always" } | { kind: "session" } | { kind: "deny", message?: string }
 *   | { kind: "choice", number?: number, label?: string } | { kind: "text", text: string }} Reply  (src/answer/replies.ts)
 * @typedef {{ label: string }} QuestionOption
 * @typedef {{ question: string, options: QuestionOption[], custom: boolean, count: number }} QuestionShape
 * @typedef {{ id: string, root: string, kind: "permission" | "input", sequence: number | undefined,
 *   title: string, question: QuestionShape | undefined }} OpenRequest
 * @typedef {import("./answer-requests.js").Outcome} Outcome
 * @typedef {{ post: (options: Record<string, unknown>) => Promise<unknown> }} RawClient
 */

/** @param {unknown} value @returns {Record<string, any>} */
const object = (value) => (typeof value === "object" && value !== null ? /** @type {Record<string, any>} */ (value) : {});

/** $TONGS_AGENTS_STATE_DIR, else $XDG_STATE_HOME/tongs-agents, else ~/.local/state/tongs-agents (src/store/paths.ts). */
export function stateDirOf(env = process.env, home = homedir) {
  const explicit = env.TONGS_AGENTS_STATE_DIR;
  if (explicit && isAbsolute(explicit)) return explicit;
  const xdg = env.XDG_STATE_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, "tongs-agents");
  return join(home(), ".local", "state", "tongs-agents");
}

/** The replies OpenCode's permission dialog offers, as it labels them. */
const PERMISSION_OPTIONS = /** @type {const} */ ([
  { number: 1, label: "Allow once", sent: "once", reply: "allow" },
  { number: 2, label: "Allow always", sent: "always", reply: "always" },
  { number: 3, label: "Reject", sent: "reject", reply: "deny" },
]);

/** An option by its label: the whole label (any case), else a unique start of it. @param {string[]} labels @param {string} wanted */
function byLabel(labels, wanted) {
  const lower = wanted.trim().toLowerCase();
  const exact = labels.findIndex((label) => label.toLowerCase() === lower);
  if (exact >= 0) return exact;
  const starts = labels.flatMap((label, index) => (lower !== "" && label.toLowerCase().startsWith(lower) ? [index] : []));
  return starts.length === 1 ? /** @type {number} */ (starts[0]) : -1;
}

/**
 * What to send OpenCode for `reply` to `request`, or why it is not a reply to it. Exported for tests.
 * @param {OpenRequest} request @param {Reply} reply
 * @returns {{ ok: true, url: string, body: Record<string, unknown>, sent: string, option: { number: number, label: string } }
 *   | { ok: false, detail: string }}
 */
export function replyFor(request, reply) {
  const path = (/** @type {string} */ route) => route.replace("{requestID}", encodeURIComponent(request.id));
  if (request.kind === "permission") {
    const offers = "it offers allow (Allow once), always (Allow always), deny [message] (Reject), or 1-3";
    /** @type {(typeof PERMISSION_OPTIONS)[number] | undefined} */
    let option;
    if (reply.kind === "choice")
      option =
        reply.number !== undefined
          ? PERMISSION_OPTIONS[reply.number - 1]
          : PERMISSION_OPTIONS[
              byLabel(
                PERMISSION_OPTIONS.map((entry) => entry.label),
                reply.label ?? "",
              )
            ];
    else option = PERMISSION_OPTIONS.find((entry) => entry.reply === reply.kind);
    if (!option) return { ok: false, detail: `OpenCode's permission dialog does not take that; ${offers}` };
    const message = reply.kind === "deny" && reply.message ? { message: reply.message } : {};
    return {
      ok: true,
      url: path("/permission/{requestID}/reply"),
      body: { reply: option.sent, ...message },
      sent: option.sent,
      option: { number: option.number, label: option.label },
    };
  }
  const question = request.question;
  if (!question) return { ok: false, detail: "the question's options are not known" };
  if (question.count !== 1)
    return { ok: false, detail: `the question has ${question.count} parts; answer it in the pane (one part at a time is not built)` };
  const labels = question.options.map((option) => option.label);
  const offers = `it offers ${labels.map((label, index) => `${index + 1}. ${label}`).join(", ")}${question.custom ? ", text <your answer>" : ""}, deny`;
  if (reply.kind === "deny")
    return {
      ok: true,
      url: path("/question/{requestID}/reject"),
      body: {},
      sent: "reject",
      option: { number: labels.length + 1, label: "Dismiss" },
    };
  if (reply.kind === "text") {
    if (!question.custom) return { ok: false, detail: `the question takes no free text; ${offers}` };
    return {
      ok: true,
      url: path("/question/{requestID}/reply"),
      body: { answers: [[reply.text]] },
      sent: "answers",
      option: { number: labels.length + 1, label: "Type your own answer" },
    };
  }
  if (reply.kind !== "choice") return { ok: false, detail: `a question takes a choice, not ${reply.kind}; ${offers}` };
  const index = reply.number !== undefined ? reply.number - 1 : byLabel(labels, reply.label ?? "");
  const label = labels[index];
  if (label === undefined) return { ok: false, detail: `no such option; ${offers}` };
  return {
    ok: true,
    url: path("/question/{requestID}/reply"),
    body: { answers: [[label]] },
    sent: "answers",
    option: { number: index + 1, label },
  };
}

/**
 * The channel of one OpenCode process.
 * @param {{ dir: string, instanceId: string, client: () => RawClient | undefined, now?: () => number,
 *   watch?: typeof watchDir, setInterval?: typeof globalThis.setInterval, clearInterval?: typeof globalThis.clearInterval,
 *   replyTimeoutMs?: number }} options
 */
export function createAnswerChannel(options) {
  const {
    dir,
    instanceId,
    client,
    now = Date.now,
    watch = watchDir,
    setInterval: every = globalThis.setInterval,
    clearInterval: stopEvery = globalThis.clearInterval,
    replyTimeoutMs = REPLY_TIMEOUT_MS,
  } = options;
  /** @type {Map<string, OpenRequest>} open requests by OpenCode's request id */
  const open = new Map();
  /** @type {Map<string, string>} `<root>\0<sequence>` of requests seen closed -> their id */
  const closed = new Map();
  /** @type {Set<string>} request files being handled */
  const busy = new Set();
  /** @type {{ watcher?: { close(): void }, timer?: ReturnType<typeof setInterval> }} */
  const running = {};

  const key = (/** @type {string} */ root, /** @type {number | undefined} */ sequence) => `${root}\0${sequence}`;

  /**
   * A request opened in OpenCode (`permission.asked`, `question.asked`): `sequence` is that of the waiting payload it
   * made the plugin send (the record's wait), when it made one.
   * @param {string} root @param {"permission" | "input"} kind @param {Record<string, any>} properties @param {number | undefined} sequence
   */
  function asked(root, kind, properties, sequence) {
    const id = typeof properties.id === "string" ? properties.id : undefined;
    if (!id) return;
    const questions = Array.isArray(properties.questions) ? properties.questions : [];
    const first = object(questions[0]);
    /** @type {QuestionShape | undefined} */
    const question =
      kind === "input"
        ? {
            question: displayLine(first.question),
            options: (Array.isArray(first.options) ? first.options : [])
              .slice(0, 32)
              .map((option) => ({ label: displayLine(object(option).label) })),
            custom: first.custom !== false,
            count: questions.length,
          }
        : undefined;
    open.set(id, {
      id,
      root,
      kind,
      sequence,
      title: kind === "permission" ? displayLine(properties.permission) : (question?.question ?? ""),
      question,
    });
    if (open.size > 256) open.delete(/** @type {string} */ (open.keys().next().value));
  }

  /** A request was replied, rejected or dismissed in OpenCode (from anywhere). @param {unknown} requestId */
  function replied(requestId) {
    if (typeof requestId !== "string") return;
    const request = open.get(requestId);
    if (!request) return;
    open.delete(requestId);
    closed.set(key(request.root, request.sequence), requestId);
    if (closed.size > CLOSED_KEPT) closed.delete(/** @type {string} */ (closed.keys().next().value));
  }

  /** Claim and apply one request file of this process. @param {string} file */
  async function handle(file) {
    if (!isRequestFor(file, instanceId) || busy.has(file)) return;
    busy.add(file);
    try {
      const claimed = claimRequest(dir, file, now());
      if (!claimed) return; // withdrawn by the CLI, or claimed already
      finishRequest(dir, file, claimed.ok ? await apply(claimed.request) : claimed.outcome);
    } finally {
      busy.delete(file);
    }
  }

  /** @param {Record<string, any>} request @returns {Promise<Outcome>} */
  async function apply(request) {
    const session = String(request.session);
    const sequence = typeof request.sequence === "number" ? request.sequence : undefined;
    const target = [...open.values()].find(
      (candidate) => candidate.root === session && candidate.sequence !== undefined && candidate.sequence === sequence,
    );
    if (!target) {
      const wasAnswered = closed.has(key(session, sequence));
      return {
        ok: false,
        reason: "moved-on",
        detail: wasAnswered
          ? "OpenCode's dialog for that wait was already answered (in the pane or elsewhere); nothing sent"
          : "this OpenCode process has no open request for that wait (the agent moved on); nothing sent",
      };
    }
    if (target.kind !== request.kind)
      return {
        ok: false,
        reason: "moved-on",
        detail: `the open request is a ${target.kind} request, not ${String(request.kind)}; nothing sent`,
      };
    const chosen = replyFor(target, /** @type {Reply} */ (object(request.reply)));
    if (!chosen.ok) return { ok: false, reason: "not-offered", detail: `${chosen.detail}; nothing sent` };
    const raw = client();
    if (!raw) return { ok: false, reason: "failed", detail: "OpenCode gave the plugin no client to reply with; nothing sent" };
    /** @type {unknown} */
    let result;
    try {
      result = await Promise.race([
        raw.post({ url: chosen.url, body: chosen.body, headers: { "Content-Type": "application/json" } }),
        new Promise((resolve) => setTimeout(() => resolve({ timedOut: true }), replyTimeoutMs).unref?.()),
      ]);
    } catch (error) {
      return { ok: false, reason: "failed", detail: `OpenCode refused the reply: ${displayLine(String(error)).slice(0, 200)}` };
    }
    const answer = object(result);
    if (answer.timedOut)
      return { ok: false, reason: "failed", detail: `OpenCode did not take the reply within ${replyTimeoutMs} ms; look at the pane` };
    const status = typeof object(answer.response).status === "number" ? object(answer.response).status : undefined;
    if (answer.error !== undefined || (status !== undefined && status >= 400)) {
      if (!open.has(target.id) || status === 404)
        return { ok: false, reason: "moved-on", detail: "OpenCode's dialog for that wait was answered meanwhile; OpenCode took nothing" };
      return { ok: false, reason: "failed", detail: `OpenCode refused the reply (HTTP ${status ?? "error"}); nothing taken` };
    }
    return { ok: true, sent: chosen.sent, option: chosen.option };
  }

  /** Every request file of this process now in the directory. */
  function scan() {
    for (const name of requestsFor(dir, instanceId)) void handle(name).catch(() => {});
  }

  return {
    asked,
    replied,
    handle,
    scan,
    open,
    /** Watch the directory (created owner-only when missing; refused when it is not private). */
    start() {
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        const stats = lstatSync(dir);
        const uid = process.getuid?.();
        if (!stats.isDirectory() || (uid !== undefined && stats.uid !== uid) || (stats.mode & 0o077) !== 0) return false;
        try {
          running.watcher = watch(dir, { persistent: false }, (_kind, name) => {
            if (typeof name === "string" && isRequestFor(name, instanceId)) void handle(name).catch(() => {});
          });
          object(running.watcher).on?.("error", () => {});
        } catch {
          // The poll alone then.
        }
        running.timer = every(scan, POLL_MS);
        object(running.timer).unref?.();
        scan();
        return true;
      } catch {
        return false;
      }
    },
    stop() {
      running.watcher?.close();
      if (running.timer) stopEvery(running.timer);
    },
  };
}
