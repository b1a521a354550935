// Answering a waiting agent (docs/answer.md): find the session, take its open wait, and reply through the best channel
// the harness offers where it runs. Every step that could send a reply to the wrong dialog refuses instead: the wait
// must be the one the caller meant (its id), still open when the keys go; the pane must show that harness's dialog,
// the same dialog on a second read just before the keys, with an option whose label gives the reply.
import type { LocatedTarget } from "../../backends/contract.ts";
import { BACKENDS } from "../../backends/registry.ts";
import { run as defaultRun, type Runner } from "../core/exec.ts";
import type { PendingWait, SessionRecord } from "../core/schema.ts";
import { displayLine, quoted } from "../core/terminal-text.ts";
import { candidateOf, findSession, type FleetContext } from "../fleet/queries.ts";
import { loadFleet } from "../fleet/sessions.ts";
import type { SessionView } from "../fleet/view.ts";
import { findHarness, HARNESSES } from "../harnesses/registry.ts";
import { statedStateReader } from "../harnesses/stated.ts";
import { readTextFile } from "../store/records.ts";
import { recordAnswer } from "../store/answer-log.ts";
import { KEY_DIALOGS, optionFor, readDialog, sameDialog, type DialogOption, type KeyDialogSpec, type ShownDialog } from "./dialogs.ts";
import { liveHold, type Hold } from "./holds.ts";
import { deliverRequest, heldHook, openCodePlugin, type DeliveryContext, type ReceiverOutcome } from "./request-channel.ts";
import { describeReply, type Reply } from "./replies.ts";
import { openWaitOf, waitIdOf } from "./wait-id.ts";

export interface AnswerContext extends FleetContext {
  readonly env: NodeJS.ProcessEnv;
  readonly run?: Runner | undefined;
  readonly backends?: typeof BACKENDS;
  /** This process: an answer from inside an agent's own process tree is refused (only a person answers). */
  readonly selfPid?: number;
  readonly sleep?: (ms: number) => Promise<void>;
  /** Bounds of the request channels (OpenCode's plugin, Claude Code's held hook), for tests. */
  readonly plugin?: DeliveryContext;
}

export interface AnswerRequest {
  readonly query: string;
  /** The wait the caller means (`--wait`, as `show` printed it); default: whichever is open now. */
  readonly waitId?: string | undefined;
  /** The user said an answer from inside an agent's process tree is theirs (`--from-agent`). */
  readonly fromAgent?: boolean;
  /** Where the answer comes from, as `explain` shows it; default `tongs-agents answer`. */
  readonly by?: string;
  /**
   * The dialog the person saw when choosing (the picker shows it, then the reply is picked by its number there): the
   * pane must still show exactly it, else nothing is sent.
   */
  readonly shown?: ShownDialog | undefined;
}

export type Refusal =
  | "not-found"
  | "ambiguous"
  | "state-dir"
  | "inside-agent"
  | "not-waiting"
  | "wait-moved"
  | "unsupported"
  | "no-dialog"
  | "not-offered"
  | "dialog-changed"
  | "send-failed";

export type AnswerFailure = {
  readonly ok: false;
  readonly reason: Refusal;
  readonly detail: string;
  readonly candidates?: ReturnType<typeof candidateOf>[];
};

/** A session's open wait and the dialog its pane shows for it, read now. */
export interface OpenDialog {
  readonly ok: true;
  readonly session: string;
  readonly harness: string;
  readonly wait: { readonly id: string; readonly kind: PendingWait["kind"]; readonly tool: string; readonly since: string };
  readonly channel: Channel;
  readonly target: string;
  readonly dialog: ShownDialog;
  readonly evidence: string;
}

/**
 * How a reply reaches the dialog: keys into the pane, tongs-agents' plugin inside the agent's process (OpenCode), or
 * Claude Code's held PermissionRequest hook (src/hook/claude-hold.ts).
 */
export type Channel = "keys" | "plugin" | "hook";

