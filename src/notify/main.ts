// Entry point of the notifier (dist/notify.cjs). The hook starts it detached (src/hook/notify-trigger.ts) as
// `deliver <state dir> <canonical id>`; terminal-notifier runs it on a click as `click <state dir> <canonical id>`.
// It prints nothing: what it did goes to <state dir>/notify.log, one JSON line per step. Every phase is bounded and the
// process always exits: after delivering, or once a desktop notification was clicked, closed or waited for long enough.
import { appendDebugLog } from "../hook/debug-log.ts";
import { findHarness } from "../harnesses/registry.ts";
import { digestOf, shortId } from "../core/identity.ts";
import { sessionsDirOf } from "../store/paths.ts";
import { readRecord, recordPath } from "../store/records.ts";
import type { SessionRecord } from "../core/schema.ts";
import { handleClick, focusSummary } from "./click.ts";
import { handleReply, type ReplyChosen } from "./reply.ts";
import { answerableWait } from "../answer/service.ts";
import { joinBurst } from "./coalesce.ts";
import { isNotifyState, loadConfig, type NotifyConfig } from "./config.ts";
import type { NotifyWorld } from "./contract.ts";
import { deliverBatch, deliveryLog, desktopChannelFor, type BatchSession } from "./deliver.ts";
import { alreadyHandled, changeMark, markHandled, NOTIFY_LOG } from "../store/notify-ledger.ts";
import { cleanLine } from "./sanitize.ts";
import { muteState } from "./mute.ts";
import { clickCommandFor, realWorld } from "./world.ts";
import { limitLead, quotaWords } from "../fleet/row-words.ts";
import { usageOf } from "../fleet/usage.ts";
import { cursorPath, loadCursor } from "../store/transcript-cursor.ts";

/** Joining a burst, surveying and delivering, all together. */
const DELIVER_BOUND_MS = 30_000;
/** After the click wait, time to close the notification and focus. */
const CLICK_MARGIN_MS = 15_000;
const ATTENTION: readonly string[] = ["waiting", "error", "idle"];

const [mode, stateDir = "", canonicalId = "", ...quotaArgs] = process.argv.slice(2);
const log = (entry: Record<string, unknown>) => appendDebugLog(stateDir, { mode, ...entry }, NOTIFY_LOG);
const quit = () => process.exit(0);
process.on("uncaughtException", (error) => {
  log({ outcome: "bug", detail: cleanLine(String(error), 300) });
  quit();
});
process.on("unhandledRejection", (error) => {
  log({ outcome: "bug", detail: cleanLine(String(error), 300) });
  quit();
});
let watchdog = setTimeout(() => {
  log({ outcome: "timeout", detail: `gave up after ${DELIVER_BOUND_MS} ms` });
  quit();
}, DELIVER_BOUND_MS);

function world(): NotifyWorld {
  const bundle = process.argv[1];
  return realWorld(stateDir, { clickCommand: bundle ? clickCommandFor(bundle, stateDir, process.env) : undefined });
}

function readSession(id: string): SessionRecord | undefined {
  const digest = digestOf(id);
  if (digest === undefined) return undefined;
  const read = readRecord(recordPath(sessionsDirOf(stateDir), digest));
  return read.kind === "record" ? read.record : undefined;
}

/**
 * Under the leader lock: of the pending sessions, those whose current state notifies and was not handled yet. Each
 * change is marked handled here, notified or not, so it never notifies twice.
 */
function chooseBatch(ids: readonly string[], config: NotifyConfig): { chosen: BatchSession[]; skipped: string[] } {
  const chosen: BatchSession[] = [];
  const skipped: string[] = [];
  // `notify mute`: nothing goes out on any channel, and each change is still marked handled (no replay on unmute).
  const muted = muteState(stateDir, Date.now()).muted;
  for (const id of ids) {
    const record = readSession(id);
    const short = shortId(id);
    if (!record || !isNotifyState(record.status)) {
      skipped.push(`${short}: ${record ? `now ${record.status}` : "no record"}`);
      continue;
    }
    const mark = changeMark(record.status, record.status_changed_at);
    const digest = digestOf(id) as string;
    if (alreadyHandled(stateDir, digest, mark)) {
      skipped.push(`${short}: this change was already handled`);
      continue;
    }
    markHandled(stateDir, digest, mark);
    if (muted) skipped.push(`${short}: muted`);
    else if (config.quiet) skipped.push(`${short}: quiet`);
    else if (config.states[record.status].length === 0) skipped.push(`${short}: ${record.status} does not notify (config)`);
    else
      chosen.push({
        id,
        terminal: record.terminal,
        harnessName: findHarness(record.harness)?.displayName ?? record.harness,
        cwd: record.cwd,
        status: record.status,
        detail: detailOf(record, digest),
        changedAt: record.status_changed_at,
        wait: answerableWait(record),
      });
  }
  chosen.sort((a, b) => ATTENTION.indexOf(a.status) - ATTENTION.indexOf(b.status) || a.changedAt.localeCompare(b.changedAt));
  return { chosen, skipped };
}

