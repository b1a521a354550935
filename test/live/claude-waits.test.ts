// Live: the real interactive Claude Code (pinned in harnesses.json) with the hooks `tongs-agents install` writes, in a
// private tmux server, against a scripted model on 127.0.0.1 (e2e/provider/tool-scenarios.mjs). Two tools in one
// message, run at once: a read-only `sleep 4` and a Read outside the project, which asks for permission. The command
// finishes while the dialog is open; the session must stay `waiting: permission: Read`, keep that detail when the
// `permission_prompt` notification arrives, and go on running when the user approves (docs/contract.md, "Waiting").
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startScenarioModel } from "../../e2e/provider/tool-scenarios.mjs";
import { runInstaller } from "../../src/install/installer.ts";
import { ROOT, runCliProcess, stopTmuxServer } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { HARNESS_PACKAGES, harnessBinDir } from "./harnesses.ts";
import { liveWorld } from "./live-world.ts";
import { installersFor } from "../../src/harnesses/installers.ts";

interface Shown {
  session_id: string;
  status: string;
  detail: string;
  tool: string;
}
interface Explained {
  entries: { source: string; event: string; status: string; change: string }[];
  pending: { kind: string; tool: string }[];
}

let sandbox: Sandbox;
let model: Awaited<ReturnType<typeof startScenarioModel>>;
let socket: string;
beforeEach(async () => {
  sandbox = makeSandbox();
  socket = join(sandbox.root, "tmux.sock");
  model = await startScenarioModel({
    PARALLELSLOW: () => [
      { name: "Bash", input: { command: "sleep 4", description: "Wait a little" } },
      { name: "Read", input: { file_path: "/etc/hostname" } },
    ],
  });
});
afterEach(async () => {
  await stopTmuxServer(socket);
  await model.stop();
  sandbox.cleanup();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 90_000,
  explain: () => string = () => "",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${explain()}`);
    await sleep(250);
  }
}

describe(
  `Claude Code ${HARNESS_PACKAGES.claude.version}: a tool finishing does not hide a permission pending for another (live)`,
  { timeout: 240_000 },
  () => {
    it("stays waiting for the Read's permission while the command finishes, keeps the detail past the notification, then runs on", async () => {
      const world = liveWorld(sandbox, ROOT, [harnessBinDir("claude")], {
        ANTHROPIC_BASE_URL: model.url,
        ANTHROPIC_AUTH_TOKEN: "not-a-key",
      });
      expect(
        (await runInstaller(world, { harnesses: await installersFor(["claude"]), mode: "install", dryRun: false, options: [] })).ok,
      ).toBe(true);
      const config = world.env.CLAUDE_CONFIG_DIR as string;
      const project = join(sandbox.root, "project");
      mkdirSync(project);
      // As a user who finished onboarding, with real permission dialogs (the interactive default is "auto").
      writeFileSync(
        join(config, ".claude.json"),
        JSON.stringify({
          hasCompletedOnboarding: true,
          hasSeenAutoDefaultNudge: true,
          projects: { [project]: { hasTrustDialogAccepted: true } },
        }),
      );
      const settingsPath = join(config, "settings.json");
      const settings = JSON.parse(execFileSync("cat", [settingsPath], { encoding: "utf8" })) as Record<string, unknown>;
      writeFileSync(settingsPath, JSON.stringify({ ...settings, permissions: { defaultMode: "default" } }));

      const tmux = (...args: string[]) => execFileSync("tmux", ["-S", socket, ...args], { encoding: "utf8" });
      const screen = () => tmux("capture-pane", "-p", "-J", "-t", "live");
      const env = Object.entries(world.env).map(([key, value]) => `${key}=${value}`);
      tmux("new-session", "-d", "-s", "live", "-x", "140", "-y", "45", "-c", project, "env", "-i", ...env, "claude");
      await until("Claude's input prompt", () => (screen().includes("? for shortcuts") ? true : undefined), 90_000, screen);
      tmux("send-keys", "-t", "live", "-l", "PARALLELSLOW: wait and read outside");
      await until("the prompt typed", () => (screen().includes("PARALLELSLOW") ? true : undefined), 30_000, screen);
      tmux("send-keys", "-t", "live", "Enter");

      const shown = async () => {
        const run = await runCliProcess(["list", "--json"], world.env);
        return (JSON.parse(run.stdout) as { sessions: (Shown & { identity: string })[] }).sessions.find(
          (session) => session.identity === "process",
        );
      };
      const explained = async (session: string) =>
        JSON.parse((await runCliProcess(["explain", session, "--json"], world.env)).stdout) as Explained;
      await until("the permission dialog", () => (screen().includes("Do you want") ? true : undefined), 60_000, screen);
      const asked = await until("the session waiting", async () => ((await shown())?.status === "waiting" ? await shown() : undefined));
      expect(asked).toMatchObject({ status: "waiting", detail: "permission: Read", tool: "Read" });
      // The command (sleep 4) finishes while the dialog is still open: PostToolUse(Bash) arrives, the wait stays.
      const bashDone = await until(
        "PostToolUse of the command",
        async () => {
          const entries = (await explained(asked.session_id)).entries;
          return entries.some((entry) => entry.event === "claude.tool-done" && entry.change.includes("permission wait for Read still open"))
            ? entries
            : undefined;
        },
        30_000,
      );
      // The entry of that PostToolUse (with the hook shim a later event may already have landed after it).
      const doneEntry = bashDone.find(
        (entry) => entry.event === "claude.tool-done" && entry.change.includes("permission wait for Read still open"),
      );
      expect(doneEntry).toMatchObject({ source: "hook", event: "claude.tool-done", status: "waiting" });
      expect(await shown()).toMatchObject({ status: "waiting", detail: "permission: Read", tool: "Read" });
      expect(screen()).toContain("Do you want");
      // About 6 s after the dialog opened, the notification that names no tool: the detail stays.
      await until(
        "the permission_prompt notification",
        async () => ((await explained(asked.session_id)).entries.some((entry) => entry.event === "claude.notification") ? true : undefined),
        30_000,
      );
      expect(await shown()).toMatchObject({ status: "waiting", detail: "permission: Read", tool: "Read" });

      tmux("send-keys", "-t", "live", "1");
      const finished = await until(
        "the end of the turn",
        async () => ((await shown())?.status === "idle" ? await shown() : undefined),
        60_000,
        screen,
      );
      expect(finished).toMatchObject({ status: "idle", detail: "The tools ran; all done." });
      // The hooks' own events, in order. Between them a reader may also have applied what Claude wrote in its session
      // state (its idle between the last PostToolUse and the Stop hook's worker, seen in a CI run): another source.
      const entries = (await explained(asked.session_id)).entries;
      const hooks = entries.filter((entry) => entry.source === "hook").map((entry) => `${entry.event} ${entry.status}`);
      expect(hooks.slice(-3)).toEqual(["claude.notification waiting", "claude.tool-done running", "claude.stop idle"]);
    });
  },
);
