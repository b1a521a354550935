// Pi: our bridge package (<package root>/pi-bridge/) installed with Pi's own `pi install <abs path>`, and an ownership
// marker, tongs-agents.json in Pi's agent dir, that records the exact paths we manage. The new path is installed
// before old references are removed; a reference that cannot be removed stays recorded for the next run.
import { existsSync, lstatSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import * as z from "zod/mini";
import { describeStep, reportOf, runStep } from "../../install/apply.ts";
import { readConfigFile } from "../../install/file-edit.ts";
import { parseJsonDocument } from "../../install/json-text.ts";
import { piAgentDir, piBridgePath } from "./locations.ts";
import { error, note, type Finding, type HarnessPlan, type HarnessReport, type Step, type StepReport } from "../../install/plan.ts";
import type { Intent } from "../../install/provider.ts";
import { ourPaths, which, type InstallContext } from "../../install/context.ts";

export const PI_MARKER_FILE = "tongs-agents.json";
export const PI_OWNER = "tongs-agents";
const NOT_INSTALLED = /No matching package found/;

const absolutePath = z
  .string()
  .check(z.refine((value) => isAbsolute(value) && !value.includes("\0") && value.length <= 4096, "an absolute path"));

export const PiMarkerSchema = z.object({
  owner: z.literal(PI_OWNER),
  schema_version: z.literal(1),
  node_path: absolutePath,
  hook_path: absolutePath,
  extension_path: absolutePath,
  managed_paths: z.array(absolutePath).check(z.maxLength(64)),
});
export type PiMarker = z.infer<typeof PiMarkerSchema>;

export function renderMarker(marker: PiMarker): string {
  return `${JSON.stringify(marker, null, 2)}\n`;
}

export type MarkerRead = { ok: true; text: string | null; marker: PiMarker | undefined } | { ok: false; detail: string };

export function readMarker(path: string): MarkerRead {
  try {
    if (lstatSync(path).isSymbolicLink())
      return { ok: false, detail: `${path} is a symlink; refusing to use a Pi config tongs-agents did not write` };
  } catch {
    // absent: readConfigFile says so
  }
  const read = readConfigFile(path);
  if (!read.ok) return read;
  if (read.text === null) return { ok: true, text: null, marker: undefined };
  let data: unknown;
  try {
    data = JSON.parse(read.text);
  } catch {
    data = undefined;
  }
  const parsed = PiMarkerSchema.safeParse(data);
  if (!parsed.success)
    return {
      ok: false,
      detail: `${path} is not an ownership marker written by tongs-agents (owner "${PI_OWNER}", schema_version 1); refusing to touch it or the packages it names`,
    };
  return { ok: true, text: read.text, marker: parsed.data };
}

/**
 * Local package paths in Pi's settings.json, resolved the way Pi resolves them (relative to the settings file), and
 * how many entries `packages` has in all (npm and git sources too).
 */
export function piPackagePaths(agentDir: string): { ok: true; paths: string[]; entries: number } | { ok: false; detail: string } {
  const path = piSettingsPath(agentDir);
  const read = readConfigFile(path);
  if (!read.ok) return read;
  const doc = parseJsonDocument(read.text ?? "");
  if (!doc.ok) return { ok: false, detail: `${path} is ${doc.detail}` };
  const packages = Array.isArray(doc.data.packages) ? doc.data.packages : [];
  const sources = packages.map((entry) =>
    typeof entry === "string" ? entry : typeof entry === "object" && entry !== null ? (entry as { source?: unknown }).source : undefined,
  );
  return {
    ok: true,
    paths: sources
      .filter((source): source is string => typeof source === "string" && !/^[a-z]+:/.test(source))
      .map((source) => resolve(agentDir, source)),
    entries: packages.length,
  };
}

const piSettingsPath = (agentDir: string) => join(agentDir, "settings.json");

const unique = (items: readonly string[]) => [...new Set(items)];

export async function planPi(world: InstallContext, intent: Intent): Promise<HarnessPlan> {
  const findings: Finding[] = [];
  const steps: Step[] = [];
  const todo: string[] = [];
  const agentDir = piAgentDir(world);
  const markerPath = join(agentDir, PI_MARKER_FILE);
  const current = readMarker(markerPath);
  const pi = which("pi", world.env);
  if (!current.ok) return { harness: "pi", steps, findings: [error(current.detail)], todo };
  const previous = current.marker;
  if (intent.mode === "uninstall") {
    if (!previous)
      return { harness: "pi", steps, findings: [note(`No Pi bridge installed by tongs-agents (${markerPath} does not exist).`)], todo };
    if (!pi)
      return {
        harness: "pi",
        steps,
        findings: [error("pi is not on PATH: it is needed to remove the bridge package from Pi's settings")],
        todo,
      };
    const ours = unique([...previous.managed_paths, previous.extension_path]);
    for (const path of ours)
      steps.push({ kind: "run", argv: [pi, "remove", path], why: `remove package ${path} from Pi`, tolerate: NOT_INSTALLED });
    // pi remove leaves `"packages": []` behind when ours were the only packages.
    const installed = piPackagePaths(agentDir);
    if (
      installed.ok &&
      installed.entries > 0 &&
      installed.entries === installed.paths.length &&
      installed.paths.every((path) => ours.includes(path))
    ) {
      steps.push({
        kind: "drop-empty",
        path: piSettingsPath(agentDir),
        keys: ["packages"],
        why: ['remove the "packages" list pi remove leaves empty'],
      });
    }
    steps.push({ kind: "delete", path: markerPath, before: current.text as string, why: ["remove the ownership marker"] });
    todo.push("Restart running Pi sessions (or /reload): they load packages when they start.");
    return { harness: "pi", steps, findings, todo };
  }
  const paths = ourPaths(world);
  const bridge = piBridgePath(world);
  if (!pi)
    return {
      harness: "pi",
      steps,
      findings: [error("pi is not on PATH; install Pi first (npm install -g @earendil-works/pi-coding-agent)")],
      todo,
    };
  if (!existsSync(join(bridge, "package.json")))
    return {
      harness: "pi",
      steps,
      findings: [error(`the Pi bridge is missing from this installation (${bridge}/package.json)`)],
      todo,
    };
  const installed = piPackagePaths(agentDir);
  if (!installed.ok)
    return { harness: "pi", steps, findings: [error(`${installed.detail}; left untouched (pi install would fail too)`)], todo };
  const old = previous ? unique([...previous.managed_paths, previous.extension_path]).filter((path) => path !== bridge) : [];
  const desired: PiMarker = {
    owner: PI_OWNER,
    schema_version: 1,
    node_path: paths.node,
    hook_path: paths.hook,
    extension_path: bridge,
    managed_paths: [bridge],
  };
  const recording: PiMarker = { ...desired, managed_paths: unique([...old, bridge]) };
  const alreadyInstalled = installed.paths.includes(bridge);
  if (alreadyInstalled && old.length === 0 && current.text === renderMarker(desired)) return { harness: "pi", steps, findings, todo };
  steps.push({
    kind: "write",
    path: markerPath,
    before: current.text,
    after: renderMarker(recording),
    why: ["record the paths tongs-agents manages in Pi before changing anything"],
  });
  if (!alreadyInstalled) steps.push({ kind: "run", argv: [pi, "install", bridge], why: `install the bridge package ${bridge}` });
  for (const path of old)
    steps.push({ kind: "run", argv: [pi, "remove", path], why: `remove the previous bridge reference ${path}`, tolerate: NOT_INSTALLED });
  if (old.length > 0)
    steps.push({
      kind: "write",
      path: markerPath,
      before: renderMarker(recording),
      after: renderMarker(desired),
      why: ["forget references that are gone"],
    });
  todo.push("Restart running Pi sessions (or /reload): they load packages when they start.");
  // `pi install` creates Pi's settings.json when it is missing.
  return { harness: "pi", steps, findings, todo, files: [piSettingsPath(agentDir)] };
}

/**
 * Pi's steps in order, with its own failure rules: a failed `pi install` restores the previous marker; a failed
 * `pi remove` keeps that path in the marker for the next run and does not stop the others.
 */
export async function applyPi(plan: HarnessPlan, world: InstallContext): Promise<HarnessReport> {
  const reports: StepReport[] = [];
  const failedRemovals: string[] = [];
  let stopped = false;
  const first = plan.steps[0];
  for (const [index, step] of plan.steps.entries()) {
    if (stopped) {
      reports.push(describeStep(step, "not-run"));
      continue;
    }
    let effective = step;
    if (step.kind === "write" && index > 0 && failedRemovals.length > 0) {
      const marker = JSON.parse(step.after) as PiMarker;
      effective = {
        ...step,
        after: renderMarker({ ...marker, managed_paths: unique([...marker.managed_paths, ...failedRemovals]) }),
        why: [...step.why, `keep ${failedRemovals.length} path(s) whose removal failed, for the next run`],
      };
    }
    if (step.kind === "delete" && failedRemovals.length > 0) {
      const marker = JSON.parse(step.before) as PiMarker;
      effective = {
        kind: "write",
        path: step.path,
        before: step.before,
        after: renderMarker({ ...marker, managed_paths: failedRemovals }),
        why: [`keep ${failedRemovals.length} path(s) whose removal failed, for the next run`],
      };
    }
    const result = await runStep(effective, world);
    if (result.ok) {
      reports.push(describeStep(effective, "done"));
      continue;
    }
    reports.push(describeStep(effective, "failed", result.detail));
    if (step.kind === "run" && step.argv[1] === "remove") {
      failedRemovals.push(step.argv[2] as string);
      continue;
    }
    stopped = true;
    if (step.kind === "run" && step.argv[1] === "install" && first?.kind === "write") {
      const restore: Step =
        first.before === null
          ? { kind: "delete", path: first.path, before: first.after, why: ["undo: the bridge was not installed"] }
          : { kind: "write", path: first.path, before: first.after, after: first.before, why: ["undo: the bridge was not installed"] };
      const undone = await runStep(restore, world);
      reports.push(describeStep(restore, undone.ok ? "done" : "failed", undone.ok ? undefined : undone.detail));
    }
  }
  return reportOf(plan, reports);
}
