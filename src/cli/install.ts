// `tongs-agents install`, `uninstall` and `doctor`: plan per harness, then carry the plan out (or only report it with
// --dry-run); doctor reports what is installed and what is left to do.
import { existsSync } from "node:fs";
import type { ParseArgsConfig } from "node:util";
import { EXIT_CODES, type Failure } from "../core/errors.ts";
import { runDoctor } from "../install/doctor.ts";
import { declaredAgentsReport, formatDeclaredAgents } from "./declared.ts";
import { runInstaller } from "../install/installer.ts";
import { installersFor } from "../harnesses/installers.ts";
import { DEFAULT_INSTALL_IDS, findHarness, INSTALL_OPTIONS, INSTALLABLE_IDS } from "../harnesses/registry.ts";
import type { DoctorReport, HarnessId, InstallReport } from "../install/plan.ts";
import { reportRows } from "../harnesses/reports.ts";
import { checkVersion } from "../harnesses/versions.ts";
import { purgePlan, purgeStateDir, type PurgeResult } from "../install/purge.ts";
import { stopDrainer } from "../store/drainer-process.ts";
import { stopServer } from "../server/control.ts";
import { socketPathOf } from "../server/protocol.ts";
import { defaultInstallContext, type InstallContext } from "../install/context.ts";
import { HOOK_MODES, type HookMode } from "../install/command.ts";
import type { CliContext } from "./context.ts";
import { shortenHome } from "../core/home.ts";
import { formatDoctorReport, formatInstallReport, type DoctorEntry } from "./format-install.ts";
import { withHelp, type VerbHelp } from "./help.ts";
import { fail, parse, type VerbIo, type Verb } from "./io.ts";
import { quoted } from "../core/terminal-text.ts";
import { didYouMean } from "../core/suggest.ts";

export interface InstallArgs {
  readonly agents: readonly string[];
  readonly dryRun: boolean;
  /** The harness-specific options given (each harness declares its own: `--trust-codex-hooks`, say). */
  readonly options: readonly string[];
  /** `--hook shim|sync`: how harnesses run the hook (default: the shim on Linux). */
  readonly hook?: HookMode;
}

/** `--agent` values to harness ids: none means the harnesses installed by default; `all` means every one. */
export function selectHarnesses(agents: readonly string[], fallback: readonly HarnessId[] = DEFAULT_INSTALL_IDS): HarnessId[] | Failure {
  if (agents.length === 0) return [...fallback];
  const selected = new Set<HarnessId>();
  for (const agent of agents) {
    if (agent === "all") INSTALLABLE_IDS.forEach((id) => selected.add(id));
    else if ((INSTALLABLE_IDS as readonly string[]).includes(agent)) selected.add(agent as HarnessId);
    else {
      const hint = didYouMean(agent, [...INSTALLABLE_IDS, "all"]);
      return {
        ok: false,
        reason: "usage",
        detail: `unknown agent ${quoted(agent)}${hint === "" ? ` (${INSTALLABLE_IDS.join(", ")} or all)` : hint}`,
      };
    }
  }
  return INSTALLABLE_IDS.filter((id) => selected.has(id));
}

export function worldOf(context: CliContext): InstallContext {
  return context.install ?? defaultInstallContext(context.env);
}

export async function installAgents(
  context: CliContext,
  args: InstallArgs,
  mode: "install" | "uninstall",
): Promise<InstallReport | Failure> {
  const harnesses = selectHarnesses(args.agents);
  if (!Array.isArray(harnesses)) return harnesses;
  const world = worldOf(context);
  return runInstaller(args.hook ? { ...world, hookMode: args.hook } : world, {
    harnesses: await installersFor(harnesses),
    dryRun: args.dryRun,
    mode,
    options: mode === "install" ? args.options : [],
  });
}

function homeOf(context: CliContext): string {
  return context.install?.home ?? context.env.HOME ?? "/";
}