export interface Answered {
  readonly ok: true;
  readonly session: string;
  readonly wait: string;
  readonly channel: Channel;
  readonly target: string;
  readonly reply: string;
  readonly option: DialogOption;
  /** The keys pressed (none through the plugin or the hook). */
  readonly keys: readonly string[];
  /**
   * The dialog was gone from the pane within the check after the keys (false: it still showed; look at the pane);
   * through the plugin: OpenCode took the reply (its TUI drops the dialog on the reply's event); through the hook:
   * Claude Code's session state left `waiting` within the check after the hook ended.
   */
  readonly closed: boolean;
  /** Why the answer could not be kept for `explain`, when it could not (the answer itself stands). */
  readonly unrecorded?: string;
}

interface Located {
  readonly ok: true;
  readonly open: OpenDialog;
  readonly located: LocatedTarget;
  readonly spec: KeyDialogSpec;
}

const CAPTURE_LINES = 60;

/** The open wait of a session and the dialog shown for it: `answer <query> show`, and the first read of an answer. */
export async function readOpenDialog(request: AnswerRequest, context: AnswerContext): Promise<OpenDialog | AnswerFailure> {
  const waiting = await openWait(request, context);
  if (waiting.ok === false) return waiting;
  if (waiting.session.harness === "opencode") return pluginDialog(waiting);
  const hold = await holdOf(waiting, context);
  if (hold) return holdDialog(waiting, hold);
  const located = await locate(request, context, waiting);
  return located.ok === false ? located : located.open;
}

/** Reply to a session's open wait, or refuse and send nothing. */
export async function answerSession(request: AnswerRequest, reply: Reply, context: AnswerContext): Promise<Answered | AnswerFailure> {
  const waiting = await openWait(request, context);
  if (waiting.ok === false) return waiting;
  if (waiting.session.harness === "opencode") return answerThroughPlugin(waiting, request, reply, context);
  const hold = await holdOf(waiting, context);
  if (hold) {
    const held = await answerThroughHold(waiting, hold, request, reply, context);
    // A hook that did not claim the request ended meanwhile (its bound, or the dialog closed): keys, as without one.
    if (held !== "ended") return held;
  }
  return answerByKeys(waiting, request, reply, context);
}

async function answerByKeys(
  waiting: Waiting,
  request: AnswerRequest,
  reply: Reply,
  context: AnswerContext,
): Promise<Answered | AnswerFailure> {
  const first = await locate(request, context, waiting);
  if (first.ok === false) return first;
  const { open, located, spec } = first;
  if (request.shown && !sameDialog(request.shown, open.dialog))
    return refuse("dialog-changed", `the dialog in ${open.target} is no longer the one shown when the reply was chosen; nothing sent`);
  const chosen = optionFor(open.dialog, reply);
  if (!chosen.ok) return refuse("not-offered", `${describeReply(reply)} is not a reply to this dialog: ${chosen.detail}; nothing sent`);
  // The second read, just before the key: the same wait still open, the same dialog still shown.
  const again = await locate({ ...request, waitId: open.wait.id }, context);
  if (again.ok === false) return { ...again, detail: `${again.detail} (it changed while answering)` };
  if (!sameDialog(open.dialog, again.open.dialog))
    return refuse("dialog-changed", `the dialog in ${open.target} changed while answering; nothing sent`);
  const keys = spec.keysOf(chosen.option);
  const runner = { run: context.run ?? defaultRun, env: context.env };
  const sent = located.sendKeys ? await located.sendKeys(keys, runner) : { ok: false as const, detail: "the terminal takes no keys" };
  if (!sent.ok) return refuse("send-failed", `could not press ${keys.join(" ")} in ${open.target}: ${sent.detail}`);
  const kept = keepAnswer(context, request, open.session, open.wait.id, reply, chosen.option.number, "keys");
  return {
    ok: true,
    session: open.session,
    wait: open.wait.id,
    channel: "keys",
    target: open.target,
    reply: describeReply(reply),
    option: chosen.option,
    keys,
    closed: await dialogCloses(located, spec, open.dialog, context),
    ...(kept.ok ? {} : { unrecorded: kept.detail }),
  };
}

