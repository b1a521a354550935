// Our entries in a Claude-style hooks file (`{"hooks": {"<Event>": [{"hooks": [{"type": "command", ...}]}]}}`, used
// by Claude Code's settings.json and Codex's hooks.json): how they are recognised, and the text edits that install,
// update or remove them while leaving every other entry exactly as it was.
//
// Ownership marker: a handler is ours when its command runs `<node> <.../bin/tongs-agents-hook.cjs> <alias> --agent
// <harness>` or `/bin/sh <.../bin/tongs-agents-hook.sh> <node> <alias> --agent <harness>` (command.ts, `hookCommand`;
// sh-quoted words, nothing else). Our group holds only that handler with keys type, command and timeout.
// A handler that mentions tongs-agents-hook in any other shape was changed by someone: it is reported, never rewritten.
import { basename, dirname, isAbsolute, join } from "node:path";
import { SHIM_SCRIPT, SHIM_SHELL, hookCommand, type HookMode } from "./command.ts";
import { appendJsonItem, removeJsonValue, setJsonValue, type JsonStyle } from "./json-text.ts";
import { splitShellWords } from "./shell-words.ts";
import { isRecord } from "../core/json-value.ts";

export interface HookSpec {
  /** The harness's event name, e.g. PreToolUse. */
  readonly event: string;
  /** Our alias for it, e.g. tool-use. */
  readonly alias: string;
  readonly timeout: number;
  /**
   * A hook that holds while the harness waits, reporting no state event (Claude Code's held PermissionRequest hook):
   * always run by Node itself (`sync`), whatever the installation's hook mode, since the shim only queues an event.
   */
  readonly holds?: true;
}

export interface HookTarget {
  readonly node: string;
  readonly hook: string;
  readonly harness: string;
  /** How the hook runs (default `sync`); when reading entries (doctor), undefined accepts either as current. */
  readonly mode?: HookMode;
}

export const HOOK_SCRIPT = "tongs-agents-hook.cjs";
const LEGACY_HOOK = "claude-fleet-hook";

export interface OurCommand {
  readonly node: string;
  /** bin/tongs-agents-hook.cjs (for the shim: the one beside it, which the shim falls back to). */
  readonly hook: string;
  readonly alias: string;
  readonly agent: string;
  readonly mode: HookMode;
}

/** The parts of one of our hook command lines, or undefined when it is not exactly one of our shapes. */
export function parseOurCommand(command: string): OurCommand | undefined {
  const words = splitShellWords(command);
  if (words?.length === 6 && words[0] === SHIM_SHELL) {
    const [, shim, node, alias, flag, agent] = words as [string, string, string, string, string, string];
    if (!isAbsolute(node) || !isAbsolute(shim) || basename(shim) !== SHIM_SCRIPT || flag !== "--agent") return undefined;
    return { node, hook: join(dirname(shim), HOOK_SCRIPT), alias, agent, mode: "shim" };
  }
  if (!words || words.length !== 5) return undefined;
  const [node, hook, alias, flag, agent] = words as [string, string, string, string, string];
  if (!isAbsolute(node) || !isAbsolute(hook) || basename(hook) !== HOOK_SCRIPT || flag !== "--agent") return undefined;
  return { node, hook, alias, agent, mode: "sync" };
}

/** claude-fleet-monitor 0.9.x ran `claude-fleet-hook <status> --agent <agent>` (its pip entry point, by name or path). */
export function isLegacyCommand(command: string): boolean {
  const words = splitShellWords(command);
  if (words) return words.some((word) => basename(word) === LEGACY_HOOK || basename(word) === `${LEGACY_HOOK}.exe`);
  return command.includes(LEGACY_HOOK);
}

const modeOf = (spec: HookSpec, target: HookTarget): HookMode => (spec.holds ? "sync" : (target.mode ?? "sync"));

export function ourGroup(spec: HookSpec, target: HookTarget): Record<string, unknown> {
  return {
    hooks: [
      {
        type: "command",
        command: hookCommand({
          node: target.node,
          hook: target.hook,
          alias: spec.alias,
          agent: target.harness,
          mode: modeOf(spec, target),
        }),
        timeout: spec.timeout,
      },
    ],
  };
}

export type EntryKind =
  { kind: "foreign" } | { kind: "legacy" } | { kind: "ours"; command: OurCommand; current: boolean } | { kind: "modified"; reason: string };

function sameKeys(record: Record<string, unknown>, keys: readonly string[]): boolean {
  const own = Object.keys(record);
  return own.length === keys.length && keys.every((key) => Object.hasOwn(record, key));
}

