// Live: `tongs-agents answer` against the real interactive Gemini CLI (pinned in harnesses.json) with the hooks
// `tongs-agents install` writes, in a private tmux server, against the synthetic provider asking to run `touch
// approved`. Gemini's BeforeTool hook runs before its dialog and can only deny (docs/answer.md): keys into the pane.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startProvider } from "../../e2e/provider/server.mjs";
import { installersFor } from "../../src/harnesses/installers.ts";
import { runInstaller } from "../../src/install/installer.ts";
import { ROOT, stopTmuxServer } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { startAnswerLab, sleep, until } from "./answer-lab.ts";
import { HARNESS_PACKAGES, harnessBinDir } from "./harnesses.ts";
import { liveWorld } from "./live-world.ts";

let sandbox: Sandbox;
let provider: Awaited<ReturnType<typeof startProvider>>;
let socket: string;
beforeEach(async () => {
  sandbox = makeSandbox();
  socket = join(sandbox.root, "tmux.sock");
  provider = await startProvider({ port: 0, toolCommand: "touch approved" });
});
afterEach(async () => {
  await stopTmuxServer(socket);
  await provider.stop();
  sandbox.cleanup();
});

describe(`Gemini CLI ${HARNESS_PACKAGES.gemini.version}: answer by keys into its tmux pane (live)`, { timeout: 300_000 }, () => {
  it("allows and denies its boxed dialog through the labels; `always` is not offered", async () => {
    const world = liveWorld(sandbox, ROOT, [harnessBinDir("gemini")], {
      GEMINI_API_KEY: "not-a-key",
      GOOGLE_GEMINI_BASE_URL: provider.url,
      GEMINI_CLI_TRUST_WORKSPACE: "true",
    });
    expect(
      (await runInstaller(world, { harnesses: await installersFor(["gemini"]), mode: "install", dryRun: false, options: [] })).ok,
    ).toBe(true);
    const settingsPath = join(world.env.GEMINI_CLI_HOME as string, ".gemini", "settings.json");
    const installed = JSON.parse(readFileSync(settingsPath, "utf8")) as Record<string, unknown>;
    writeFileSync(
      settingsPath,
      JSON.stringify({
        // A fixed model: "Auto" first asks a classifier model for JSON, which the synthetic provider does not script.
        security: { auth: { selectedType: "gemini-api-key" } },
        model: { name: "gemini-2.5-flash" },
        general: { enableAutoUpdate: false },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
        ...installed,
      }),
    );
    const project = join(sandbox.root, "project");
    mkdirSync(project);
    const { screen, type, clear, session, answer } = startAnswerLab(socket, project, world.env, "gemini");
    await until("Gemini's input prompt", () => (screen().includes("Type your message") ? true : undefined), 90_000, screen);
    const asks = async () => {
      await type("please RUNTOOL");
      await until("the permission dialog", () => (screen().includes("Allow execution of") ? true : undefined), 60_000, screen);
      return until(
        "the session waiting",
        async () => ((await session())?.status === "waiting" ? await session() : undefined),
        60_000,
        screen,
      );
    };

    const first = await asks();
    const always = await answer(first.short_id, "always");
    expect(always).toMatchObject({ code: 10, stdout: "" });
    expect(always.stderr).toContain(
      "the dialog does not offer always; it offers: allow = 1. Allow once; session = 2. Allow for this session;",
    );
    const allowed = await answer(first.short_id, "allow");
    expect(allowed.stderr).toBe("");
    expect(allowed.stdout).toMatch(/^answered allow: pressed 1 \(Allow once\) in tmux pane %\d+ .*; the dialog closed$/);
    await until("the approved command's file", () => (existsSync(join(project, "approved")) ? true : undefined), 30_000, screen);
    await until("the session no longer waiting", async () => ((await session())?.status !== "waiting" ? true : undefined), 60_000, screen);

    rmSync(join(project, "approved"));
    await clear("please RUNTOOL");
    const second = await asks();
    const denied = await answer(second.short_id, "deny");
    expect(denied.stderr).toBe("");
    expect(denied.stdout).toMatch(/^answered deny: pressed 3 \(No, suggest changes \(esc\)\) in tmux pane %\d+ .*; the dialog closed$/);
    await until("Gemini says it was cancelled", () => (screen().includes("Request cancelled") ? true : undefined), 30_000, screen);
    await sleep(1000);
    expect(existsSync(join(project, "approved"))).toBe(false);
  });
});