/**
 * OpenCode: the reply goes to tongs-agents' plugin inside the OpenCode process that owns the session, tied to the request
 * the record's wait was opened by (the record's emitter sequence is that of the waiting event); the plugin checks that
 * request is still open and replies by its id through OpenCode's own client (request-channel.ts).
 */
async function answerThroughPlugin(
  waiting: Waiting,
  request: AnswerRequest,
  reply: Reply,
  context: AnswerContext,
): Promise<Answered | AnswerFailure> {
  const { session, record, wait } = waiting;
  if (record.identity !== "emitter" || record.sequence === null)
    return refuse("unsupported", `${session.short_id} was not reported by tongs-agents' OpenCode plugin, so no plugin can answer it`);
  const target = pluginTarget(record);
  const delivered = await deliverRequest(
    context.stateDir,
    openCodePlugin(record.instance_id),
    { session: record.session_id, sequence: record.sequence, kind: pluginKind(wait), reply },
    context.plugin,
  );
  if (!delivered.ok) return refuse("send-failed", delivered.sent === false ? `${delivered.detail}; nothing sent` : delivered.detail);
  return answeredByRequest(delivered.outcome, waiting, request, reply, context, { channel: "plugin", target, closed: async () => true });
}

/** What a receiver of a request (OpenCode's plugin, Claude Code's held hook) said it did, as an answer or a refusal. */
async function answeredByRequest(
  outcome: ReceiverOutcome,
  { session, waitId }: Waiting,
  request: AnswerRequest,
  reply: Reply,
  context: AnswerContext,
  { channel, target, closed }: { channel: Channel; target: string; closed: () => Promise<boolean> },
): Promise<Answered | AnswerFailure> {
  if (!outcome.ok) {
    const reason: Refusal = outcome.reason === "moved-on" ? "wait-moved" : outcome.reason === "not-offered" ? "not-offered" : "send-failed";
    return refuse(reason, outcome.detail);
  }
  const kept = keepAnswer(context, request, session.id, waitId, reply, outcome.option.number, channel);
  return {
    ok: true,
    session: session.id,
    wait: waitId,
    channel,
    target,
    reply: describeReply(reply),
    option: { ...outcome.option, reply: undefined },
    keys: [],
    closed: await closed(),
    ...(kept.ok ? {} : { unrecorded: kept.detail }),
  };
}

/** The live held hook of a Claude Code session's open wait (src/answer/holds.ts), if there is one. */
async function holdOf(waiting: Waiting, context: AnswerContext): Promise<Hold | undefined> {
  if (waiting.session.harness !== "claude") return undefined;
  return liveHold(context.stateDir, waiting.record.canonical_id, waiting.waitId, context.processes);
}

/** Claude Code's open wait as its held hook answers it: the options it registered (numbered as `show` lists them). */
function holdDialog(waiting: Waiting, hold: Hold): OpenDialog {
  const { record, wait } = waiting;
  return openDialogOf(waiting, {
    channel: "hook",
    target: holdTarget(record, hold),
    dialog: {
      title: wait.tool === "AskUserQuestion" ? "Claude Code's question" : `Claude Code asks to use ${wait.tool || "a tool"}`,
      context: ["(the request as the pane shows it; the held hook replies by request, the dialog stays answerable there)"],
      options: hold.options.map((option) => ({ number: option.number, label: option.label, reply: option.reply })),
    },
    evidence: "Claude Code 2.1.332: its PermissionRequest hook runs alongside the dialog; the first answer wins",
  });
}

const holdTarget = (record: SessionRecord, hold: Hold) =>
  `Claude Code${record.pid === null ? "" : ` (PID ${record.pid})`} through its held PermissionRequest hook (PID ${hold.pid})`;

