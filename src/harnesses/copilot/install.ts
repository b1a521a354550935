// Copilot CLI: our MCP server in its mcp-config.json (mcp.ts), and our hooks in a file of our own, $COPILOT_HOME/hooks/tongs-agents.json (Copilot loads every *.json in
// that directory), in Copilot's own format: `{"version": 1, "hooks": {"<event>": [{"type": "command", "bash": ...,
// "timeoutSec": n}]}}`. The file is ours when every handler in it is exactly our command for Copilot; anything else
// there was written or changed by someone else and is left as it is.
// The hook runs as `install --hook` says (the shim by default on Linux). Copilot is told by its executable (its comm
// is `MainThread`), which the shim's worker can read only while Copilot runs; `copilot -p` exits right after agentStop
// and sessionEnd, so those two events are told by the record an earlier event proved for that exact process
// (docs/contract.md, "Identity"; without that rule they were skipped in 2 live runs of 3).
import { HOOK_SCRIPT, parseOurCommand, type HookSpec, type HookTarget } from "../../install/hook-entries.ts";
import { HOOK_MODES, SHIM_SCRIPT, hookCommand, type HookMode } from "../../install/command.ts";
import { readConfigFile } from "../../install/file-edit.ts";
import { conflict, error, note, warning, type Finding, type HarnessPlan, type HookCheck, type Step } from "../../install/plan.ts";
import type { Intent } from "../../install/provider.ts";
import { ourPaths, type InstallContext } from "../../install/context.ts";
import { isRecord } from "../../core/json-value.ts";
import { copilotHooksPath } from "./locations.ts";
import { planCopilotMcp } from "./mcp.ts";

// permissionRequest is not wired: it runs before Copilot's permission rules, so it fires for tools that are then
// approved without asking; the notification `permission_prompt` is the dialog the user sees (docs/harness-facts.md).
export const COPILOT_HOOKS: readonly HookSpec[] = [
  { event: "sessionStart", alias: "session-start", timeout: 5 },
  { event: "userPromptSubmitted", alias: "prompt-submit", timeout: 5 },
  { event: "preToolUse", alias: "tool-use", timeout: 5 },
  { event: "postToolUse", alias: "tool-done", timeout: 5 },
  { event: "postToolUseFailure", alias: "tool-failed", timeout: 5 },
  { event: "notification", alias: "notification", timeout: 5 },
  { event: "agentStop", alias: "stop", timeout: 5 },
  { event: "errorOccurred", alias: "error-occurred", timeout: 5 },
  { event: "sessionEnd", alias: "session-end", timeout: 5 },
];

const HANDLER_KEYS = ["type", "bash", "timeoutSec"];

function ourHandler(spec: HookSpec, target: HookTarget, mode: HookMode): Record<string, unknown> {
  return {
    type: "command",
    bash: hookCommand({ node: target.node, hook: target.hook, alias: spec.alias, agent: target.harness, mode }),
    timeoutSec: spec.timeout,
  };
}

/** The modes a file may be written in to count as current: the one asked for, or (doctor) either. */
const modesOf = (target: HookTarget): readonly HookMode[] => (target.mode ? [target.mode] : HOOK_MODES);

/** The whole file as install writes it for this installation, in `mode`. */
export function copilotHooksText(target: HookTarget, mode: HookMode = target.mode ?? "sync"): string {
  const hooks = Object.fromEntries(COPILOT_HOOKS.map((spec) => [spec.event, [ourHandler(spec, target, mode)]]));
  return `${JSON.stringify({ version: 1, hooks }, null, 2)}\n`;
}

export type HooksFile =
  | { readonly kind: "absent" }
  | { readonly kind: "current"; readonly text: string }
  /** Ours, written for another installation (moved package or Node) or another event table. */
  | { readonly kind: "ours"; readonly text: string; readonly data: Record<string, unknown> }
  | { readonly kind: "foreign"; readonly text: string; readonly reason: string; readonly data?: Record<string, unknown> }
  | { readonly kind: "unreadable"; readonly detail: string };

