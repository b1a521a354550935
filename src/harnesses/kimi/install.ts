// Kimi Code: our hooks as `[[hooks]]` tables in $KIMI_CODE_HOME/config.toml (`event`, `command`, `timeout` in seconds;
// its schema allows `matcher` too, which we leave out so each runs for every tool and source), edited as text so every
// other byte of the user's config stays as it was (src/install/toml-text.ts), and our MCP server in mcp.json (mcp.ts).
// A table is ours when it holds exactly those three keys and its command is our hook command for Kimi; one that runs
// tongs-agents-hook in any other shape was changed by someone and is reported, never rewritten.
// Kimi Code 2.1.0 runs a hook's command with a shell (`spawn(command, { shell: true })`: /bin/sh -c on Linux) and
// waits only for some events (SessionStart, SessionEnd, UserPromptSubmit, PreToolUse, Stop); the others it fires and
// forgets. Its PermissionRequest hook observes the approval dialog and cannot answer it (kimi-code #1326).
import { isDeepStrictEqual } from "node:util";
import { hookCommand, type HookMode } from "../../install/command.ts";
import { readConfigFile } from "../../install/file-edit.ts";
import { parseOurCommand, type HookSpec, type HookTarget } from "../../install/hook-entries.ts";
import { conflict, error, note, type Finding, type HarnessPlan, type HookCheck, type Step } from "../../install/plan.ts";
import type { Intent } from "../../install/provider.ts";
import { arrayTables, editArrayTables, parseTomlDocument, type ArrayTable, type TomlScalar } from "../../install/toml-text.ts";
import { ourPaths, which, type InstallContext } from "../../install/context.ts";
import { hookStatus } from "../../install/doctor.ts";
import { kimiConfigPath } from "./locations.ts";
import { planKimiMcp } from "./mcp.ts";

export const KIMI_HOOKS: readonly HookSpec[] = [
  { event: "SessionStart", alias: "session-start", timeout: 5 },
  { event: "UserPromptSubmit", alias: "prompt-submit", timeout: 5 },
  { event: "PreToolUse", alias: "tool-use", timeout: 5 },
  { event: "PostToolUse", alias: "tool-done", timeout: 5 },
  { event: "PostToolUseFailure", alias: "tool-failed", timeout: 5 },
  { event: "PermissionRequest", alias: "permission-request", timeout: 5 },
  { event: "Stop", alias: "stop", timeout: 5 },
  { event: "StopFailure", alias: "stop-failure", timeout: 5 },
  { event: "Interrupt", alias: "interrupt", timeout: 5 },
  { event: "SessionEnd", alias: "session-end", timeout: 5 },
];

const HOOKS = ["hooks"];
const KEYS = ["event", "command", "timeout"];

type Entries = readonly (readonly [string, TomlScalar])[];

function ourEntries(spec: HookSpec, target: HookTarget, mode: HookMode): Entries {
  return [
    ["event", spec.event],
    ["command", hookCommand({ node: target.node, hook: target.hook, alias: spec.alias, agent: target.harness, mode })],
    ["timeout", spec.timeout],
  ];
}

export type KimiTable =
  | { readonly kind: "foreign" }
  /** Ours for `spec`; current when written for this installation (and mode, when one is asked for). */
  | { readonly kind: "ours"; readonly spec: HookSpec; readonly current: boolean }
  | { readonly kind: "modified"; readonly reason: string };

/** Whose `[[hooks]]` table this is. */
export function classifyKimiTable(table: ArrayTable, target: HookTarget): KimiTable {
  const body = table.body;
  const command = body?.command;
  if (typeof command !== "string" || !command.includes("tongs-agents-hook")) return { kind: "foreign" };
  const ours = parseOurCommand(command);
  if (!ours || ours.agent !== target.harness) return { kind: "modified", reason: "its command line is not the one the installer writes" };
  const spec = KIMI_HOOKS.find((candidate) => candidate.event === body?.event);
  if (!spec || spec.alias !== ours.alias) return { kind: "modified", reason: `it runs "${ours.alias}" for ${String(body?.event)}` };
  const keys = Object.keys(body ?? {});
  if (keys.length !== KEYS.length || !KEYS.every((key) => keys.includes(key)) || body?.timeout !== spec.timeout)
    return { kind: "modified", reason: "it has other keys or another timeout" };
  const modes: readonly HookMode[] = target.mode ? [target.mode] : ["shim", "sync"];
  const current = modes.some((mode) => isDeepStrictEqual({ ...body }, Object.fromEntries(ourEntries(spec, target, mode))));
  return { kind: "ours", spec, current };
}

