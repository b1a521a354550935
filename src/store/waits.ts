// What a session is waiting for (docs/contract.md, "Waiting"). Harnesses run tools in parallel: one tool may wait for
// the user's permission while another finishes. A wait stays open until the tool that asked finishes or fails, the turn
// ends, or a new prompt arrives; a later event that states the same wait less specifically (Claude Code's
// `permission_prompt` notification, which names no tool) keeps what the wait knew. Pure: apply.ts calls it.
import { LIMITS } from "../core/bounds.ts";
import type { LifecycleEvent, PendingWait, RunningTool, SessionRecord, WaitEffect, WaitKind } from "../core/schema.ts";

export interface Waits {
  /** Open waits, oldest first: the newest one is what the session shows. */
  readonly pending: PendingWait[];
  readonly tools: RunningTool[];
  /** What happened to the waits, in words, for the record's history; empty when nothing did. */
  readonly note: string;
}

/**
 * The effect of an event that does not say (one queued by an older writer): a waiting state opens a wait, a running
 * one leaves the waits alone, any other state (idle, error, started, ended) ends the turn and every wait with it.
 */
export function effectOf(event: LifecycleEvent): WaitEffect | undefined {
  if (event.wait) return event.wait;
  return event.status === "waiting" ? "input" : event.status === "running" ? undefined : "clear";
}

export function nextWaits(existing: SessionRecord | undefined, event: LifecycleEvent, nowIso: string): Waits {
  const pending = existing?.pending ?? [];
  const tools = existing?.running_tools ?? [];
  const effect = effectOf(event);
  switch (effect) {
    case undefined:
      return { pending, tools, note: pending.length > 0 ? stillOpen(pending) : "" };
    case "clear":
      return { pending: [], tools: [], note: pending.length > 0 ? `closed ${describe(pending)}` : "" };
    case "answered": {
      const left = pending.filter((wait) => wait.kind !== "input");
      return { pending: left, tools, note: left.length < pending.length ? "answered the open prompt" : "" };
    }
    case "tool-start": {
      if (event.toolUseId === undefined || tools.some((tool) => tool.id === event.toolUseId))
        return { pending, tools, note: pending.length > 0 ? stillOpen(pending) : "" };
      const started = [...tools, { id: event.toolUseId, tool: event.tool }].slice(-LIMITS.runningTools);
      return { pending, tools: started, note: pending.length > 0 ? stillOpen(pending) : "" };
    }
    case "tool-approved":
      return toolApproved(pending, tools, event);
    case "tool-end":
      return toolEnded(pending, tools, event);
    case "permission":
    case "input":
      return opened(pending, tools, effect, event, nowIso);
  }
}

/**
 * A wait opens. The tool that asked is one of the running tools of that name (Claude Code and Codex fire PreToolUse
 * before PermissionRequest, which carries no tool_use_id); a wait naming no tool may belong to any running tool. An
 * event naming no tool while a wait of its kind is open states that wait again, less specifically: it changes nothing.
 * An event naming the tool of a wait opened without a name makes that wait specific.
 */
function opened(pending: PendingWait[], tools: RunningTool[], kind: WaitKind, event: LifecycleEvent, nowIso: string): Waits {
  const sameKind = pending.filter((wait) => wait.kind === kind);
  if (event.tool === "" && sameKind.length > 0)
    return { pending, tools, note: `${describe(sameKind)} still open (${event.eventId} states it again)` };
  const unnamed = event.tool === "" ? undefined : sameKind.find((wait) => wait.tool === "");
  if (unnamed) {
    const named: PendingWait = { ...unnamed, tool: event.tool, detail: event.detail, candidates: candidatesFor(tools, event.tool) };
    return {
      pending: pending.map((wait) => (wait === unnamed ? named : wait)),
      tools,
      note: `${describe([named])} (the tool is named now)`,
    };
  }
  const wait: PendingWait = {
    kind,
    tool: event.tool,
    detail: event.detail,
    candidates: candidatesFor(tools, event.tool),
    since: nowIso,
    event: event.eventId,
  };
  return {
    pending: [...pending, wait].slice(-LIMITS.pendingWaits),
    tools,
    note: `opened ${describe([wait])}${pending.length > 0 ? `; ${describe(pending)} also open` : ""}`,
  };
}

function candidatesFor(tools: readonly RunningTool[], tool: string): string[] {
  return tools
    .filter((running) => tool === "" || running.tool === tool)
    .map((running) => running.id)
    .slice(-LIMITS.waitCandidates);
}

/**
 * A tool finished or failed. A wait linked to running tools closes once none of them is running (when several tools of
 * the same name were running, the one that asked cannot be told apart, so the wait lasts until all of them finished); a
 * wait linked to none closes when a tool of its name finishes (any tool, when it names none).
 */
function toolEnded(pending: PendingWait[], tools: RunningTool[], event: LifecycleEvent): Waits {
  // Without an id (an older harness), the oldest running tool of that name is the one that finished.
  const endedId = event.toolUseId ?? tools.find((tool) => tool.tool === event.tool)?.id;
  const left = endedId === undefined ? tools : tools.filter((tool) => tool.id !== endedId);
  const closed: PendingWait[] = [];
  const open: PendingWait[] = [];
  for (const wait of pending) {
    if (wait.candidates.length > 0) {
      const candidates = endedId === undefined ? wait.candidates : wait.candidates.filter((id) => id !== endedId);
      if (candidates.length === 0) closed.push(wait);
      else open.push(candidates.length === wait.candidates.length ? wait : { ...wait, candidates });
    } else if (wait.tool === "" || wait.tool === event.tool) closed.push(wait);
    else open.push(wait);
  }
  const parts = [closed.length > 0 ? `closed ${describe(closed)}` : "", open.length > 0 ? stillOpen(open) : ""].filter(Boolean);
  return { pending: open, tools: left, note: parts.join("; ") };
}

/**
 * A tool starts once the user allowed it (Qwen Code asks before the tool starts, so its permission wait names the tool
 * and links to no running tool). The oldest such permission wait for this tool name, or naming no tool, is answered;
 * the tool then runs like any other.
 */
function toolApproved(pending: PendingWait[], tools: RunningTool[], event: LifecycleEvent): Waits {
  const answered = pending.find(
    (wait) => wait.kind === "permission" && wait.candidates.length === 0 && (wait.tool === event.tool || wait.tool === ""),
  );
  const open = answered ? pending.filter((wait) => wait !== answered) : pending;
  const started =
    event.toolUseId === undefined || tools.some((tool) => tool.id === event.toolUseId)
      ? tools
      : [...tools, { id: event.toolUseId, tool: event.tool }].slice(-LIMITS.runningTools);
  const parts = [answered ? `closed ${describe([answered])} (the tool started)` : "", open.length > 0 ? stillOpen(open) : ""];
  return { pending: open, tools: started, note: parts.filter(Boolean).join("; ") };
}

function describe(waits: readonly PendingWait[]): string {
  return waits
    .map((wait) =>
      wait.kind === "permission"
        ? `permission wait${wait.tool ? ` for ${wait.tool}` : ""}`
        : `input wait${wait.tool ? ` for ${wait.tool}` : ""}`,
    )
    .join(", ");
}

function stillOpen(pending: readonly PendingWait[]): string {
  return `${describe(pending)} still open`;
}
