// Cline: a hook is a file in its hooks directory named after the event (`TaskStart`, `PreToolUse.sh`, ...: the name
// without one of a few extensions, any case). Cline 3.0.65 runs every such file it finds there, a `.sh` one as
// `bash <file>`, with the payload on stdin. Ours is one small script per event, `$CLINE_DIR/hooks/<Event>.sh`, that
// execs the hook command every installer writes (`hookCommand`): the script's shell becomes the hook, and the Cline
// process that spawned it stays its parent. A file is ours only when it is exactly what install writes for some
// installation; any other file of that name (the user's own hook, one of ours edited by hand) is left as it is and
// reported, and a user's hook under another accepted name (`TaskStart`, `TaskStart.py`) runs beside ours.
import { basename, join } from "node:path";
import { hookCommand, type HookMode } from "../../install/command.ts";
import { hookNodes } from "../../install/doctor.ts";
import { readConfigFile } from "../../install/file-edit.ts";
import { parseOurCommand, type HookSpec, type HookTarget } from "../../install/hook-entries.ts";
import { conflict, error, note, warning, type Finding, type HarnessPlan, type HookCheck, type Step } from "../../install/plan.ts";
import type { Intent } from "../../install/provider.ts";
import { ourPaths, which, type InstallContext } from "../../install/context.ts";
import { clineHooksDir } from "./locations.ts";
import { planClineMcp } from "./mcp.ts";

/**
 * Cline 3.0.65's events as its hook files fire them, one hook per state (docs/harness-facts.md): TaskStart with every
 * prompt (a resumed session's too), the tool pair, TaskComplete at the end of a turn, TaskError for a failed one, and
 * SessionShutdown for a turn stopped by Esc (the session goes on; TaskCancel, when it fires, comes just before it).
 * Not installed: UserPromptSubmit and TaskResume (never fired by the interactive UI), PreCompact (no event in this
 * version); /exit fires nothing.
 */
export const CLINE_HOOKS: readonly HookSpec[] = [
  { event: "TaskStart", alias: "prompt-submit", timeout: 5 },
  { event: "PreToolUse", alias: "tool-use", timeout: 5 },
  { event: "PostToolUse", alias: "tool-done", timeout: 5 },
  { event: "TaskComplete", alias: "stop", timeout: 5 },
  { event: "TaskError", alias: "stop-failure", timeout: 5 },
  { event: "SessionShutdown", alias: "interrupt", timeout: 5 },
];

/** The marker line: says whose the file is and how it goes. */
const MARKER = "# tongs-agents: reports this Cline event (written by `tongs-agents install`, removed by `tongs-agents uninstall`)";

export function clineHookPath(world: InstallContext, spec: HookSpec): string {
  return join(clineHooksDir(world), `${spec.event}.sh`);
}

/** The whole file install writes for `spec`. */
export function clineHookText(spec: HookSpec, target: HookTarget, mode: HookMode): string {
  const command = hookCommand({ node: target.node, hook: target.hook, alias: spec.alias, agent: target.harness, mode });
  return `#!/bin/sh\n${MARKER}\nexec ${command}\n`;
}

export type ClineHookFile =
  | { readonly kind: "absent" }
  | { readonly kind: "current"; readonly text: string }
  /** Ours, written for another installation (moved package or Node) or the other hook mode. */
  | { readonly kind: "ours"; readonly text: string }
  | { readonly kind: "foreign"; readonly text: string; readonly ours: boolean }
  | { readonly kind: "unreadable"; readonly detail: string };

/** Read one hook file and say whose it is. `ours` on a foreign file: it runs our hook but was changed. */
export function readClineHook(path: string, spec: HookSpec, target: HookTarget): ClineHookFile {
  const read = readConfigFile(path);
  if (!read.ok) return { kind: "unreadable", detail: read.detail };
  if (read.text === null) return { kind: "absent" };
  const text = read.text;
  const modes: readonly HookMode[] = target.mode ? [target.mode] : ["shim", "sync"];
  if (modes.some((mode) => text === clineHookText(spec, target, mode))) return { kind: "current", text };
  const [shebang, marker, exec, ...rest] = text.split("\n");
  const command = exec?.startsWith("exec ") ? parseOurCommand(exec.slice("exec ".length)) : undefined;
  const shaped = shebang === "#!/bin/sh" && marker === MARKER && rest.length === 1 && rest[0] === "" && command?.agent === target.harness;
  if (
    shaped &&
    command.alias === spec.alias &&
    text === clineHookText(spec, { ...target, node: command.node, hook: command.hook }, command.mode)
  )
    return { kind: "ours", text };
  return { kind: "foreign", text, ours: text.includes("tongs-agents-hook") };
}

/** Doctor's view of each of our hook files, and the Node each of ours runs. */
export function clineHookChecks(
  world: InstallContext,
  target: HookTarget,
): { checks: HookCheck[]; problems: string[]; nodes: Set<string> } {
  const problems: string[] = [];
  const commands: string[] = [];
  const checks = CLINE_HOOKS.map((spec): HookCheck => {
    const file = readClineHook(clineHookPath(world, spec), spec, target);
    if (file.kind === "unreadable") problems.push(file.detail);
    if (file.kind === "current" || file.kind === "ours") commands.push((file.text.split("\n")[2] ?? "").slice("exec ".length));
    const status =
      file.kind === "current"
        ? "current"
        : file.kind === "ours"
          ? "outdated"
          : file.kind === "foreign" && file.ours
            ? "modified"
            : "missing";
    return { event: spec.event, alias: spec.alias, status };
  });
  const nodes = hookNodes(commands);
  return { checks, problems, nodes };
}

export async function planCline(world: InstallContext, intent: Intent): Promise<HarnessPlan> {
  const findings: Finding[] = [];
  const steps: Step[] = [];
  const paths = ourPaths(world);
  const target = { node: paths.node, hook: paths.hook, harness: "cline", mode: paths.hookMode };
  for (const spec of CLINE_HOOKS) {
    const path = clineHookPath(world, spec);
    const file = readClineHook(path, spec, target);
    if (file.kind === "unreadable") findings.push(error(`${file.detail}; left untouched`));
    else if (file.kind === "foreign")
      findings.push(
        (intent.mode === "install" ? conflict : warning)(
          `${path} is not a hook file tongs-agents writes${file.ours ? " (it runs tongs-agents-hook, but was changed)" : " (your own hook?)"}; left as it is, so ${spec.event} is not reported. Move it away, then run the command again.`,
        ),
      );
    else if (intent.mode === "install") {
      const after = clineHookText(spec, target, paths.hookMode);
      if (file.kind === "absent")
        steps.push({ kind: "write", path, before: null, after, why: [`add our ${spec.event} hook (${basename(path)} -> ${spec.alias})`] });
      else if (file.kind === "ours")
        steps.push({
          kind: "write",
          path,
          before: file.text,
          after,
          why: [`update our ${spec.event} hook (this installation's Node and hook paths)`],
        });
    } else if (file.kind !== "absent") steps.push({ kind: "delete", path, before: file.text, why: [`remove our ${spec.event} hook`] });
  }
  const mcp = planClineMcp(world, intent, findings);
  if (mcp) steps.push(mcp);
  if (intent.mode === "install" && !which("cline", world.env))
    findings.push(note("The cline CLI is not on PATH (not installed, or installed elsewhere)."));
  const todo =
    steps.length > 0 ? ["Restart Cline (and its hub daemon: `cline hub stop`): it reads its hook files when a session starts."] : [];
  return { harness: "cline", steps, findings, todo };
}