/**
 * Claude Code: the reply goes to the held hook of the open wait, as a request file tied to the record and the wait;
 * the hook checks the wait is still the one it holds and Claude Code's state still says waiting, then prints the
 * decision and ends. "ended": the hook did not claim it (it ended meanwhile); nothing was sent.
 */
async function answerThroughHold(
  waiting: Waiting,
  hold: Hold,
  request: AnswerRequest,
  reply: Reply,
  context: AnswerContext,
): Promise<Answered | AnswerFailure | "ended"> {
  const { session, record, waitId } = waiting;
  const open = holdDialog(waiting, hold);
  if (request.shown && !sameDialog(request.shown, open.dialog))
    return refuse("dialog-changed", `the dialog of ${session.short_id} is no longer the one shown when the reply was chosen; nothing sent`);
  const delivered = await deliverRequest(
    context.stateDir,
    heldHook(hold.id),
    { session: record.canonical_id, wait: waitId, reply },
    context.plugin,
  );
  if (!delivered.ok) return delivered.sent === false ? "ended" : refuse("send-failed", delivered.detail);
  return answeredByRequest(delivered.outcome, waiting, request, reply, context, {
    channel: "hook",
    target: open.target,
    closed: () => claudeLeavesWaiting(record, context),
  });
}

/** After the hook's decision: does Claude Code's own session state leave `waiting`? Read for about a second and a half. */
async function claudeLeavesWaiting(record: SessionRecord, context: AnswerContext): Promise<boolean> {
  const reader = await statedStateReader("claude");
  const path = record.transcript_path && record.pid !== null ? reader?.processState?.path(record.transcript_path, record.pid) : undefined;
  if (!path) return false;
  const sleep = context.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (let attempt = 0; attempt < 15; attempt++) {
    const file = readTextFile(path, 65_536);
    try {
      if (file.kind === "text" && (JSON.parse(file.text) as { status?: unknown }).status !== "waiting") return true;
    } catch {
      // Being rewritten: read again.
    }
    await sleep(100);
  }
  return false;
}

/** OpenCode's open wait as `show` prints it: its permission dialog's replies; a question's options are in the pane. */
function pluginDialog(waiting: Waiting): OpenDialog {
  const { record, wait } = waiting;
  const permission = pluginKind(wait) === "permission";
  return openDialogOf(waiting, {
    channel: "plugin",
    target: pluginTarget(record),
    dialog: {
      title: permission ? "Permission required" : wait.detail,
      context: permission
        ? []
        : ["(its options as the pane shows them: reply with <n>, choose <label> or text <answer>; deny dismisses it)"],
      options: permission
        ? [
            { number: 1, label: "Allow once", reply: "allow" },
            { number: 2, label: "Allow always", reply: "always" },
            { number: 3, label: "Reject", reply: "deny" },
          ]
        : [],
    },
    evidence: "OpenCode 1.18.33: tongs-agents' plugin replies by the request's id through OpenCode's own client",
  });
}

/**
 * OpenCode's request behind a wait: the plugin reports a question with the tool `question`, a permission with its name
 * (`bash`, `edit`); both open waits of kind `input` (src/harnesses/opencode/harness.ts), so the kind cannot tell them.
 */
const pluginKind = (wait: PendingWait) => (wait.tool === "question" ? "input" : "permission");

const pluginTarget = (record: SessionRecord) =>
  `OpenCode${record.pid === null ? "" : ` (PID ${record.pid})`} through its tongs-agents plugin`;

/** Keep the answer for `explain` (best effort: the answer stands either way). */
function keepAnswer(
  context: AnswerContext,
  request: AnswerRequest,
  session: string,
  wait: string,
  reply: Reply,
  option: number,
  channel: Channel,
): ReturnType<typeof recordAnswer> {
  return recordAnswer(context.stateDir, session, {
    at: new Date((context.now ?? Date.now)()).toISOString(),
    by: request.by ?? "tongs-agents answer",
    wait,
    reply: reply.kind,
    option,
    channel,
  });
}