/** Classify handler `handlerIndex` of `group` under `event`. */
export function classifyHandler(
  event: string,
  group: Record<string, unknown>,
  handlerIndex: number,
  specs: readonly HookSpec[],
  target: HookTarget,
): EntryKind {
  const handlers = group.hooks as unknown[];
  const handler = handlers[handlerIndex];
  if (!isRecord(handler) || typeof handler.command !== "string") return { kind: "foreign" };
  const command = handler.command;
  if (isLegacyCommand(command)) return { kind: "legacy" };
  if (!command.includes("tongs-agents-hook")) return { kind: "foreign" };
  const ours = parseOurCommand(command);
  if (!ours) return { kind: "modified", reason: "its command line is not the one the installer writes" };
  const forEvent = specs.filter((candidate) => candidate.event === event);
  const spec = forEvent.find((candidate) => candidate.alias === ours.alias) ?? forEvent[0];
  if (!spec) return { kind: "modified", reason: `${event} is not an event the installer uses` };
  if (ours.alias !== spec.alias || ours.agent !== target.harness)
    return { kind: "modified", reason: `it runs "${ours.alias} --agent ${ours.agent}", not "${spec.alias} --agent ${target.harness}"` };
  if (!sameKeys(group, ["hooks"]) || handlers.length !== 1) return { kind: "modified", reason: "its group has other keys or handlers" };
  if (!sameKeys(handler, ["type", "command", "timeout"]) || handler.type !== "command")
    return { kind: "modified", reason: "the handler has other keys" };
  if (handler.timeout !== spec.timeout)
    return { kind: "modified", reason: `its timeout is ${JSON.stringify(handler.timeout)}, not ${spec.timeout}` };
  const wantedMode = spec.holds ? "sync" : target.mode;
  const sameMode = wantedMode === undefined || ours.mode === wantedMode;
  return { kind: "ours", command: ours, current: ours.node === target.node && ours.hook === target.hook && sameMode };
}

export interface EntryRef {
  readonly event: string;
  readonly group: number;
  readonly handler: number;
  readonly entry: EntryKind;
  readonly command: string;
  readonly timeout: unknown;
}

/** Every handler in the document's `hooks`, classified. */
export function scanHooks(data: Record<string, unknown>, specs: readonly HookSpec[], target: HookTarget): EntryRef[] {
  const refs: EntryRef[] = [];
  const hooks = data.hooks;
  if (!isRecord(hooks)) return refs;
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    groups.forEach((group, groupIndex) => {
      if (!isRecord(group) || !Array.isArray(group.hooks)) return;
      group.hooks.forEach((handler, handlerIndex) => {
        const record = isRecord(handler) ? handler : {};
        refs.push({
          event,
          group: groupIndex,
          handler: handlerIndex,
          entry: classifyHandler(event, group, handlerIndex, specs, target),
          command: typeof record.command === "string" ? record.command : "",
          timeout: record.timeout,
        });
      });
    });
  }
  return refs;
}

/** The alias of one of our entries (undefined for any other). */
export const ownAlias = (ref: EntryRef): string | undefined => (ref.entry.kind === "ours" ? ref.entry.command.alias : undefined);

export interface HookEdit {
  readonly text: string;
  readonly changes: string[];
  readonly problems: { severity: "conflict" | "error" | "warning"; message: string }[];
}

/** Shape problems that stop us from editing the hooks of this document at all. */
export function hooksShapeProblem(data: Record<string, unknown>, specs: readonly HookSpec[]): string | undefined {
  if (data.hooks === undefined) return undefined;
  if (!isRecord(data.hooks)) return '"hooks" is not an object';
  for (const spec of specs) {
    const groups = data.hooks[spec.event];
    if (groups !== undefined && !Array.isArray(groups)) return `"hooks.${spec.event}" is not an array`;
  }
  return undefined;
}

/**
 * Install: remove legacy entries, rewrite ours in place when paths moved, drop duplicates of ours, add what is missing.
 * Uninstall: remove every entry of ours (any paths). Entries that look like ours but were changed are reported.
 * An event list or the `hooks` object emptied by these removals is removed too; one that was already empty stays, and
 * so does a `hooks` object the user had empty before install.
 */
