import { INSTALLABLE_IDS } from "../harnesses/registry.ts";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeBinDir, makePackageRoot, makeWorld } from "../../test/install-world.ts";
import { fakeProcessSource } from "../../test/fake-processes.ts";
import { makeSandbox, type Sandbox } from "../../test/sandbox.ts";
import type { InstallReport } from "../install/plan.ts";
import type { DoctorReport } from "../install/plan.ts";
import type { CliContext } from "./context.ts";
import { runCli, type CliIo } from "./run.ts";
import { liveStartTime } from "../store/drainer-process.ts";
import { startServer } from "../server/server.ts";
import { SESSIONS_INDEX_FILE } from "../store/record-cache.ts";

let sandbox: Sandbox;
let context: CliContext;
let out: string[];
let err: string[];
const io: CliIo = { stdout: (text) => out.push(text), stderr: (text) => err.push(text), color: false, columns: 120 };

beforeEach(() => {
  sandbox = makeSandbox();
  const world = makeWorld(sandbox, { packageRoot: makePackageRoot(join(sandbox.root, "pkg")) });
  context = {
    env: world.env,
    stateDir: sandbox.stateDir,
    cwd: sandbox.root,
    processes: fakeProcessSource([]),
    now: Date.now,
    install: world,
  };
  out = [];
  err = [];
});
afterEach(() => sandbox.cleanup());

const cli = async (...args: string[]) => {
  out = [];
  err = [];
  return runCli(args, context, io);
};

