// Claude Code's held PermissionRequest hook (docs/answer.md, "Claude Code"): Claude Code 2.1.332 runs its
// PermissionRequest hooks *alongside* the dialog it shows, and takes the first answer, the user's in the pane or a
// hook's. This hook holds while the dialog is open, so `tongs-agents answer` can reply by request (allow once, allow
// always with Claude Code's own suggested rules, deny with a message, a question's answer) through the request files
// every receiver shares (opencode-plugin/answer-requests.js), while the dialog stays answerable in the pane.
//
// It must never keep a dialog from the user, and must end as soon as the wait closes any other way:
// - it holds only where Claude Code says a dialog is up: the claude process it runs under is not `-p`/`--print`
//   (headless runs await their hooks before going on) and reads a terminal (the interactive UI), the request is not a
//   subagent's (an async subagent's hooks are awaited before its dialog), and Claude Code's own session state
//   (`<config>/sessions/<pid>.json`) says `waiting`;
// - Claude Code does not end it when the dialog is answered in the pane (seen live: no signal, its stdin already
//   closed, its stdout left open, the process alive until the hook's timeout), so it watches that same state file and
//   ends when the status leaves `waiting` (Claude Code rewrites it within ~0.1 s of the key), when the record's wait
//   is no longer the one it holds, when Claude Code is gone, or at its own bound;
// - ending without an answer prints nothing and exits 0 (no decision: the dialog stays as it is).
// Nothing of the request is written anywhere: the registration names the hook's PID, the record and the wait's id.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, readlinkSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { claimRequest, finishRequest, requestsFor, REQUESTS_DIR } from "../../opencode-plugin/answer-requests.js";
import { canonicalId, digestOf, processInstanceId } from "../core/identity.ts";
import { findAncestor, type ProcessSource } from "../core/proc.ts";
import { HOLDS_DIR, type Hold } from "../answer/holds.ts";
import { openWaitOf, waitIdOf } from "../answer/wait-id.ts";
import type { Reply } from "../answer/replies.ts";
import { ensurePrivateDir, sessionsDirOf } from "../store/paths.ts";
import { readRecord, recordPath, writeFileAtomic } from "../store/records.ts";

/** The alias in the hook command line (`tongs-agents-hook.cjs permission-hold --agent claude`). */
export const HOLD_ALIAS = "permission-hold";
/** The `timeout` of its hook entry, in seconds: Claude Code ends the hook then (SIGTERM). */
export const HOLD_TIMEOUT_S = 600;
/** Its own bound, a little inside the entry's, so it unregisters itself. */
export const HOLD_MS = (HOLD_TIMEOUT_S - 10) * 1000;
/** How long Claude Code's state may take to say `waiting`, and the record to show the wait, after the hook starts. */
const SETTLE_MS = 3_000;
const TICK_MS = 100;
const CLAUDE_NAMES = ["claude", "claude.exe"];

/** What the hook reads of Claude Code's PermissionRequest input; kept in memory only. */
export interface HoldInput {
  readonly session_id: string;
  readonly tool_name: string;
  readonly tool_input: Record<string, unknown>;
  readonly permission_suggestions: readonly unknown[];
  /** Set for a subagent's request. */
  readonly agent_id?: string;
}

export function parseHoldInput(value: unknown): HoldInput | undefined {
  if (!isObject(value) || value.hook_event_name !== "PermissionRequest") return undefined;
  const { session_id, tool_name, tool_input, permission_suggestions, agent_id } = value;
  if (typeof session_id !== "string" || session_id === "" || typeof tool_name !== "string" || tool_name === "") return undefined;
  return {
    session_id,
    tool_name,
    tool_input: isObject(tool_input) ? tool_input : {},
    permission_suggestions: Array.isArray(permission_suggestions) ? permission_suggestions : [],
    ...(typeof agent_id === "string" && agent_id !== "" ? { agent_id } : {}),
  };
}

export interface HoldWorld {
  readonly env: NodeJS.ProcessEnv;
  readonly home: string;
  readonly stateDir: string;
  readonly ppid: number;
  readonly pid: number;
  readonly processes: ProcessSource;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  /** Whether the process reads a terminal (its stdin); undefined where that cannot be seen (no /proc). */
  readonly readsTerminal?: (pid: number) => boolean | undefined;
  /** Bounds, for tests. */
  readonly settleMs?: number;
  readonly holdMs?: number;
}

/** Linux: the process's stdin is a terminal device (the interactive UI), read through /proc. */
export function readsTerminal(pid: number): boolean | undefined {
  try {
    return /^\/dev\/(pts\/\d+|tty)/.test(readlinkSync(`/proc/${pid}/fd/0`));
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" && !existsSync("/proc/self") ? undefined : false;
  }
}

