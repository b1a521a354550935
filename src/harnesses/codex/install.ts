// Codex CLI: hooks in $CODEX_HOME/hooks.json, the MCP server as `[mcp_servers.tongs-agents]` in config.toml (written by
// the owned-table writer: `codex mcp add` rewrites the file and drops comments), and, only with --trust-codex-hooks,
// trust records for our hooks in config.toml the way Codex itself writes them.
import { join } from "node:path";
import { codexTrustHash, codexTrustKey } from "./trust.ts";
import { readConfigFile } from "../../install/file-edit.ts";
import { editHooks, hooksShapeProblem, scanHooks, type HookSpec, type HookTarget } from "../../install/hook-entries.ts";
import { parseJsonDocument } from "../../install/json-text.ts";
import { codexHome, codexHomeCanonical } from "./locations.ts";
import { LEGACY_MCP_NAME, MCP_NAME, isLegacyFleetMcp, mcpState } from "../../install/mcp-entry.ts";
import { conflict, error, note, warning, type Finding, type HarnessPlan, type Step } from "../../install/plan.ts";
import type { Intent } from "../../install/provider.ts";
import { findTable, parseTomlDocument, removeTable, setTable, tableBody } from "../../install/toml-text.ts";
import { ourPaths, type InstallContext } from "../../install/context.ts";
import { isRecord } from "../../core/json-value.ts";

export const CODEX_HOOKS: readonly HookSpec[] = [
  { event: "SessionStart", alias: "session-start", timeout: 5 },
  { event: "UserPromptSubmit", alias: "prompt-submit", timeout: 5 },
  { event: "PreToolUse", alias: "tool-use", timeout: 5 },
  { event: "PostToolUse", alias: "tool-done", timeout: 5 },
  { event: "PermissionRequest", alias: "permission-request", timeout: 5 },
  { event: "Stop", alias: "stop", timeout: 5 },
  // Codex clamps these two to 3 s; writing 3 keeps what the config says equal to what runs.
  { event: "Interrupt", alias: "interrupt", timeout: 3 },
  { event: "SessionEnd", alias: "session-end", timeout: 3 },
  { event: "PreCompact", alias: "compact-start", timeout: 5 },
  { event: "PostCompact", alias: "compact-end", timeout: 5 },
  { event: "SubagentStart", alias: "subagent-start", timeout: 5 },
  { event: "SubagentStop", alias: "subagent-stop", timeout: 5 },
];

export interface TrustRecord {
  readonly key: string;
  readonly hash: string;
  readonly event: string;
}

/** Trust records our hooks in this hooks.json data would need. */
export function ourTrustRecords(data: Record<string, unknown>, target: HookTarget, trustPath: string, onlyCurrent: boolean): TrustRecord[] {
  return scanHooks(data, CODEX_HOOKS, target)
    .filter((ref) => ref.entry.kind === "ours" && (!onlyCurrent || ref.entry.current))
    .map((ref) => ({
      key: codexTrustKey(trustPath, ref.event, ref.group, ref.handler),
      hash: codexTrustHash({ event: ref.event, command: ref.command, timeout: ref.timeout as number }),
      event: ref.event,
    }));
}

/** What config.toml says about one hook: trusted, modified (another hash), untrusted, or disabled by the user. */
export function trustStatus(config: Record<string, unknown>, record: TrustRecord): "trusted" | "modified" | "untrusted" | "disabled" {
  const hooks = isRecord(config.hooks) ? config.hooks : {};
  const state = isRecord(hooks.state) ? hooks.state[record.key] : undefined;
  if (isRecord(state) && state.enabled === false) return "disabled";
  const trusted = isRecord(state) ? state.trusted_hash : undefined;
  if (trusted === undefined) return "untrusted";
  return trusted === record.hash ? "trusted" : "modified";
}

const STATE_GROUP = ["hooks", "state"];
const TRUST_OPTION = "trust-codex-hooks";