describe("install, uninstall and doctor verbs", () => {
  it("--json prints the report; the default agents are Claude Code and Codex; all is every harness of the registry", async () => {
    expect(await cli("install", "--dry-run", "--json")).toBe(0);
    const report = JSON.parse(out.join("\n")) as InstallReport;
    expect(report).toMatchObject({ action: "install", dry_run: true, ok: true });
    expect(report.harnesses.map((harness) => harness.harness)).toEqual(["claude", "codex"]);
    expect(await cli("install", "--dry-run", "--json", "--agent", "all")).toBe(1);
    const all = JSON.parse(out.join("\n")) as InstallReport;
    expect(all.harnesses.map((harness) => harness.harness)).toEqual(INSTALLABLE_IDS);
    expect(all.harnesses[2]?.findings[0]?.message).toMatch(/pi is not on PATH/);
  });

  it("--dry-run is a summary, --dry-run --verbose a diff-like listing, install a summary of what it did", async () => {
    expect(await cli("install", "--dry-run", "--agent", "codex")).toBe(0);
    const summary = out.join("\n");
    expect(summary).toMatch(/^Dry run: nothing is changed\. install would do this \(--verbose: every line of every change\):/);
    expect(summary).toContain("~/.codex/hooks.json (create): add 12 hooks");
    expect(summary).toContain("~/.codex/config.toml (create): ");
    expect(summary).toContain("  reports: a failed turn (error) (from its own files: the task_complete error in its rollout)");
    expect(summary).toContain("  cannot report: session start: the interactive UI fires nothing before its first prompt");
    expect(summary).not.toMatch(/\n {4}\+ /);
    expect(await cli("install", "--dry-run", "--verbose", "--agent", "codex")).toBe(0);
    const text = out.join("\n");
    expect(text).toMatch(/^Dry run: nothing is changed/);
    expect(text).toContain("~/.codex/hooks.json (create)");
    expect(text).toMatch(/\n {4}\+ {5}"SessionStart": \[/);
    expect(text).toContain("to do: Trust the hooks in Codex");
    expect(await cli("install", "--agent", "codex")).toBe(0);
    expect(out.join("\n")).toContain("add SessionStart -> session-start");
    expect(out.join("\n")).not.toContain("+ ");
    expect(await cli("install", "--agent", "codex")).toBe(0);
    expect(out.join("\n")).toContain("already up to date");
  });

  it("rejects unknown agents and options with usage errors", async () => {
    expect(await cli("install", "--agent", "crush")).toBe(2);
    expect(err.join("\n")).toContain('unknown agent "crush"');
    expect(await cli("uninstall", "--trust-codex-hooks")).toBe(2);
    expect(await cli("doctor", "extra")).toBe(2);
  });

  it("doctor reports per harness what is installed and what to do", async () => {
    await cli("install", "--agent", "claude");
    expect(await cli("doctor", "--json")).toBe(0);
    const report = JSON.parse(out.join("\n")) as DoctorReport;
    expect(report.node).toEqual({ path: process.execPath, version: process.versions.node, ok: true });
    const [claude, codex, pi] = report.harnesses;
    expect(claude).toMatchObject({ harness: "claude", binary: null, mcp: "current" });
    expect(claude?.hooks.every((hook) => hook.status === "current")).toBe(true);
    expect(codex?.hooks.every((hook) => hook.status === "missing")).toBe(true);
    expect(codex?.todo.join("\n")).toContain("tongs-agents install --agent codex");
    expect(pi).toMatchObject({ bridge: "missing", mcp: "n/a" });
    expect(await cli("doctor", "--agent", "claude")).toBe(0);
    expect(out.join("\n")).toMatch(/Claude Code: not found on PATH\n {2}hooks: current \(all\)\n {2}MCP server: current/);
  });
});

describe("doctor: version drift and what each harness can report", () => {
  /** A stand-in `claude` on PATH that prints `printed` for --version (or fails). */
  const withClaude = (printed: string | undefined) => {
    const bin = makeBinDir(join(sandbox.root, `bin-${out.length}-${Math.random().toString(36).slice(2)}`), {
      claude: printed === undefined ? "#!/bin/sh\nexit 1\n" : `#!/bin/sh\necho '${printed}'\n`,
    });
    const world = makeWorld(sandbox, { packageRoot: context.install?.packageRoot as string, path: [bin] });
    context = { ...context, env: world.env, install: world };
  };
  const claudeOf = async () => {
    expect(await cli("doctor", "--agent", "claude", "--json")).toBe(0);
    return (JSON.parse(out.join("\n")) as { harnesses: Record<string, unknown>[] }).harnesses[0];
  };

  it("says a version outside the proven set is not proven, and what that means; a proven one is proven", async () => {
    withClaude("9.9.9 (Claude Code)");
    expect(await claudeOf()).toMatchObject({
      version: "9.9.9 (Claude Code)",
      version_check: {
        status: "unproven",
        version: "9.9.9",
        proven_on: ["2.1.332"],
        meaning: expect.stringContaining("2.1.332, not 9.9.9"),
      },
    });
    expect(await cli("doctor", "--agent", "claude")).toBe(0);
    expect(out.join("\n")).toMatch(/\n {2}version 9\.9\.9: not proven: our hooks were proven on Claude Code 2\.1\.332, not 9\.9\.9: /);
    withClaude("2.1.332 (Claude Code)");
    expect(await claudeOf()).toMatchObject({ version_check: { status: "proven", version: "2.1.332" } });
    expect(await cli("doctor", "--agent", "claude")).toBe(0);
    expect(out.join("\n")).toContain("  version: 2.1.332, one our hooks were proven on");
    expect(out.join("\n")).not.toContain("not proven");
  });

  it("says so when the version cannot be read, and checks nothing for a harness that is not installed", async () => {
    withClaude(undefined);
    expect(await claudeOf()).toMatchObject({ version: null, version_check: { status: "unknown" } });
    context = { ...context, install: makeWorld(sandbox, { packageRoot: context.install?.packageRoot as string }) };
    expect((await claudeOf())?.version_check).toBeUndefined();
  });

  it("doctor and install --dry-run list what each harness can and cannot report, from the adapters' table", async () => {
    expect(await cli("doctor", "--agent", "gemini")).toBe(0);
    const doctor = out.join("\n");
    expect(doctor).toContain(
      "  reports: session start, a prompt running, a tool running, waiting for the user, turn done (idle), session end (its hooks)",
    );
    expect(doctor).toContain(
      "  cannot report: a failed turn (error): no hook states a failed turn: a provider error ends the turn idle, never error",
    );
    expect(doctor).toContain("  cannot report: Esc mid-turn (interrupted): Esc ends the turn with AfterAgent");
    expect(await cli("install", "--dry-run", "--agent", "codex")).toBe(0);
    expect(out.join("\n")).toContain(
      "  reports: a failed turn (error) (from its own files: the task_complete error in its rollout)\n  cannot report: session start: the interactive UI fires nothing before its first prompt",
    );
    expect(await cli("doctor", "--agent", "codex", "--json")).toBe(0);
    const [codex] = (JSON.parse(out.join("\n")) as { harnesses: { reports: { state: string; by: string }[] }[] }).harnesses;
    expect(codex?.reports.find((row) => row.state === "error")).toEqual({
      state: "error",
      by: "stated",
      from: "the task_complete error in its rollout",
      limit: "seen only when its rollout is readable",
    });
  });
});

describe("uninstall --purge", () => {
  it("removes the state directory once everything else is removed; --dry-run only says so", async () => {
    expect(await cli("install", "--agent", "codex")).toBe(0);
    mkdirSync(join(sandbox.stateDir, "sessions"), { recursive: true });
    writeFileSync(join(sandbox.stateDir, "sessions", "a.json"), "{}");
    writeFileSync(join(sandbox.stateDir, "seen.json"), "{}");
    expect(await cli("uninstall", "--agent", "codex", "--purge", "--dry-run")).toBe(0);
    expect(out.join("\n")).toMatch(
      /State directory .* would be removed:\n {2}installed-files\.json: the record of files install created\n {2}seen\.json: seen marks\n {2}sessions\/ \(1 entries\): session records$/,
    );
    expect(existsSync(sandbox.stateDir)).toBe(true);
    expect(await cli("uninstall", "--agent", "codex", "--purge", "--json")).toBe(0);
    expect(JSON.parse(out.join("\n")).purge).toMatchObject({ state_dir: sandbox.stateDir, removed: true, detail: "removed", stopped: [] });
    expect(existsSync(sandbox.stateDir)).toBe(false);
  });

  it("says what it removes, stops the keypress server and the drainer (by PID and start time), then removes it all", async () => {
    expect(await cli("install", "--agent", "codex")).toBe(0);
    for (const dir of ["sessions", "incoming", "notify", "tmux-status"]) mkdirSync(join(sandbox.stateDir, dir), { recursive: true });
    writeFileSync(join(sandbox.stateDir, "hook.log"), "{}\n");
    writeFileSync(join(sandbox.stateDir, SESSIONS_INDEX_FILE), "{}");
    // A stand-in drainer: a process of ours, named in drainer.pid as the drainer names itself.
    const drainer = spawn("sleep", ["60"], { stdio: "ignore" });
    await new Promise((resolve) => drainer.on("spawn", resolve));
    writeFileSync(join(sandbox.stateDir, "drainer.pid"), `${drainer.pid} ${liveStartTime(drainer.pid as number)}\n`);
    const exited = new Promise((resolve) => drainer.on("exit", (_code, signal) => resolve(signal)));
    const server = await startServer({
      stateDir: sandbox.stateDir,
      build: "b",
      install: "/x/bin/tongs-agents.js",
      run: async () => 0,
      log: () => undefined,
    });
    if (server.kind !== "serving") throw new Error(JSON.stringify(server));

    expect(await cli("uninstall", "--agent", "codex", "--purge")).toBe(0);
    const text = out.join("\n");
    expect(text).toMatch(
      /State directory .*, removing:\n(?: {2}.*\n)+ {2}stopped the keypress server \(pid \d+\) and the drainer \(pid \d+\)\n {2}removed$/,
    );
    for (const line of [
      "drainer.pid: the drainer's pid file",
      "hook.log: a log",
      "incoming/ (0 entries): the hook shim's queue",
      `${SESSIONS_INDEX_FILE}: the index of live sessions`,
    ])
      expect(text).toContain(`  ${line}`);
    expect(text).toContain("server/ (");
    expect(await exited).toBe("SIGTERM");
    expect((await server.stopped).why).toBe("asked to stop");
    expect(existsSync(sandbox.stateDir)).toBe(false);
  });

  it("removes what answering and harnesses' status lines leave in it too", async () => {
    for (const dir of ["answers", "answer-requests", "answer-holds", "statusline"])
      mkdirSync(join(sandbox.stateDir, dir), { recursive: true });
    expect(await cli("uninstall", "--agent", "codex", "--purge")).toBe(0);
    const text = out.join("\n");
    for (const line of [
      "answer-holds/ (0 entries): the held Claude Code hooks an answer can go through",
      "answer-requests/ (0 entries): answers on their way to a harness's plugin or held hook",
      "answers/ (0 entries): the answers given to waiting sessions",
      "statusline/ (0 entries): what harnesses' status lines stated (model, context, limits)",
    ])
      expect(text).toContain(`  ${line}`);
    expect(existsSync(sandbox.stateDir)).toBe(false);
  });

  it("never signals a PID that another process took since drainer.pid was written (its start time differs)", async () => {
    mkdirSync(sandbox.stateDir, { recursive: true });
    const other = spawn("sleep", ["60"], { stdio: "ignore" });
    await new Promise((resolve) => other.on("spawn", resolve));
    writeFileSync(join(sandbox.stateDir, "drainer.pid"), `${other.pid} 1\n`);
    expect(await cli("uninstall", "--agent", "codex", "--purge")).toBe(0);
    expect(out.join("\n")).not.toContain("stopped");
    expect(other.exitCode === null && other.signalCode === null).toBe(true);
    other.kill("SIGKILL");
  });

  it("leaves a state directory that holds files tongs-agents does not write, and says which (exit 1)", async () => {
    mkdirSync(sandbox.stateDir, { recursive: true });
    writeFileSync(join(sandbox.stateDir, "notes.txt"), "mine");
    expect(await cli("uninstall", "--agent", "codex", "--purge")).toBe(1);
    expect(out.join("\n")).toContain("holds files tongs-agents does not write (notes.txt); left as it is");
    expect(existsSync(join(sandbox.stateDir, "notes.txt"))).toBe(true);
  });
});