/**
 * The open wait of a record that keys can answer where it runs (a harness whose dialog is known, a pane that can be
 * read and typed into): what a notification's Allow / Deny is tied to. Whether the dialog shows is checked on the click.
 */
export function answerableWait(record: SessionRecord, backends: typeof BACKENDS = BACKENDS): string | undefined {
  const wait = record.status === "waiting" ? openWaitOf(record) : undefined;
  if (!wait || !KEY_DIALOGS.some((spec) => spec.harness === record.harness)) return undefined;
  const located = backends.map((backend) => backend.locate(record.terminal)).find((target) => target !== undefined);
  return located?.capture && located.sendKeys ? waitIdOf(record, wait) : undefined;
}

/** What an answer did, in one line: the CLI prints it, the picker shows it. */
export function answeredLine(answered: Answered): string {
  if (answered.channel === "plugin")
    return `answered ${answered.reply}: ${displayLine(answered.option.label)} (option ${answered.option.number}), through ${answered.target}; OpenCode took it`;
  if (answered.channel === "hook")
    return (
      `answered ${answered.reply}: ${displayLine(answered.option.label)} (option ${answered.option.number}), through ${answered.target}; ` +
      (answered.closed ? "Claude Code took it (its dialog closed)" : "Claude Code did not say it took it: look at the pane")
    );
  return (
    `answered ${answered.reply}: pressed ${answered.keys.join(" ")} (${displayLine(answered.option.label)}) in ${answered.target}; ` +
    (answered.closed ? "the dialog closed" : "the dialog still shows: look at the pane")
  );
}

interface Waiting {
  readonly ok: true;
  readonly session: SessionView;
  readonly record: SessionRecord;
  readonly wait: PendingWait;
  readonly waitId: string;
}

/** The session the query names, and its open wait (the one `request.waitId` names, when it does). */
async function openWait(request: AnswerRequest, context: AnswerContext): Promise<Waiting | AnswerFailure> {
  const found = await findSession(context, request.query);
  if (!found.ok) {
    if (found.reason === "ambiguous") return { ...refuse("ambiguous", found.detail), candidates: found.candidates.map(candidateOf) };
    return refuse(found.reason, found.detail);
  }
  const { session } = found;
  const record = found.record?.record;
  if (!request.fromAgent) {
    const agent = await agentAbove(context);
    if (agent) return insideAgent(agent);
  }
  const wait = session.status === "waiting" ? openWaitOf(record) : undefined;
  if (!record || !wait) {
    const moved = request.waitId !== undefined ? ` (the wait ${request.waitId} is closed)` : "";
    return refuse("not-waiting", `nothing to answer: ${session.short_id} is ${session.status}${moved}`);
  }
  const waitId = waitIdOf(record, wait);
  if (request.waitId !== undefined && request.waitId !== waitId)
    return refuse(
      "wait-moved",
      `the wait ${request.waitId} is no longer open: ${session.short_id} now waits for ${describeWait(wait)} (wait ${waitId}); nothing sent`,
    );
  return { ok: true, session, record, wait, waitId };
}