/** A limit says when it resets, where its harness stated it (in the record, or in the transcript read so far). */
function detailOf(record: SessionRecord, digest: string): string {
  if (!record.limit) return record.detail;
  const facts = loadCursor(cursorPath(stateDir, digest))?.facts;
  const limit = usageOf(record, { transcript: facts }, Date.now()).limit;
  return limit ? [limitLead(limit, Date.now()), limit.message].filter(Boolean).join(" · ") : record.detail;
}

/** Still worth a click: at least one session is still in the state change it was notified for. */
function stillWanted(batch: readonly BatchSession[], marks: ReadonlyMap<string, string>): () => boolean {
  return () =>
    batch.some((session) => {
      const record = readSession(session.id);
      return record !== undefined && changeMark(record.status, record.status_changed_at) === marks.get(session.id);
    });
}

async function deliver(): Promise<void> {
  const loaded = loadConfig(process.env);
  if (loaded.problem) log({ outcome: "config", detail: cleanLine(loaded.problem, 300) });
  const { config } = loaded;
  const joined = await joinBurst(stateDir, canonicalId, (ids) => chooseBatch(ids, config));
  if (joined.kind !== "leader") return log({ outcome: joined.kind, session: shortId(canonicalId), detail: joined.detail });
  const { chosen, skipped } = joined.value;
  if (chosen.length === 0) return log({ outcome: "nothing", skipped });
  const marks = new Map(chosen.map((session) => [session.id, changeMark(session.status, session.changedAt)]));
  const report = await deliverBatch(chosen, config, world());
  log({
    outcome: "delivered",
    sessions: report.notified.map(shortId),
    suppressed: report.suppressed.map((entry) => `${shortId(entry.id)}: ${cleanLine(entry.why, 120)}`),
    skipped,
    ...deliveryLog(report),
  });
  if (!report.pending) return;
  clearTimeout(watchdog);
  watchdog = setTimeout(quit, config.clickWaitMs + CLICK_MARGIN_MS);
  const { click, notice } = report.pending;
  const outcome = await click.wait({ timeoutMs: config.clickWaitMs, stillWanted: stillWanted(chosen, marks) });
  await click.close();
  if (outcome.kind === "reply") return replyOnClick(outcome);
  if (outcome.kind !== "clicked")
    return log({
      outcome: "click",
      result: outcome.kind,
      detail: outcome.detail,
      sessions: notice.sessions.map((session) => shortId(session.id)),
    });
  await focusOnClick(outcome.sessionId);
}

/** Allow or Deny: answer that wait, log what was done (never the dialog's text), follow up when nothing was sent. */
async function replyOnClick(chosen: ReplyChosen): Promise<void> {
  const handled = await handleReply(chosen, world(), desktopChannelFor(process.platform));
  const { result } = handled;
  log({
    outcome: "click",
    result: "reply",
    session: shortId(chosen.sessionId),
    wait: chosen.wait,
    reply: chosen.reply,
    answer: result.ok
      ? { sent: true, option: result.option.number, keys: result.keys, closed: result.closed }
      : { sent: false, reason: result.reason, detail: cleanLine(result.detail, 300) },
    ...(handled.followUp ? { follow_up: cleanLine(handled.followUp, 200) } : {}),
  });
}

/** What a click does: focus the session, log the result as `focus --json` gives it, follow up when it fell short. */
async function focusOnClick(id: string): Promise<void> {
  const handled = await handleClick(id, world(), desktopChannelFor(process.platform));
  log({
    outcome: "click",
    result: "clicked",
    session: shortId(id),
    focus: focusSummary(handled.result),
    ...(handled.followUp ? { follow_up: cleanLine(handled.followUp, 200) } : {}),
  });
}

/**
 * A quota window reached the threshold the user set (`quota <state dir> <canonical id> <window> <percent> <reset>`,
 * started by store/quota-crossing.ts, which claimed the crossing: exactly one per window and reset). It goes through
 * the channels failed turns use, to the session that stated it.
 */
async function deliverQuota(): Promise<void> {
  const [window = "", percent = "", resetsAt = ""] = quotaArgs;
  const loaded = loadConfig(process.env);
  const record = readSession(canonicalId);
  if (!record) return log({ outcome: "nothing", detail: "no record" });
  if (loaded.config.quiet) return log({ outcome: "nothing", detail: "quiet" });
  const now = Date.now();
  const used = Math.round(Number(percent));
  const words = quotaWords({ window, used_percent: used, resets_at: resetsAt === "" ? null : resetsAt, window_minutes: null }, now);
  const harnessName = findHarness(record.harness)?.displayName ?? record.harness;
  const session: BatchSession = {
    id: canonicalId,
    terminal: record.terminal,
    harnessName,
    cwd: record.cwd,
    status: "error",
    detail: words,
    changedAt: record.status_changed_at,
    headline: `${harnessName} quota at ${used}%`,
  };
  const report = await deliverBatch([session], loaded.config, world());
  log({
    outcome: "quota",
    session: shortId(canonicalId),
    window: cleanLine(window, 64),
    deliveries: report.deliveries.map((delivery) => ({ channel: delivery.channel, outcome: delivery.outcome })),
  });
}

async function main(): Promise<void> {
  if (!stateDir.startsWith("/") || digestOf(canonicalId) === undefined) return;
  if (mode === "deliver") await deliver();
  else if (mode === "click") await focusOnClick(canonicalId);
  else if (mode === "quota") await deliverQuota();
}

void main().finally(quit);