export function editHooks(
  text: string,
  data: Record<string, unknown>,
  style: JsonStyle,
  specs: readonly HookSpec[],
  target: HookTarget,
  mode: "install" | "uninstall",
  label: string,
  /** Codex keys trust by position: say when removing ours moves someone else's entries. */
  positionalTrust = false,
  /** Top-level keys the user had empty before install (Intent.emptyBefore): emptied again, they stay. */
  emptyBefore: ReadonlySet<string> = new Set(),
): HookEdit {
  const changes: string[] = [];
  const problems: HookEdit["problems"] = [];
  const refs = scanHooks(data, specs, target);
  const hooks = isRecord(data.hooks) ? data.hooks : {};
  // Removals per event, from the highest index down so earlier indices stay valid.
  const removals: { event: string; group: number; handler?: number }[] = [];
  const replacements: { event: string; group: number; spec: HookSpec }[] = [];
  const appends: HookSpec[] = [];
  for (const ref of refs) {
    if (ref.entry.kind === "modified")
      problems.push({
        severity: "conflict",
        message: `${label}: hooks.${ref.event}[${ref.group}] runs tongs-agents-hook but ${ref.entry.reason}; left as it is (fix or remove it by hand, then run the command again)`,
      });
  }
  const legacy = mode === "install" ? refs.filter((ref) => ref.entry.kind === "legacy") : [];
  const legacyByGroup = new Map<string, EntryRef[]>();
  for (const ref of legacy)
    legacyByGroup.set(`${ref.event}\0${ref.group}`, [...(legacyByGroup.get(`${ref.event}\0${ref.group}`) ?? []), ref]);
  for (const refsInGroup of legacyByGroup.values()) {
    const first = refsInGroup[0] as EntryRef;
    const groupSize = ((hooks[first.event] as unknown[])[first.group] as { hooks: unknown[] }).hooks.length;
    if (refsInGroup.length === groupSize) removals.push({ event: first.event, group: first.group });
    else for (const ref of refsInGroup) removals.push({ event: ref.event, group: ref.group, handler: ref.handler });
    changes.push(`remove claude-fleet-monitor hook ${first.event}: ${refsInGroup.map((ref) => ref.command).join("; ")}`);
  }
  const ours = refs.filter((ref) => ref.entry.kind === "ours");
  if (mode === "uninstall") {
    for (const ref of ours) {
      removals.push({ event: ref.event, group: ref.group });
      changes.push(`remove ${ref.event} -> ${(ref.entry as { command: OurCommand }).command.alias}`);
    }
  } else {
    for (const spec of specs) {
      const mine = ours.filter((ref) => ref.event === spec.event && ownAlias(ref) === spec.alias);
      const [keep, ...duplicates] = mine;
      if (keep) {
        if (keep.entry.kind === "ours" && !keep.entry.current) {
          replacements.push({ event: spec.event, group: keep.group, spec });
          const moved = keep.entry.command.node !== target.node || keep.entry.command.hook !== target.hook;
          changes.push(`update ${spec.event} -> ${spec.alias} (${moved ? "new paths" : `hook mode ${modeOf(spec, target)}`})`);
        }
        for (const duplicate of duplicates) {
          removals.push({ event: duplicate.event, group: duplicate.group });
          changes.push(`remove duplicate ${spec.event} -> ${spec.alias}`);
        }
      } else if (refs.some((ref) => ref.event === spec.event && ref.entry.kind === "modified")) {
        // reported above; adding another entry would run the hook twice
      } else {
        appends.push(spec);
        changes.push(`add ${spec.event} -> ${spec.alias}`);
      }
    }
  }
  let out = text;
  for (const replacement of replacements)
    out = setJsonValue(out, ["hooks", replacement.event, replacement.group], ourGroup(replacement.spec, target), style);
  const byEvent = new Map<string, typeof removals>();
  for (const removal of removals) byEvent.set(removal.event, [...(byEvent.get(removal.event) ?? []), removal]);
  const emptiedEvents: string[] = [];
  for (const [event, list] of byEvent) {
    list.sort((a, b) => b.group - a.group || (b.handler ?? -1) - (a.handler ?? -1));
    for (const removal of list) {
      out =
        removal.handler === undefined
          ? removeJsonValue(out, ["hooks", event, removal.group])
          : removeJsonValue(out, ["hooks", event, removal.group, "hooks", removal.handler]);
    }
    const before = hooks[event] as unknown[];
    const removedGroups = new Set(list.filter((removal) => removal.handler === undefined).map((removal) => removal.group));
    if (before.length > 0 && before.every((_, index) => removedGroups.has(index))) emptiedEvents.push(event);
    const last = Math.max(...removedGroups, -1);
    if (
      positionalTrust &&
      mode === "uninstall" &&
      last >= 0 &&
      last < before.length - 1 &&
      before.slice(last + 1).some((_, offset) => !removedGroups.has(last + 1 + offset))
    ) {
      problems.push({
        severity: "warning",
        message: `${label}: entries after ours in hooks.${event} move up; Codex asks to review hooks whose position changed`,
      });
    }
  }
  for (const spec of appends) {
    const index = emptiedEvents.indexOf(spec.event);
    if (index >= 0) emptiedEvents.splice(index, 1);
    out = appendJsonItem(out, ["hooks", spec.event], ourGroup(spec, target), style);
  }
  for (const event of emptiedEvents) out = removeJsonValue(out, ["hooks", event]);
  const remaining = Object.keys(hooks).filter((event) => !emptiedEvents.includes(event));
  if (Object.keys(hooks).length > 0 && remaining.length === 0 && appends.length === 0 && !emptyBefore.has("hooks"))
    out = removeJsonValue(out, ["hooks"]);
  return { text: out, changes, problems };
}
