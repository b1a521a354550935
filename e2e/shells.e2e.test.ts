// The hook command line exactly as the installer writes it (src/install/command.ts), run through real shells
// (`<shell> -c "<command line>"`) by a process named like the harness, with tongs-agents installed under a path full
// of characters that shells treat specially. Every lifecycle transition of Claude Code (native aliases) and Pi
// (fleet-event) goes through each shell, and the record is checked after each step.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hookCommandLine } from "../src/install/command.ts";
import { requireImage, startBox, type Box } from "./containers.ts";
import { boxVersions, createEvidence } from "./evidence.ts";
import { startHarness, type BoxHarness } from "./harness.ts";
import { claudeSteps, piSteps, type Step } from "./lifecycles.ts";

const SHELLS = [
  { id: "bash", argv: ["/bin/bash", "-c"] },
  { id: "dash", argv: ["/bin/dash", "-c"] },
  { id: "zsh", argv: ["/bin/zsh", "-c"] },
  { id: "fish", argv: ["/usr/bin/fish", "-c"] },
  { id: "ksh", argv: ["/bin/ksh", "-c"] },
  { id: "busybox", argv: ["/bin/busybox", "sh", "-c"] },
] as const;
const PACKAGES = ["bash", "dash", "zsh", "fish", "ksh93u+m", "busybox", "tmux"];

/** Spaces, both quotes, $, backticks, ;&|<>, globs, parentheses, #, braces, ~ and !: none may be interpreted. */
const INSTALL_ROOT = `/opt/tongs agents/it's "here" $HOME \`id\` ;&|<>*?[a] (x) #{b,c}~!`;
/** A backslash before a backslash or a single quote: POSIX shells keep it inside '...', fish reads it as an escape. */
const BACKSLASH_ROOT = `/opt/back\\\\slash\\'quote`;
const STATE = "/tmp/shells-state";
const CWD = "/tmp/project dir";

const commandLine = (root: string, alias: string, agent: string) =>
  hookCommandLine({ node: `${root}/bin/node`, hook: `${root}/lib/node_modules/tongs-agents/bin/tongs-agents-hook.cjs`, alias, agent });

const evidence = createEvidence("shells", "The installer's hook command line through real shells, with every lifecycle transition");
let box: Box;

async function showRecord(sessionId: string): Promise<Record<string, unknown>> {
  const shown = await box.exec(["tongs-agents", "show", sessionId, "--json"], { TONGS_AGENTS_STATE_DIR: STATE });
  if (shown.code !== 0) {
    // Rerun the failing case with TONGS_AGENTS_DEBUG=1 in the harness env to get the hook's reasons in $STATE/hook.log.
    throw new Error(`tongs-agents show ${sessionId} exited ${shown.code}: ${shown.stdout}${shown.stderr}`);
  }
  return JSON.parse(shown.stdout) as Record<string, unknown>;
}

/**
 * Run each step through the shell, as the harness's child; after each, the hook printed nothing and the record moved.
 * The steps and a `tongs-agents show` after each run in one request to the harness (each its child, one after
 * another): two `podman exec` per step were most of this suite's time.
 */
async function runSteps(
  harness: BoxHarness,
  shellArgv: readonly string[],
  agent: string,
  sessionId: string,
  steps: readonly Step[],
): Promise<Record<string, unknown>> {
  const show = { argv: ["tongs-agents", "show", sessionId, "--json"], payload: "" };
  const replies = await harness.runEach(
    steps.flatMap((step) => [{ argv: [...shellArgv, commandLine(INSTALL_ROOT, step.alias, agent)], payload: step.payload }, show]),
  );
  let record: Record<string, unknown> = {};
  for (const [index, step] of steps.entries()) {
    const [reply, shown] = [replies[2 * index], replies[2 * index + 1]];
    expect(reply, `step ${index + 1} ${step.label}: the shell and hook exit 0 and print nothing`).toMatchObject({
      code: 0,
      signal: null,
      stdout: "",
      stderr: "",
    });
    // Rerun a failing case with TONGS_AGENTS_DEBUG=1 in the harness env to get the hook's reasons in $STATE/hook.log.
    expect(shown?.code, `step ${index + 1} ${step.label}: tongs-agents show: ${shown?.stdout}${shown?.stderr}`).toBe(0);
    record = JSON.parse(shown?.stdout ?? "") as Record<string, unknown>;
    expect(record, `step ${index + 1} ${step.label}: the record`).toMatchObject({
      status: step.expect.status,
      recorded_status: step.expect.status,
      detail: step.expect.detail,
      last_event: step.expect.last_event,
      ...(step.expect.tool === undefined ? {} : { tool: step.expect.tool }),
    });
  }
  return record;
}