/** Read the hooks file and say whose it is. */
export function readHooksFile(path: string, target: HookTarget): HooksFile {
  const read = readConfigFile(path);
  if (!read.ok) return { kind: "unreadable", detail: read.detail };
  if (read.text === null) return { kind: "absent" };
  const text = read.text;
  if (modesOf(target).some((mode) => text === copilotHooksText(target, mode))) return { kind: "current", text };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { kind: "foreign", text, reason: "it is not JSON" };
  }
  if (!isRecord(data) || !isRecord(data.hooks) || data.version !== 1 || Object.keys(data).length !== 2)
    return { kind: "foreign", text, reason: 'it is not {"version": 1, "hooks": {...}}', ...(isRecord(data) ? { data } : {}) };
  for (const [event, handlers] of Object.entries(data.hooks)) {
    const mine =
      Array.isArray(handlers) &&
      handlers.every(
        (handler) =>
          isRecord(handler) &&
          Object.keys(handler).length === HANDLER_KEYS.length &&
          HANDLER_KEYS.every((key) => Object.hasOwn(handler, key)) &&
          handler.type === "command" &&
          typeof handler.bash === "string" &&
          parseOurCommand(handler.bash)?.agent === target.harness,
      );
    if (!mine) return { kind: "foreign", text, reason: `its ${event} hooks are not ours`, data };
  }
  return { kind: "ours", text, data };
}

/** Doctor's view of each of our hooks in the file. */
export function copilotHookChecks(file: HooksFile, target: HookTarget): HookCheck[] {
  const data = file.kind === "ours" || file.kind === "foreign" ? file.data : undefined;
  return COPILOT_HOOKS.map((spec) => {
    if (file.kind === "current") return { event: spec.event, alias: spec.alias, status: "current" };
    const handlers = data && isRecord(data.hooks) ? data.hooks[spec.event] : undefined;
    const list = Array.isArray(handlers) ? handlers : [];
    const wanted = modesOf(target).map((mode) => JSON.stringify(ourHandler(spec, target, mode)));
    const status = list.some((handler) => wanted.includes(JSON.stringify(handler)))
      ? "current"
      : list.some((handler) => isRecord(handler) && typeof handler.bash === "string" && parseOurCommand(handler.bash)?.alias === spec.alias)
        ? file.kind === "ours"
          ? "outdated"
          : "modified"
        : list.some((handler) => [HOOK_SCRIPT, SHIM_SCRIPT].some((script) => JSON.stringify(handler).includes(script)))
          ? "modified"
          : "missing";
    return { event: spec.event, alias: spec.alias, status };
  });
}

export async function planCopilot(world: InstallContext, intent: Intent): Promise<HarnessPlan> {
  const findings: Finding[] = [];
  const steps: Step[] = [];
  const todo: string[] = [];
  const paths = ourPaths(world);
  const target = { node: paths.node, hook: paths.hook, harness: "copilot", mode: paths.hookMode };
  const path = copilotHooksPath(world);
  const file = readHooksFile(path, target);
  if (file.kind === "unreadable") findings.push(error(`${file.detail}; left untouched`));
  else if (file.kind === "foreign")
    findings.push(
      (intent.mode === "install" ? conflict : warning)(
        `${path} exists but is not what tongs-agents writes (${file.reason}); left as it is. Move it away, then run the command again.`,
      ),
    );
  else if (intent.mode === "install") {
    const after = copilotHooksText(target);
    if (file.kind === "absent")
      steps.push({ kind: "write", path, before: null, after, why: [`add our hooks for ${COPILOT_HOOKS.length} Copilot CLI events`] });
    else if (file.kind === "ours")
      steps.push({ kind: "write", path, before: file.text, after, why: ["update our hooks (this installation's Node and hook paths)"] });
  } else if (file.kind === "absent") findings.push(note(`No Copilot CLI hooks installed by tongs-agents (${path} does not exist).`));
  else steps.push({ kind: "delete", path, before: file.text, why: ["remove our hooks file"] });
  const mcp = planCopilotMcp(world, intent, findings);
  if (mcp) steps.push(mcp);
  if (steps.length > 0) todo.push("Restart running Copilot CLI sessions so they load the change.");
  return { harness: "copilot", steps, findings, todo };
}