async function locate(request: AnswerRequest, context: AnswerContext, known?: Waiting): Promise<Located | AnswerFailure> {
  const waiting = known ?? (await openWait(request, context));
  if (waiting.ok === false) return waiting;
  const { session } = waiting;
  const spec = KEY_DIALOGS.find((candidate) => candidate.harness === session.harness);
  if (!spec) return refuse("unsupported", unsupported(session));
  const backends = context.backends ?? BACKENDS;
  const located = backends.map((backend) => backend.locate(session.terminal)).find((target) => target !== undefined);
  if (!located)
    return refuse(
      "unsupported",
      `${session.short_id} has no terminal pane tongs-agents can read (answering by keys needs the agent in tmux)`,
    );
  if (!located.capture || !located.sendKeys)
    return refuse(
      "unsupported",
      `${located.describe()} cannot be read and typed into from outside (answering by keys needs the agent in tmux)`,
    );
  const target = located.describe();
  const capture = await located.capture(CAPTURE_LINES, { run: context.run ?? defaultRun, env: context.env });
  if ("note" in capture) return refuse("no-dialog", `could not read ${target}: ${capture.note}; nothing sent`);
  const dialog = readDialog(capture.lines, spec);
  if (!dialog) {
    const last =
      capture.lines
        .filter((line) => line.trim() !== "")
        .at(-1)
        ?.trim() ?? "";
    return refuse(
      "no-dialog",
      `${target} does not show ${harnessName(session.harness)}'s dialog (its last line: ${quoted(last.slice(0, 80))}); nothing sent`,
    );
  }
  const open = openDialogOf(waiting, { channel: "keys", target, dialog, evidence: spec.evidence });
  return { ok: true, open, located, spec };
}

/** A session's open wait with the dialog a channel shows for it. */
function openDialogOf(
  { session, wait, waitId }: Waiting,
  shown: Pick<OpenDialog, "channel" | "target" | "dialog" | "evidence">,
): OpenDialog {
  return {
    ok: true,
    session: session.id,
    harness: session.harness,
    wait: { id: waitId, kind: wait.kind, tool: wait.tool, since: wait.since },
    ...shown,
  };
}

/** After the key: did the dialog leave the pane? Read a few times over about a second and a half. */
async function dialogCloses(located: LocatedTarget, spec: KeyDialogSpec, shown: ShownDialog, context: AnswerContext): Promise<boolean> {
  const sleep = context.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (let attempt = 0; attempt < 6; attempt++) {
    await sleep(250);
    const capture = await located.capture?.(CAPTURE_LINES, { run: context.run ?? defaultRun, env: context.env });
    if (!capture || "note" in capture) return false;
    const now = readDialog(capture.lines, spec);
    if (!now || !sameDialog(now, shown)) return true;
  }
  return false;
}

/** The agent whose process tree this process runs in, if any: a live session's process, or a harness by its name. */
export async function agentAbove(context: AnswerContext): Promise<string | undefined> {
  const fleet = await loadFleet(context, { discover: false });
  const sessions = new Map(
    fleet.sessions.filter((session) => !session.stale && session.pid !== null).map((session) => [session.pid, session]),
  );
  const names = new Set<string>(HARNESSES.flatMap((harness) => harness.processNames));
  let pid = context.selfPid ?? process.pid;
  for (let depth = 0; depth < 32 && pid > 1; depth++) {
    const basics = await context.processes.basics(pid);
    if (!basics) return undefined;
    const session = sessions.get(pid);
    if (session) return `${harnessName(session.harness)} session ${session.short_id} (PID ${pid})`;
    if (depth > 0 && names.has(basics.comm)) return `a ${quoted(basics.comm)} process (PID ${pid})`;
    pid = basics.ppid;
  }
  return undefined;
}

/** The refusal of an answer from inside an agent's process tree (`agent`: which one). */
export function insideAgent(agent: string): AnswerFailure {
  return refuse(
    "inside-agent",
    `this runs inside ${agent}: only a person answers an agent's dialog; run it from your own shell, or pass --from-agent if you typed it yourself`,
  );
}

function unsupported(session: SessionView): string {
  const name = harnessName(session.harness);
  const why: Record<string, string> = {
    pi: "Pi has no permission dialog of its own (extensions gate tools); nothing outside its process can answer them",
  };
  return `answering ${name} is not possible yet: ${why[session.harness] ?? "its dialog's text and keys are not verified against this version"} (docs/answer.md)`;
}

const harnessName = (id: string) => findHarness(id)?.displayName ?? id;

function describeWait(wait: PendingWait): string {
  return wait.tool === "" ? wait.kind : `${wait.kind}: ${wait.tool}`;
}

function refuse(reason: Refusal, detail: string): AnswerFailure {
  return { ok: false, reason, detail };
}
