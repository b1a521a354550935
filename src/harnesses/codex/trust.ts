// Codex's hook trust records, computed the way Codex computes them (codex-rs/hooks/src/engine/discovery.rs,
// `command_hook_hash`; verified against `codex app-server` hooks/list on 0.171.0 by test/live/codex.test.ts):
//   key  = "<canonical hooks.json path>:<snake_case event>:<group index>:<handler index>"
//   hash = "sha256:" + hex(sha256(canonical JSON of {event_name, matcher?, hooks: [{type, command, timeout, async,
//          statusMessage?}]})), object keys sorted, no whitespace; absent optional fields are left out.
import { createHash } from "node:crypto";

export function codexEventKey(event: string): string {
  return event.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
}

export function codexTrustKey(hooksJsonPath: string, event: string, group: number, handler: number): string {
  return `${hooksJsonPath}:${codexEventKey(event)}:${group}:${handler}`;
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

export interface CodexCommandHook {
  readonly event: string;
  readonly command: string;
  /** Seconds; Codex defaults an absent timeout to 600 before hashing. */
  readonly timeout?: number;
  /** Only for events whose matcher Codex honours; Codex drops the matcher of other events before hashing. */
  readonly matcher?: string;
  readonly async?: boolean;
  readonly statusMessage?: string;
}

export function codexTrustHash(hook: CodexCommandHook): string {
  const handler: Record<string, unknown> = {
    type: "command",
    command: hook.command,
    timeout: Math.max(1, hook.timeout ?? 600),
    async: hook.async ?? false,
  };
  if (hook.statusMessage !== undefined) handler.statusMessage = hook.statusMessage;
  const identity: Record<string, unknown> = { event_name: codexEventKey(hook.event), hooks: [handler] };
  if (hook.matcher !== undefined) identity.matcher = hook.matcher;
  return `sha256:${createHash("sha256")
    .update(JSON.stringify(canonical(identity)))
    .digest("hex")}`;
}