/** Claude Code's statement about its process (`<config>/sessions/<pid>.json`): only what the hook needs. */
interface ClaudeState {
  readonly status: string;
  readonly since: number;
}

export interface Claude {
  readonly pid: number;
  readonly startToken: string;
  readonly statePath: string;
}

export type Alongside =
  { readonly ok: true; readonly claude: Claude; readonly state: ClaudeState } | { readonly ok: false; readonly why: string };

/** Is this request shown in a dialog the hook runs alongside? Every "no" means: exit at once, print nothing. */
export async function alongsideDialog(input: HoldInput, world: HoldWorld): Promise<Alongside> {
  if (input.agent_id !== undefined) return { ok: false, why: "a subagent's request (its hooks may be awaited before its dialog)" };
  const found = await findAncestor(world.ppid, CLAUDE_NAMES, { source: world.processes, deadline: world.now() + 1000, now: world.now });
  if (!found.found) return { ok: false, why: "no claude process above the hook" };
  const argv = found.process.argv ?? (await world.processes.argv(found.process.pid)) ?? [];
  if (argv.slice(1).some((word) => word === "-p" || word === "--print" || word.startsWith("--print=")))
    return { ok: false, why: "claude runs headless (-p): it awaits its hooks before going on" };
  // The interactive UI reads the terminal; a claude driven through pipes (an SDK, an IDE) may await its hooks.
  if ((world.readsTerminal ?? readsTerminal)(found.process.pid) === false)
    return { ok: false, why: "claude reads no terminal: not its interactive UI" };
  const config = world.env.CLAUDE_CONFIG_DIR?.startsWith("/") ? world.env.CLAUDE_CONFIG_DIR : join(world.home, ".claude");
  const claude: Claude = {
    pid: found.process.pid,
    startToken: found.process.startToken,
    statePath: join(config, "sessions", `${found.process.pid}.json`),
  };
  const settleBy = world.now() + (world.settleMs ?? SETTLE_MS);
  for (;;) {
    const state = readClaudeState(claude, input.session_id);
    if (state?.status === "waiting") return { ok: true, claude, state };
    if (world.now() >= settleBy) return { ok: false, why: `Claude Code's session state is ${state?.status ?? "unreadable"}, not waiting` };
    await world.sleep(TICK_MS);
  }
}

/** `status` and `statusUpdatedAt` of Claude Code's state file, when it is this process's and this session's. */
export function readClaudeState(claude: Claude, sessionId: string): ClaudeState | undefined {
  let value: unknown;
  try {
    const text = readFileSync(claude.statePath, "utf8");
    if (text.length > 65_536) return undefined;
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(value) || value.pid !== claude.pid || value.sessionId !== sessionId || typeof value.status !== "string") return undefined;
  // The process-start token proves the file is this process's, not an earlier one's with a reused pid.
  if (typeof value.procStart !== "string" || !claude.startToken.endsWith(`:${value.procStart}`)) return undefined;
  return { status: value.status, since: typeof value.statusUpdatedAt === "number" ? value.statusUpdatedAt : 0 };
}

export interface Tie {
  readonly canonical: string;
  readonly wait: string;
}

/**
 * The record's open wait this request opened: the session's record shows it waiting on this tool, its only open wait
 * (bounded wait). With two requests open at once (parallel tool calls), which dialog a wait stands for is not known:
 * no hold then, and `answer` uses keys on the dialog the pane shows.
 */
export async function tiedWait(input: HoldInput, claude: Claude, world: HoldWorld): Promise<Tie | undefined> {
  const canonical = canonicalId("claude", input.session_id, processInstanceId(claude.pid, claude.startToken));
  const settleBy = world.now() + (world.settleMs ?? SETTLE_MS);
  for (;;) {
    const wait = openWaitHere(world.stateDir, canonical);
    if (wait !== undefined && wait.tool === input.tool_name && wait.open === 1) return { canonical, wait: wait.id };
    if (world.now() >= settleBy) return undefined;
    await world.sleep(TICK_MS);
  }
}

function openWaitHere(stateDir: string, canonical: string): { id: string; tool: string; open: number } | undefined {
  const digest = digestOf(canonical);
  if (digest === undefined) return undefined;
  const read = readRecord(recordPath(sessionsDirOf(stateDir), digest));
  if (read.kind !== "record" || read.record.status !== "waiting") return undefined;
  const wait = openWaitOf(read.record);
  return wait ? { id: waitIdOf(read.record, wait), tool: wait.tool, open: read.record.pending?.length ?? 0 } : undefined;
}

/** One option of what the hook can answer, numbered as `show` lists it. */
export interface HoldOption {
  readonly number: number;
  readonly label: string;
  readonly reply: "allow" | "always" | "deny" | undefined;
}