export type KimiConfig =
  | { readonly ok: true; readonly text: string | null; readonly tables: readonly (ArrayTable & { readonly owner: KimiTable })[] }
  | { readonly ok: false; readonly detail: string };

export function readKimiConfig(path: string, target: HookTarget): KimiConfig {
  const read = readConfigFile(path);
  if (!read.ok) return { ok: false, detail: read.detail };
  if (read.text === null) return { ok: true, text: null, tables: [] };
  const doc = parseTomlDocument(read.text);
  if (!doc.ok) return { ok: false, detail: `${path} is ${doc.detail}` };
  if (doc.data.hooks !== undefined && !Array.isArray(doc.data.hooks))
    return { ok: false, detail: `${path}: "hooks" is not an array of tables` };
  const tables = arrayTables(read.text, HOOKS).map((table) => ({ ...table, owner: classifyKimiTable(table, target) }));
  return { ok: true, text: read.text, tables };
}

/** Doctor's view of each of our hooks. */
export function kimiHookChecks(config: KimiConfig): HookCheck[] {
  const tables = config.ok ? config.tables : [];
  return KIMI_HOOKS.map((spec) => ({
    event: spec.event,
    alias: spec.alias,
    status: hookStatus(tables.filter((table) => table.body?.event === spec.event).map((table) => table.owner)),
  }));
}

/** The new config text for `intent`, and what changed, or the problem that stops the edit. */
function editConfig(
  config: Extract<KimiConfig, { ok: true }>,
  target: HookTarget,
  mode: HookMode,
  intent: Intent,
  findings: Finding[],
  path: string,
): { text: string; why: string[] } | undefined {
  const remove = new Set<number>();
  const replace = new Map<number, Entries>();
  const why: string[] = [];
  const kept = new Set<string>();
  for (const table of config.tables) {
    const owner = table.owner;
    if (owner.kind === "modified")
      findings.push(
        conflict(`${path}: a [[hooks]] table at line ${table.span.start + 1} runs tongs-agents-hook but ${owner.reason}; left as it is`),
      );
    if (owner.kind !== "ours") continue;
    if (intent.mode === "uninstall" || kept.has(owner.spec.event)) remove.add(table.span.start);
    else {
      kept.add(owner.spec.event);
      if (!owner.current) replace.set(table.span.start, ourEntries(owner.spec, target, mode));
    }
  }
  const append =
    intent.mode === "install" ? KIMI_HOOKS.filter((spec) => !kept.has(spec.event)).map((spec) => ourEntries(spec, target, mode)) : [];
  if (remove.size > 0) why.push(`remove ${remove.size} of our [[hooks]] tables`);
  if (replace.size > 0) why.push(`update ${replace.size} of our [[hooks]] tables (this installation's Node and hook paths)`);
  if (append.length > 0) why.push(`add our hooks for ${append.length} Kimi Code events ([[hooks]] tables)`);
  if (why.length === 0) return undefined;
  try {
    return { text: editArrayTables(config.text ?? "", HOOKS, { remove, replace, append }), why };
  } catch (failure) {
    findings.push(error(`${path}: ${(failure as Error).message}; left untouched`));
    return undefined;
  }
}

export async function planKimi(world: InstallContext, intent: Intent): Promise<HarnessPlan> {
  const findings: Finding[] = [];
  const steps: Step[] = [];
  const paths = ourPaths(world);
  const target = { node: paths.node, hook: paths.hook, harness: "kimi", mode: paths.hookMode };
  const path = kimiConfigPath(world);
  const config = readKimiConfig(path, target);
  if (!config.ok) findings.push(error(`${config.detail}; left untouched. Fix it, then run the command again.`));
  else {
    const edit = editConfig(config, target, paths.hookMode, intent, findings, path);
    if (edit) steps.push({ kind: "write", path, before: config.text, after: edit.text, why: edit.why });
  }
  const mcp = planKimiMcp(world, intent, findings);
  if (mcp) steps.push(mcp);
  const todo = steps.length > 0 ? ["Restart running Kimi Code sessions: they read their hooks when they start."] : [];
  if (intent.mode === "install" && !which("kimi", world.env))
    findings.push(note("The kimi CLI is not on PATH (not installed, or installed elsewhere)."));
  return { harness: "kimi", steps, findings, todo, files: [path] };
}