describe("the installer's hook command line in real shells", { timeout: 300_000 }, () => {
  beforeAll(async () => {
    box = await startBox(await requireImage());
    // A real copy of the installed package and of node under each awkward root (no symlinks that would hide the path).
    await box.sh(
      `for root in "$@"; do mkdir -p "$root/bin" "$root/lib/node_modules" && cp /usr/local/bin/node "$root/bin/node" && cp -a /usr/local/lib/node_modules/tongs-agents "$root/lib/node_modules/"; done`,
      INSTALL_ROOT,
      BACKSLASH_ROOT,
    );
    await box.sh(`mkdir -p "$1"`, CWD);
    evidence.addVersions(await boxVersions(box, PACKAGES));
  }, 900_000);

  afterAll(async () => {
    try {
      await box?.stop();
    } finally {
      evidence.untested(
        "the real Claude Code and Pi CLIs running these hooks",
        "agent CLIs are not in this image yet; the harness is a stand-in process with the exact process name",
      );
      evidence.write();
    }
  });

  describe.each(SHELLS)("$id", ({ id, argv }) => {
    const env = { TONGS_AGENTS_STATE_DIR: STATE };

    it("runs every Claude Code lifecycle transition (native aliases)", async ({ task }) => {
      evidence.prove(task, {
        claim: `${id}: all 12 Claude Code transitions through \`${argv.join(" ")} "<command line>"\`, install path with spaces, quotes, $, backticks, globs`,
        kind: "synthetic",
        how: "captured SessionStart..SessionEnd payloads; a process named claude runs the shell, and tongs-agents show after each step",
      });
      const claude = await startHarness(box, "claude", `claude-${id}`, env);
      const sessionId = `e2e-claude-${id}-${randomBytes(4).toString("hex")}`;
      const record = await runSteps(claude, argv, "claude", sessionId, claudeSteps(sessionId, CWD));
      expect(record).toMatchObject({
        harness: "claude",
        identity: "process",
        pid: claude.pid,
        cwd: CWD,
        terminal: { env: { TMUX_PANE: claude.pane } },
      });
    });

    it("runs every Pi lifecycle transition (fleet-event)", async ({ task }) => {
      evidence.prove(task, {
        claim: `${id}: all 10 Pi transitions (fleet-event) through \`${argv.join(" ")} "<command line>"\`, same install path`,
        kind: "synthetic",
        how: "normalized payloads as the Pi bridge sends them; a process named pi runs the shell; tongs-agents show after each step",
      });
      const pi = await startHarness(box, "pi", `pi-${id}`, env);
      const sessionId = `e2e-pi-${id}-${randomBytes(4).toString("hex")}`;
      const record = await runSteps(pi, argv, "pi", sessionId, piSteps(sessionId, `instance-${id}`, pi.pid, CWD));
      expect(record).toMatchObject({ harness: "pi", identity: "emitter", pid: pi.pid, instance_id: `instance-${id}` });
    });

    // fish reads \\ and \' inside single quotes as escapes; shellQuote writes backslashes and quotes outside quotes,
    // where every one of these shells reads them alike.
    it("runs the hook from a path with a backslash before a backslash or a quote", async ({ task }) => {
      evidence.prove(task, {
        claim: `${id}: an install path containing \`\\\\\` and \`\\'\` runs`,
        kind: "synthetic",
        how: "session-start through the shell from a copy installed under `/opt/back\\\\slash\\'quote`",
      });
      const claude = await startHarness(box, "claude", `claude-backslash-${id}`, env);
      const sessionId = `e2e-backslash-${id}-${randomBytes(4).toString("hex")}`;
      const reply = await claude.run(
        [...argv, commandLine(BACKSLASH_ROOT, "session-start", "claude")],
        JSON.stringify({ session_id: sessionId, cwd: CWD, hook_event_name: "SessionStart" }),
      );
      expect(reply).toMatchObject({ code: 0, stdout: "", stderr: "" });
      expect(await showRecord(sessionId)).toMatchObject({ status: "started", pid: claude.pid });
    });
  });
});