async function installOrUninstall(args: string[], context: CliContext, io: VerbIo, mode: "install" | "uninstall"): Promise<number> {
  const options: ParseArgsConfig["options"] = {
    agent: { type: "string", multiple: true },
    "dry-run": { type: "boolean" },
    verbose: { type: "boolean" },
    json: { type: "boolean" },
  };
  if (mode === "install") {
    options.hook = { type: "string" };
    for (const option of INSTALL_OPTIONS) options[option.name] = { type: "boolean" };
  } else options.purge = { type: "boolean" };
  const parsed = parse(args, options, 0);
  if ("ok" in parsed) return fail(parsed, io, false);
  const json = parsed.values.json === true;
  const dryRun = parsed.values["dry-run"] === true;
  const hook = parsed.values.hook as string | undefined;
  if (hook !== undefined && !(HOOK_MODES as readonly string[]).includes(hook))
    return fail({ ok: false, reason: "usage", detail: `--hook takes ${HOOK_MODES.join(" or ")}, not ${quoted(hook)}` }, io, json);
  const result = await installAgents(
    context,
    {
      agents: (parsed.values.agent as string[] | undefined) ?? [],
      dryRun,
      options: INSTALL_OPTIONS.filter((option) => parsed.values[option.name] === true).map((option) => option.name),
      ...(hook ? { hook: hook as HookMode } : {}),
    },
    mode,
  );
  if ("reason" in result) return fail(result, io, json);
  if (!json) io.stdout(formatInstallReport(result, homeOf(context), { verbose: parsed.values.verbose === true }));
  // --purge: the state dir goes only after everything else was removed (a hook left in place would write there again).
  const purge = parsed.values.purge !== true ? undefined : await purgeAfterUninstall(context, io, { dryRun, json, uninstalled: result.ok });
  if (json) {
    // What each harness can and cannot report (its degradation tier), beside what install does for it.
    const harnesses = result.harnesses.map((report) => {
      const harness = mode === "install" ? findHarness(report.harness) : undefined;
      return harness ? { ...report, reports: reportRows(harness) } : report;
    });
    io.stdout(JSON.stringify({ ...result, harnesses, ...(purge ? { purge } : {}) }, null, 2));
  }
  return result.ok && (!purge || purge.removed || dryRun || !existsSync(purge.state_dir)) ? EXIT_CODES.ok : EXIT_CODES.error;
}

/**
 * `uninstall --purge`: say what the state dir holds, stop what runs from it (the keypress server through its socket,
 * the drainer by the PID and start time in drainer.pid), then remove it.
 */
async function purgeAfterUninstall(
  context: CliContext,
  io: VerbIo,
  { dryRun, json, uninstalled }: { dryRun: boolean; json: boolean; uninstalled: boolean },
): Promise<PurgeResult & { stopped?: string[] }> {
  const where = `State directory ${shortenHome(context.stateDir, homeOf(context))}`;
  if (!uninstalled) {
    const kept = { state_dir: context.stateDir, removed: false, detail: "kept: not everything could be uninstalled", contents: [] };
    if (!json) io.stdout(`\n${where}: ${kept.detail}`);
    return kept;
  }
  const plan = purgePlan(context.stateDir);
  if (!json && plan.ok)
    io.stdout([`\n${where}${dryRun ? " would be removed" : ", removing"}:`, ...plan.contents.map((line) => `  ${line}`)].join("\n"));
  if (dryRun || !plan.ok) {
    const result = purgeStateDir(context.stateDir, { dryRun });
    if (!json && !plan.ok) io.stdout(`\n${where}: ${result.detail}`);
    return result;
  }
  const stopped: string[] = [];
  const server = await stopServer(socketPathOf(context.stateDir));
  if (server) stopped.push(`the keypress server (pid ${server.pid})`);
  const drainer = await stopDrainer(context.stateDir);
  if (drainer !== undefined) stopped.push(`the drainer (pid ${drainer})`);
  const result = purgeStateDir(context.stateDir, { dryRun });
  if (!json) io.stdout([...(stopped.length > 0 ? [`  stopped ${stopped.join(" and ")}`] : []), `  ${result.detail}`].join("\n"));
  return { ...result, stopped };
}

// Every list of harnesses below comes from the registry (src/harnesses/registry.ts): adding a harness changes no text here.
const AGENT_IDS = `${INSTALLABLE_IDS.join("|")}|all`;
const nameOf = (id: string) => findHarness(id)?.displayName ?? id;
/** One line per harness: its id, its name, and what install does for it. */
const AGENT_LINES = INSTALLABLE_IDS.map(
  (id) => [`  --agent ${id}`, `${nameOf(id)}: ${findHarness(id)?.installHelp ?? "its hooks"}`] as const,
);

