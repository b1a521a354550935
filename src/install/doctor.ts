// tongs-agents doctor: per harness, is it installed (binary on PATH, version), are our hooks present and current, is
// the MCP server registered, is anything left from claude-fleet-monitor, and what must the user still do. Each harness
// adapter examines its own files (src/harnesses/<id>/doctor.ts) with the checks shared here.
import { existsSync } from "node:fs";
import { readConfigFile } from "./file-edit.ts";
import { ownAlias, parseOurCommand, scanHooks, type HookSpec } from "./hook-entries.ts";
import { parseJsonDocument, type JsonDialect } from "./json-text.ts";
import type { McpState } from "./mcp-entry.ts";
import type { DoctorReport, HarnessDoctor, HarnessId, HookCheck, HookStatus } from "./plan.ts";
import type { InstallProvider } from "./provider.ts";
import { ourPaths, which, type InstallContext } from "./context.ts";

async function versionOf(world: InstallContext, binary: string | undefined, env: NodeJS.ProcessEnv = world.env): Promise<string | null> {
  if (!binary) return null;
  const result = await world.exec(binary, ["--version"], { env, timeoutMs: 15_000 });
  const line = `${result.stdout}`.trim().split("\n")[0] ?? "";
  return result.ok && line ? line : null;
}

export function jsonData(path: string, problems: string[], dialect: JsonDialect = "json"): Record<string, unknown> | undefined {
  const read = readConfigFile(path);
  if (!read.ok) {
    problems.push(read.detail);
    return undefined;
  }
  const doc = parseJsonDocument(read.text ?? "", dialect);
  if (!doc.ok) {
    problems.push(`${path} is ${doc.detail}`);
    return undefined;
  }
  return doc.data;
}

export function hookChecks(
  data: Record<string, unknown> | undefined,
  specs: readonly HookSpec[],
  world: InstallContext,
  harness: string,
  legacy: string[],
  problems: string[],
  label: string,
  nodes: Set<string>,
): HookCheck[] {
  const paths = ourPaths(world);
  const refs = data ? scanHooks(data, specs, { node: paths.node, hook: paths.hook, harness }) : [];
  const missing = new Set<string>();
  for (const ref of refs)
    if (ref.entry.kind === "ours")
      for (const file of [ref.entry.command.node, ref.entry.command.hook]) if (!existsSync(file)) missing.add(file);
  for (const file of missing)
    problems.push(`${label}: our hooks run ${file}, which does not exist (the hooks fail until you run install again)`);
  for (const ref of refs) if (ref.entry.kind === "ours" && existsSync(ref.entry.command.node)) nodes.add(ref.entry.command.node);
  if (refs.some((ref) => ref.entry.kind === "legacy")) legacy.push(`${label}: claude-fleet-monitor hooks (claude-fleet-hook)`);
  return specs.map((spec) => ({
    event: spec.event,
    alias: spec.alias,
    status: hookStatus(
      refs.filter((ref) => ref.event === spec.event && (ownAlias(ref) ?? spec.alias) === spec.alias).map((ref) => ref.entry),
    ),
  }));
}

/** One hook's status from what was found for its event: ours (current or outdated), changed by hand, or nothing. */
export function hookStatus(found: readonly { readonly kind: string; readonly current?: boolean }[]): HookStatus {
  const ours = found.find((entry) => entry.kind === "ours");
  if (ours) return ours.current ? "current" : "outdated";
  return found.some((entry) => entry.kind === "modified") ? "modified" : "missing";
}

export function hooksTodo(hooks: readonly HookCheck[], command: string, todo: string[]): void {
  if (hooks.some((hook) => hook.status === "missing" || hook.status === "outdated"))
    todo.push(`Run \`${command}\` to add or update the hooks.`);
  if (hooks.some((hook) => hook.status === "modified"))
    todo.push("Some hook entries that run tongs-agents-hook were changed by hand: fix or remove them (install lists them).");
}

