// `tongs-agents install`, `uninstall` and `doctor`: plan per harness, then carry the plan out (or only report it with
// --dry-run); doctor reports what is installed and what is left to do.
import type { ParseArgsConfig } from "node:util";
import { EXIT_CODES, type Failure } from "../core/errors.ts";
import { runDoctor } from "../install/doctor.ts";
import { runInstaller } from "../install/installer.ts";
import { DEFAULT_INSTALL_IDS, INSTALLABLE_IDS, installersFor } from "../harnesses/installers.ts";
import type { HarnessId, InstallReport } from "../install/plan.ts";
import { defaultWorld, type InstallWorld } from "../install/world.ts";
import type { CliContext } from "./context.ts";
import { formatDoctorReport, formatInstallReport } from "./format-install.ts";
import { fail, parse, type CliIo, type Verb } from "./io.ts";

export interface InstallArgs {
  readonly agents: readonly string[];
  readonly dryRun: boolean;
  readonly trustCodexHooks: boolean;
}

/** `--agent` values to harness ids: none means Claude Code and Codex; `all` adds Pi. */
export function selectHarnesses(agents: readonly string[], fallback: readonly HarnessId[] = DEFAULT_INSTALL_IDS): HarnessId[] | Failure {
  if (agents.length === 0) return [...fallback];
  const selected = new Set<HarnessId>();
  for (const agent of agents) {
    if (agent === "all") INSTALLABLE_IDS.forEach((id) => selected.add(id));
    else if ((INSTALLABLE_IDS as readonly string[]).includes(agent)) selected.add(agent as HarnessId);
    else return { ok: false, reason: "usage", detail: `unknown agent ${JSON.stringify(agent)} (${INSTALLABLE_IDS.join(", ")} or all)` };
  }
  return INSTALLABLE_IDS.filter((id) => selected.has(id));
}

export function worldOf(context: CliContext): InstallWorld {
  return context.installWorld ?? defaultWorld(context.env);
}

export async function installAgents(context: CliContext, args: InstallArgs, mode: "install" | "uninstall"): Promise<InstallReport | Failure> {
  const harnesses = selectHarnesses(args.agents);
  if (!Array.isArray(harnesses)) return harnesses;
  return runInstaller(worldOf(context), { harnesses: installersFor(harnesses), dryRun: args.dryRun, mode, trustCodexHooks: mode === "install" && args.trustCodexHooks });
}

function homeOf(context: CliContext): string {
  return context.installWorld?.home ?? context.env.HOME ?? "/";
}

async function installOrUninstall(args: string[], context: CliContext, io: CliIo, mode: "install" | "uninstall"): Promise<number> {
  const options: ParseArgsConfig["options"] = { agent: { type: "string", multiple: true }, "dry-run": { type: "boolean" }, json: { type: "boolean" } };
  if (mode === "install") options["trust-codex-hooks"] = { type: "boolean" };
  const parsed = parse(args, options, 0);
  if ("ok" in parsed) return fail(parsed, io, false);
  const json = parsed.values.json === true;
  const result = await installAgents(context, { agents: (parsed.values.agent as string[] | undefined) ?? [], dryRun: parsed.values["dry-run"] === true, trustCodexHooks: parsed.values["trust-codex-hooks"] === true }, mode);
  if ("reason" in result) return fail(result, io, json);
  io.stdout(json ? JSON.stringify(result, null, 2) : formatInstallReport(result, homeOf(context)));
  return result.ok ? EXIT_CODES.ok : EXIT_CODES.error;
}

export const installVerb: Verb = (args, context, io) => installOrUninstall(args, context, io, "install");
export const uninstallVerb: Verb = (args, context, io) => installOrUninstall(args, context, io, "uninstall");

export const doctorVerb: Verb = async (args, context, io) => {
  const parsed = parse(args, { agent: { type: "string", multiple: true }, json: { type: "boolean" } }, 0);
  if ("ok" in parsed) return fail(parsed, io, false);
  const json = parsed.values.json === true;
  const harnesses = selectHarnesses((parsed.values.agent as string[] | undefined) ?? [], INSTALLABLE_IDS);
  if (!Array.isArray(harnesses)) return fail(harnesses, io, json);
  const result = await runDoctor(worldOf(context), installersFor(harnesses));
  io.stdout(json ? JSON.stringify(result, null, 2) : formatDoctorReport(result, homeOf(context)));
  return result.ok ? EXIT_CODES.ok : EXIT_CODES.error;
};