const INSTALL_HELP: VerbHelp = {
  usage: `install [--agent ${AGENT_IDS}]... [--dry-run [--verbose]] ${INSTALL_OPTIONS.map((option) => `[--${option.name}]`).join(" ")} [--hook shim|sync] [--json]`,
  summary:
    "Add our hooks and MCP server to the agents' configs, touching nothing else; running it again changes nothing.\nDetails per harness: docs/install.md.",
  options: [
    ["--agent <id>", `a harness below, or all; repeat for several (default: ${DEFAULT_INSTALL_IDS.join(" and ")})`],
    ...AGENT_LINES,
    ["--dry-run", "print, per harness, each file it would change and how, each command it would run, what it reports; change nothing"],
    ["--verbose", "with --dry-run: every line of every change, as a diff"],
    ...INSTALL_OPTIONS.map((option) => [`--${option.name}`, option.help] as const),
    ["--hook shim|sync", "shim (Linux default): the agent waits for a tiny sh script, Node works detached; sync: for the whole Node hook"],
    ["--json", "print the report as JSON"],
  ],
  examples: ["tongs-agents install --dry-run", "tongs-agents install --agent all"],
};

const UNINSTALL_HELP: VerbHelp = {
  usage: `uninstall [--agent ${AGENT_IDS}]... [--dry-run [--verbose]] [--purge] [--json]`,
  summary:
    "Remove only what install added (hook entries, MCP servers, extensions, trust records), the containers and files\nthat held only those, and (--purge) the state directory.",
  options: [
    ["--agent <id>", `a harness install lists, or all; repeat for several (default: ${DEFAULT_INSTALL_IDS.join(" and ")})`],
    ["--dry-run", "print what would be removed; change nothing"],
    ["--verbose", "with --dry-run: every line of every change, as a diff"],
    [
      "--purge",
      "also stop the keypress server and the drainer and remove the state directory (records, queue, logs), saying what it holds",
    ],
    ["--json", "print the report as JSON"],
  ],
  examples: ["tongs-agents uninstall --dry-run", "tongs-agents uninstall --agent all --purge"],
};

const DOCTOR_HELP: VerbHelp = {
  usage: `doctor [--agent ${AGENT_IDS}]... [--json]`,
  summary:
    "Per harness: the binary and its version (is it one our hooks were proven on?), each hook current, outdated,\nmodified or missing, trust where the harness asks for it, the MCP server, extensions, what is left to do, and what\nit can and cannot report; then the agents declared in config.json.\nExits 1 when Node is older than 22, a config is unreadable or a declared agent is rejected.",
  options: [
    ["--agent <id>", "a harness install lists, or all; repeat for several (default: all)"],
    ["--json", "print the report as JSON"],
  ],
  examples: ["tongs-agents doctor", "tongs-agents doctor --agent all --json"],
};

/**
 * What the registry adds to doctor's report, per harness: whether its installed version is one our hooks were proven
 * on, and its degradation tier (what it can and cannot report: reports.ts).
 */
export function withHarnessFacts(report: DoctorReport): DoctorReport & { readonly harnesses: readonly DoctorEntry[] } {
  return {
    ...report,
    harnesses: report.harnesses.map((doctor) => {
      const harness = findHarness(doctor.harness);
      if (!harness) return doctor;
      return {
        ...doctor,
        ...(doctor.binary ? { version_check: checkVersion(harness, doctor.version) } : {}),
        reports: reportRows(harness),
      };
    }),
  };
}

export const installVerb: Verb = withHelp(INSTALL_HELP, (args, context, io) => installOrUninstall(args, context, io, "install"));
export const uninstallVerb: Verb = withHelp(UNINSTALL_HELP, (args, context, io) => installOrUninstall(args, context, io, "uninstall"));

export const doctorVerb: Verb = withHelp(DOCTOR_HELP, async (args, context, io) => {
  const parsed = parse(args, { agent: { type: "string", multiple: true }, json: { type: "boolean" } }, 0);
  if ("ok" in parsed) return fail(parsed, io, false);
  const json = parsed.values.json === true;
  const harnesses = selectHarnesses((parsed.values.agent as string[] | undefined) ?? [], INSTALLABLE_IDS);
  if (!Array.isArray(harnesses)) return fail(harnesses, io, json);
  const doctor = withHarnessFacts(await runDoctor(worldOf(context), await installersFor(harnesses)));
  // Agents declared in config.json: listed, and a rejected entry fails the check like an unreadable config does.
  const declared = declaredAgentsReport(context.env);
  const result = { ...doctor, ok: doctor.ok && declared.problems.length === 0, declared_agents: declared };
  io.stdout(json ? JSON.stringify(result, null, 2) : formatDoctorReport(doctor, homeOf(context)) + formatDeclaredAgents(declared));
  return result.ok ? EXIT_CODES.ok : EXIT_CODES.error;
});