/** The options this request offers through the hook: a permission's, or a question's (AskUserQuestion, one part). */
export function holdOptions(input: HoldInput): HoldOption[] {
  const question = questionOf(input);
  if (question) return question.options.map((label, index) => ({ number: index + 1, label, reply: undefined }));
  return [
    { number: 1, label: "Yes", reply: "allow" },
    ...(input.permission_suggestions.length > 0
      ? [{ number: 2, label: "Yes, and don't ask again (Claude Code's suggested rule)", reply: "always" as const }]
      : []),
    { number: 3, label: "No", reply: "deny" },
  ];
}

function questionOf(input: HoldInput): { question: string; options: string[]; parts: number } | undefined {
  if (input.tool_name !== "AskUserQuestion" || !Array.isArray(input.tool_input.questions)) return undefined;
  const first: unknown = input.tool_input.questions[0];
  if (!isObject(first) || typeof first.question !== "string" || !Array.isArray(first.options)) return undefined;
  const options = first.options.flatMap((option: unknown) => (isObject(option) && typeof option.label === "string" ? [option.label] : []));
  return { question: first.question, options, parts: input.tool_input.questions.length };
}

export type Decision =
  | { readonly ok: true; readonly decision: Record<string, unknown>; readonly option: { number: number; label: string } }
  | { readonly ok: false; readonly detail: string };

/** What to tell Claude Code for `reply` (channels.md section 1: the PermissionRequest decision), or why it is none. */
export function decisionFor(input: HoldInput, reply: Reply): Decision {
  const options = holdOptions(input);
  const offers = `it offers ${options.map((option) => `${option.reply ?? option.number} = ${option.number}. ${option.label}`).join("; ")}`;
  const question = questionOf(input);
  if (question) {
    if (question.parts !== 1) return { ok: false, detail: `the question has ${question.parts} parts; answer it in the pane` };
    if (reply.kind === "deny") return { ok: true, decision: deny(reply.message), option: { number: options.length + 1, label: "Dismiss" } };
    let answer: string | undefined;
    let number = options.length + 1;
    if (reply.kind === "text") answer = reply.text;
    else if (reply.kind === "choice") {
      const chosen =
        reply.number !== undefined ? options.find((option) => option.number === reply.number) : uniqueStart(options, reply.label ?? "");
      answer = chosen?.label;
      number = chosen?.number ?? number;
    }
    if (answer === undefined) return { ok: false, detail: `that is no answer to the question; ${offers}, text <answer>, deny` };
    // Claude Code's AskUserQuestion reads the answers from its input, keyed by the question's text.
    return {
      ok: true,
      decision: { behavior: "allow", updatedInput: { ...input.tool_input, answers: { [question.question]: answer } } },
      option: { number, label: reply.kind === "text" ? "Your own answer" : answer },
    };
  }
  const chosen =
    reply.kind === "choice"
      ? reply.number !== undefined
        ? options.find((option) => option.number === reply.number)
        : uniqueStart(options, reply.label ?? "")
      : options.find((option) => option.reply === reply.kind);
  if (!chosen || chosen.reply === undefined) return { ok: false, detail: `the dialog does not take that through the hook; ${offers}` };
  const option = { number: chosen.number, label: chosen.label };
  if (chosen.reply === "deny") return { ok: true, decision: deny(reply.kind === "deny" ? reply.message : undefined), option };
  if (chosen.reply === "always")
    return { ok: true, decision: { behavior: "allow", updatedPermissions: input.permission_suggestions }, option };
  return { ok: true, decision: { behavior: "allow" }, option };
}

const deny = (message: string | undefined) => ({ behavior: "deny", ...(message ? { message } : {}) });

function uniqueStart(options: readonly HoldOption[], wanted: string): HoldOption | undefined {
  const lower = wanted.trim().toLowerCase();
  const exact = options.filter((option) => option.label.toLowerCase() === lower);
  const starts = options.filter((option) => lower !== "" && option.label.toLowerCase().startsWith(lower));
  const found = exact.length === 1 ? exact : starts;
  return found.length === 1 ? found[0] : undefined;
}

/** Why the hold ends without an answer (the wait closed some other way); undefined while the wait is still open. */
async function waitClosed(
  input: HoldInput,
  claude: Claude,
  opened: ClaudeState,
  tie: Tie,
  world: HoldWorld,
  started: number,
): Promise<string | undefined> {
  // A killed Claude Code leaves its state file behind, still saying waiting: the process itself is asked first.
  if ((await world.processes.basics(claude.pid))?.startToken !== claude.startToken) return "Claude Code is gone";
  const state = readClaudeState(claude, input.session_id);
  if (!state) return "Claude Code's session state is gone (it exited)";
  if (state.status !== "waiting" || state.since !== opened.since) return `Claude Code's session state moved on (${state.status})`;
  const wait = openWaitHere(world.stateDir, tie.canonical);
  if (wait?.id !== tie.wait) return "the record's wait moved on";
  if (world.now() - started >= (world.holdMs ?? HOLD_MS)) return "its bound passed";
  return undefined;
}