/** The Node each of our hook commands runs (a command that is not ours is passed over), for checkNodes. */
export function hookNodes(commands: Iterable<string>): Set<string> {
  const nodes = new Set<string>();
  for (const command of commands) {
    const ours = parseOurCommand(command);
    if (ours) nodes.add(ours.node);
  }
  return nodes;
}

/**
 * Our MCP server's registration in a harness's own file, as doctor words it: absent or outdated is a to-do (install
 * writes it), someone else's entry under our name a problem (install leaves it). `where` names the file and the entry.
 */
export function mcpTodo(mcp: McpState | "unknown", agent: string, where: string, todo: string[], problems: string[]): void {
  if (mcp === "absent" || mcp === "outdated") todo.push(`Run \`tongs-agents install --agent ${agent}\` to register the MCP server.`);
  if (mcp === "foreign") problems.push(`${where} is not what the installer writes`);
}

/** A harness's program as doctor names it: "Install <displayName> (<installHint>), or put <binary> on PATH." */
export interface DoctorProgram {
  readonly displayName: string;
  readonly binary: string;
  readonly installHint: string;
}

/** What a harness's doctor found in its files, for doctorReport. */
export interface DoctorFindings {
  readonly harness: HarnessId;
  readonly program: DoctorProgram;
  /** The environment `<binary> --version` runs in (one that keeps the harness from updating itself, for example). */
  readonly versionEnv?: NodeJS.ProcessEnv;
  readonly hooks?: readonly HookCheck[];
  readonly mcp: HarnessDoctor["mcp"];
  readonly bridge?: HarnessDoctor["bridge"];
  readonly problems: readonly string[];
  readonly legacy?: readonly string[];
  /** What the user must do; the report begins it with installing the program where it is not on PATH. */
  readonly todo: readonly string[];
  /** What the user may do: listed after the to-dos, never making the harness not ok. */
  readonly advice?: readonly string[];
}

/** One harness's report: its program on PATH and the version it states, and ok when nothing is to do and nothing wrong. */
export async function doctorReport(world: InstallContext, found: DoctorFindings): Promise<HarnessDoctor> {
  const { program, hooks = [], bridge, problems, legacy = [], advice = [] } = found;
  const binary = which(program.binary, world.env);
  const todo = binary
    ? found.todo
    : [`Install ${program.displayName} (${program.installHint}), or put ${program.binary} on PATH.`, ...found.todo];
  return {
    harness: found.harness,
    binary: binary ?? null,
    version: await versionOf(world, binary, found.versionEnv),
    hooks,
    mcp: found.mcp,
    ...(bridge === undefined ? {} : { bridge }),
    problems,
    legacy,
    todo: [...todo, ...advice],
    ok: todo.length === 0 && problems.length === 0,
  };
}

/** The Node each hook runs must be 22 or newer: on an older one the hook does nothing (it fails open). */
export async function checkNodes(world: InstallContext, nodes: Set<string>, problems: string[]): Promise<void> {
  for (const node of nodes) {
    if (node === world.nodePath) continue;
    const version = await versionOf(world, node);
    const major = Number(/^v(\d+)\./.exec(version ?? "")?.[1] ?? 0);
    if (major < 22)
      problems.push(
        `our hooks run ${node} (${version ?? "version unknown"}): the hook needs Node 22 or newer; run install again with Node 22`,
      );
  }
}

/** Each selected harness's installer examines its own files; the report adds the Node the hooks run with. */
export async function runDoctor(world: InstallContext, installers: readonly InstallProvider[]): Promise<DoctorReport> {
  const major = Number(world.nodeVersion.split(".")[0]);
  const reports = [];
  for (const installer of installers) reports.push(await installer.doctor(world));
  // Not installing a harness is a choice, not a fault: the report is not ok only when something is broken.
  const ok = major >= 22 && reports.every((report) => report.problems.length === 0);
  return {
    node: { path: world.nodePath, version: world.nodeVersion, ok: major >= 22 },
    package_root: world.packageRoot,
    harnesses: reports,
    ok,
  };
}
