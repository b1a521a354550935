// Captured native payloads of one harness, in the order the harness fired them, through the event table
// (harnesses/events.ts) and the store's state machine (store/apply.ts), without processes or files: what the record
// says after each event. Identity and files are the hook pipeline's and the container suites' concern.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { interpretNative } from "../src/harnesses/events.ts";
import type { NativeAlias } from "../src/harnesses/contract.ts";
import type { HookSpec } from "../src/install/hook-entries.ts";
import type { LifecycleEvent, NativePayload, SessionRecord } from "../src/core/schema.ts";
import { applyEvent } from "../src/store/apply.ts";

/** The record's status, detail and tool after each event; ["ignored", why] when the event table ignores it. */
export type Shown = [status: string, detail: string, tool: string] | ["ignored", string];

/** `names`: fixture files without `.json`, each named `<NativeEvent>[-<variant>]`; the installer's table gives the alias. */
export function replayFixtures(harness: string, dir: string, hooks: readonly HookSpec[], names: readonly string[]): Shown[] {
  return replayRecords(harness, dir, hooks, names).map((shown) =>
    shown.kind === "ignored" ? ["ignored", shown.reason] : [shown.record.status, shown.record.detail, shown.record.tool],
  );
}

/** The whole record after each event (what it says beside the state: a limit, compaction, subagents, the model). */
export function replayRecords(
  harness: string,
  dir: string,
  hooks: readonly HookSpec[],
  names: readonly string[],
): ({ kind: "record"; record: SessionRecord } | { kind: "ignored"; reason: string })[] {
  let record: SessionRecord | undefined;
  return names.map((name, index) => {
    const payload = JSON.parse(readFileSync(join(dir, `${name}.json`), "utf8")) as NativePayload;
    const spec = hooks.find((hook) => hook.event === name.split("-")[0]);
    if (!spec) throw new Error(`${name}: no hook is installed for it`);
    const interpretation = interpretNative(spec.alias as NativeAlias, payload);
    if (interpretation.kind === "ignore") return { kind: "ignored", reason: interpretation.reason };
    const { transition } = interpretation;
    const event: LifecycleEvent = {
      harness,
      alias: spec.alias,
      eventId: `${harness}.${spec.alias}`,
      canonicalId: `fleet:v1:${harness}:${"c".repeat(64)}`,
      sessionId: payload.session_id,
      instanceId: "pid:1@t",
      identity: "process",
      pid: 1,
      processStart: "t",
      cwd: payload.cwd,
      status: transition.status,
      detail: transition.detail,
      tool: transition.tool,
      sequence: null,
      startsSession: spec.alias === "session-start",
      mayCreate: true,
      sharedProcess: false,
      terminal: { env: {} },
      ...(transition.wait ? { wait: transition.wait } : {}),
      ...(transition.toolUseId ? { toolUseId: transition.toolUseId } : {}),
      ...(transition.yieldsTo ? { yieldsTo: [...transition.yieldsTo] } : {}),
      ...(transition.limit ? { limit: transition.limit } : {}),
      ...(transition.compaction ? { compaction: transition.compaction } : {}),
      ...(transition.subagent ? { subagent: transition.subagent } : {}),
      ...(typeof payload.model === "string" && payload.model !== "" ? { model: payload.model } : {}),
    };
    const result = applyEvent(record, event, new Date(Date.UTC(2026, 11, 1, 6, 0, index)).toISOString());
    // A skipped event (one that does not replace the state) leaves the record as it was: that is what is shown.
    if (result.action === "write") record = result.record;
    if (!record) return { kind: "ignored", reason: result.action === "write" ? "" : result.detail };
    return { kind: "record", record };
  });
}
