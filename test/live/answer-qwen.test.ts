// Live: `tongs-agents answer` against the real interactive Qwen Code (pinned in harnesses.json) with the hooks
// `tongs-agents install` writes, in a private tmux server, against the synthetic provider asking to run `touch
// approved`, in its "Ask permissions" mode. Qwen holds no hook alongside its dialog (docs/answer.md): keys into the pane.
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

describe(`Qwen Code ${HARNESS_PACKAGES.qwen.version}: answer by keys into its tmux pane (live)`, { timeout: 300_000 }, () => {
  it("allows and denies through the dialog's labels; `always` is refused as ambiguous between its two scopes", async () => {
    const world = liveWorld(sandbox, ROOT, [harnessBinDir("qwen")], {
      OPENAI_API_KEY: "not-a-key",
      OPENAI_BASE_URL: `${provider.url}/v1`,
      OPENAI_MODEL: "fake-model",
    });
    const settingsPath = join(world.env.QWEN_HOME as string, "settings.json");
    mkdirSync(world.env.QWEN_HOME as string, { recursive: true });
    writeFileSync(
      settingsPath,
      JSON.stringify({
        security: { auth: { selectedType: "openai" } },
        model: { name: "fake-model" },
        // "Ask permissions": the real dialog for every shell command (the interactive default is Auto mode).
        tools: { approvalMode: "default" },
        general: { enableAutoUpdate: false },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
      }),
    );
    expect((await runInstaller(world, { harnesses: await installersFor(["qwen"]), mode: "install", dryRun: false, options: [] })).ok).toBe(
      true,
    );
    expect(JSON.parse(readFileSync(settingsPath, "utf8")).tools).toEqual({ approvalMode: "default" });
    const project = join(sandbox.root, "project");
    mkdirSync(project);
    const { screen, type, clear, session, answer } = startAnswerLab(socket, project, world.env, "qwen");
    await until("Qwen's input prompt", () => (screen().includes("Type your message") ? true : undefined), 90_000, screen);
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
    const open = JSON.parse((await answer(first.short_id, "show", "--json")).stdout) as { wait: { id: string } };
    const always = await answer(first.short_id, "always");
    expect(always).toMatchObject({ code: 10, stdout: "" });
    expect(always.stderr).toContain("2 options mean always; it offers: allow = 1. Yes, allow once;");
    const allowed = await answer(first.short_id, "allow", "--wait", open.wait.id);
    expect(allowed.stderr).toBe("");
    expect(allowed.stdout).toMatch(/^answered allow: pressed 1 \(Yes, allow once\) in tmux pane %\d+ .*; the dialog closed$/);
    await until("the approved command's file", () => (existsSync(join(project, "approved")) ? true : undefined), 30_000, screen);
    await until("the end of the turn", async () => ((await session())?.status === "idle" ? true : undefined), 60_000, screen);
    expect((await answer(first.short_id, "allow", "--wait", open.wait.id)).code).toBe(10);

    rmSync(join(project, "approved"));
    await clear("please RUNTOOL");
    const second = await asks();
    const denied = await answer(second.short_id, "deny");
    expect(denied.stderr).toBe("");
    expect(denied.stdout).toMatch(/^answered deny: pressed 4 \(No, suggest changes \(esc\)\) in tmux pane %\d+ .*; the dialog closed$/);
    await until("the session no longer waiting", async () => ((await session())?.status !== "waiting" ? true : undefined), 60_000, screen);
    await sleep(1000);
    expect(existsSync(join(project, "approved"))).toBe(false);
  });
});