export type HoldEnd = { readonly answered: true; readonly stdout: string } | { readonly answered: false; readonly why: string };

/**
 * Hold: register, then every tick end if the wait closed, else take a request addressed to this hold. Resolves with
 * what to print (an answer) or why nothing (the wait closed otherwise, not alongside a dialog, its bound).
 */
export async function holdPermission(input: HoldInput, world: HoldWorld, stop?: { stopped: boolean }): Promise<HoldEnd> {
  const started = world.now();
  const alongside = await alongsideDialog(input, world);
  if (!alongside.ok) return { answered: false, why: alongside.why };
  const { claude, state: opened } = alongside;
  const tie = await tiedWait(input, claude, world);
  if (!tie) return { answered: false, why: "the record shows no wait for this request" };
  const requests = join(world.stateDir, REQUESTS_DIR);
  const holds = join(world.stateDir, HOLDS_DIR);
  if (!ensurePrivateDir(requests).ok || !ensurePrivateDir(holds).ok) return { answered: false, why: "the state dir is not private" };
  const id = `hold-${randomBytes(8).toString("hex")}`;
  const own = await world.processes.basics(world.pid);
  const registration: Hold & { readonly at: string } = {
    v: 1,
    id,
    pid: world.pid,
    start: own?.startToken ?? "",
    session: tie.canonical,
    wait: tie.wait,
    options: holdOptions(input),
    at: new Date(world.now()).toISOString(),
  };
  const registered = join(holds, `${id}.json`);
  if (!writeFileAtomic(registered, JSON.stringify(registration), { maxBytes: 16_384 }).ok)
    return { answered: false, why: "could not register the hold" };
  try {
    for (;;) {
      if (stop?.stopped) return { answered: false, why: "stopped" };
      const closed = await waitClosed(input, claude, opened, tie, world, started);
      if (closed) return { answered: false, why: closed };
      for (const file of requestsFor(requests, id)) {
        const claimed = claimRequest(requests, file, world.now());
        if (!claimed) continue;
        if (!claimed.ok) {
          finishRequest(requests, file, claimed.outcome);
          continue;
        }
        const { request } = claimed;
        // Checked again after the claim: the wait may have closed since the last tick.
        const closedNow = await waitClosed(input, claude, opened, tie, world, started);
        if (request.session !== tie.canonical || request.wait !== tie.wait || closedNow) {
          finishRequest(requests, file, {
            ok: false,
            reason: "moved-on",
            detail: closedNow
              ? `Claude Code's dialog for that wait was already answered or closed (${closedNow}); nothing sent`
              : "the held hook holds another wait; nothing sent",
          });
          if (closedNow) return { answered: false, why: closedNow };
          continue;
        }
        const reply = replyOf(request.reply);
        const decided = reply ? decisionFor(input, reply) : { ok: false as const, detail: "the reply is not one tongs-agents writes" };
        if (!decided.ok) {
          finishRequest(requests, file, { ok: false, reason: "not-offered", detail: `${decided.detail}; nothing sent` });
          continue;
        }
        finishRequest(requests, file, { ok: true, sent: String(decided.decision.behavior), option: decided.option });
        return {
          answered: true,
          stdout: JSON.stringify({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision: decided.decision } }),
        };
      }
      await world.sleep(TICK_MS);
    }
  } finally {
    try {
      unlinkSync(registered);
    } catch {
      // Gone already.
    }
  }
}

/** The reply a request file carries (replies.ts's shapes), or undefined: the file is written by `answer`, read with care. */
export function replyOf(value: unknown): Reply | undefined {
  if (!isObject(value)) return undefined;
  const text = (key: string) => (typeof value[key] === "string" ? (value[key] as string).slice(0, 4096) : undefined);
  switch (value.kind) {
    case "allow":
    case "always":
    case "session":
      return { kind: value.kind };
    case "deny": {
      const message = text("message");
      return message === undefined ? { kind: "deny" } : { kind: "deny", message };
    }
    case "choice": {
      const number = typeof value.number === "number" && Number.isInteger(value.number) ? value.number : undefined;
      const label = text("label");
      return number !== undefined ? { kind: "choice", number } : label !== undefined ? { kind: "choice", label } : undefined;
    }
    case "text": {
      const answer = text("text");
      return answer === undefined ? undefined : { kind: "text", text: answer };
    }
    default:
      return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