function planConfig(
  world: InstallContext,
  intent: Intent,
  before: TrustRecord[],
  after: TrustRecord[],
  findings: Finding[],
  todo: string[],
): Step | undefined {
  const path = join(codexHome(world), "config.toml");
  // `install --trust-codex-hooks` (the option harness.ts declares).
  const trusting = intent.options.includes(TRUST_OPTION);
  const read = readConfigFile(path);
  if (!read.ok) {
    findings.push(error(`${read.detail}; left untouched`));
    return undefined;
  }
  const doc = parseTomlDocument(read.text ?? "");
  if (!doc.ok) {
    findings.push(error(`${path} is ${doc.detail}; left untouched (MCP server not registered). Fix it, then run the command again.`));
    return undefined;
  }
  const paths = ourPaths(world);
  const why: string[] = [];
  let text = doc.text;
  const servers = isRecord(doc.data.mcp_servers) ? doc.data.mcp_servers : {};
  const desired = { command: paths.node, args: [paths.cli, "mcp"] };
  const state = mcpState(servers[MCP_NAME], desired, ["command", "args"]);
  const edit = (label: string, change: () => string) => {
    try {
      text = change();
      why.push(label);
    } catch (failure) {
      findings.push(error(`${path}: ${(failure as Error).message}; that part left as it is`));
    }
  };
  if (intent.mode === "install" && isLegacyFleetMcp(servers[LEGACY_MCP_NAME]))
    edit(`remove claude-fleet-monitor MCP server [mcp_servers.${LEGACY_MCP_NAME}]`, () =>
      removeTable(text, ["mcp_servers", LEGACY_MCP_NAME]),
    );
  if (state === "foreign")
    findings.push(
      (intent.mode === "install" ? conflict : warning)(
        `${path}: [mcp_servers.${MCP_NAME}] exists but is not what the installer writes (command, args = [.../bin/tongs-agents.js, "mcp"] and nothing else); left as it is`,
      ),
    );
  if (intent.mode === "install" && (state === "absent" || state === "outdated")) {
    edit(`${state === "absent" ? "add" : "update"} MCP server [mcp_servers.${MCP_NAME}]`, () =>
      setTable(
        text,
        ["mcp_servers", MCP_NAME],
        [
          ["command", desired.command],
          ["args", desired.args],
        ],
      ),
    );
  }
  if (intent.mode === "uninstall" && (state === "current" || state === "outdated"))
    edit(`remove MCP server [mcp_servers.${MCP_NAME}]`, () => removeTable(text, ["mcp_servers", MCP_NAME]));

  // Trust records. Ours: a [hooks.state."<key>"] table holding only trusted_hash, at the position of one of our hooks,
  // trusting exactly our hook's definition.
  const ownedTrust = (record: TrustRecord) => {
    const span = findTable(text, [...STATE_GROUP, record.key]);
    const body = span ? tableBody(text, span) : undefined;
    return body !== undefined && Object.keys(body).length === 1 && body.trusted_hash === record.hash;
  };
  const keep = new Set(intent.mode === "install" && trusting ? after.map((record) => record.key) : []);
  for (const record of before) {
    if (keep.has(record.key) || !ownedTrust(record)) continue;
    if (intent.mode === "install" && !trusting && after.some((next) => next.key === record.key && next.hash === record.hash)) continue;
    edit(`remove trust record for ${record.key}`, () => removeTable(text, [...STATE_GROUP, record.key]));
  }
  if (intent.mode === "install") {
    for (const record of after) {
      const status = trustStatus(doc.data, record);
      if (status === "disabled") {
        findings.push(warning(`${path}: you disabled our ${record.event} hook in Codex (enabled = false); left as it is`));
        continue;
      }
      if (!trusting || status === "trusted") continue;
      const span = findTable(text, [...STATE_GROUP, record.key]);
      const body = span ? tableBody(text, span) : undefined;
      if (body && Object.keys(body).some((key) => key !== "trusted_hash")) {
        findings.push(warning(`${path}: [hooks.state."${record.key}"] has settings of yours; left as it is`));
        continue;
      }
      edit(`trust our ${record.event} hook (${record.key})`, () =>
        setTable(text, [...STATE_GROUP, record.key], [["trusted_hash", record.hash]], STATE_GROUP),
      );
    }
    const untrusted = after.filter((record) => !["trusted", "disabled"].includes(trustStatus(doc.data, record)));
    if (!trusting && untrusted.length > 0) {
      todo.push(
        `Trust the hooks in Codex: Codex skips hooks it has not reviewed (${untrusted.length} of ours). Open codex and approve them in /hooks, or run \`tongs-agents install --agent codex --trust-codex-hooks\` to record the trust the way Codex does.`,
      );
    }
    const features = isRecord(doc.data.features) ? doc.data.features : {};
    if (features.daemon_auto_start !== false) {
      findings.push(
        note(
          "Codex's interactive UI runs hooks in a shared app-server daemon with the environment of the first UI that started it, so `focus` can reach a session only through a UI started as `codex resume <session id>`. To focus every session, start codex with --no-daemon, or set `[features] daemon_auto_start = false` in config.toml (docs/install.md).",
        ),
      );
    }
  }
  if (text === doc.text) return undefined;
  return { kind: "write", path, before: read.text, after: text, why };
}

export async function planCodex(world: InstallContext, intent: Intent): Promise<HarnessPlan> {
  const findings: Finding[] = [];
  const todo: string[] = [];
  const steps: Step[] = [];
  const paths = ourPaths(world);
  const target = { node: paths.node, hook: paths.hook, harness: "codex", mode: paths.hookMode };
  const hooksPath = join(codexHome(world), "hooks.json");
  const trustPath = join(codexHomeCanonical(world), "hooks.json");
  const read = readConfigFile(hooksPath);
  let before: TrustRecord[] = [];
  let after: TrustRecord[] = [];
  let hooksOk = false;
  if (!read.ok) findings.push(error(`${read.detail}; left untouched`));
  else {
    const doc = parseJsonDocument(read.text ?? "");
    const shape = doc.ok ? hooksShapeProblem(doc.data, CODEX_HOOKS) : undefined;
    if (!doc.ok)
      findings.push(error(`${hooksPath} is ${doc.detail}; left untouched. Fix it (Codex ignores it too), then run the command again.`));
    else if (shape) findings.push(error(`${hooksPath}: ${shape}; left untouched`));
    else {
      try {
        const edit = editHooks(
          doc.text,
          doc.data,
          doc.style,
          CODEX_HOOKS,
          target,
          intent.mode,
          hooksPath,
          true,
          intent.emptyBefore?.(hooksPath),
        );
        for (const problem of edit.problems) findings.push({ severity: problem.severity, message: problem.message });
        before = ourTrustRecords(doc.data, target, trustPath, false);
        const edited = parseJsonDocument(edit.text);
        after = edited.ok ? ourTrustRecords(edited.data, target, trustPath, true) : [];
        hooksOk = true;
        if (edit.text !== (read.text ?? ""))
          steps.push({ kind: "write", path: hooksPath, before: read.text, after: edit.text, why: edit.changes });
      } catch (failure) {
        findings.push(error(`${hooksPath}: ${(failure as Error).message}; left untouched`));
      }
    }
  }
  const config = planConfig(world, intent, before, hooksOk ? after : [], findings, todo);
  if (config) steps.push(config);
  if (steps.length > 0)
    todo.push("Restart running Codex sessions (and quit its app-server daemon if one runs): hooks and MCP servers are read at start.");
  return { harness: "codex", steps, findings, todo };
}
