// Live: the real interactive Cline CLI (pinned in harnesses.json) with the hook scripts `tongs-agents install --agent
// cline` writes, in a private tmux server, offline against the synthetic provider on 127.0.0.1 (OpenAI Chat
// Completions): running at a prompt, the run_commands tool, idle at the end of the turn, idle with the turn interrupted
// after Esc, error from a provider 400; the record belongs to Cline's hub daemon (the process that runs the hooks), so
// its terminal is not claimed; then uninstall takes out exactly our scripts and our MCP entry, leaving the user's hook.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startProvider } from "../../e2e/provider/server.mjs";
import { installersFor } from "../../src/harnesses/installers.ts";
import { runInstaller } from "../../src/install/installer.ts";
import { ROOT, runCliProcess, stopTmuxServer } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { HARNESS_PACKAGES, harnessBinDir } from "./harnesses.ts";
import { liveWorld } from "./live-world.ts";
import { sleep, tmuxUi, until, type ShownSession } from "./tmux-ui.ts";

let sandbox: Sandbox;
let provider: Awaited<ReturnType<typeof startProvider>>;
let socket: string;
/** Cline's hub daemons started under this sandbox's HOME (the UI starts one and leaves it running): their PIDs. */
function sandboxDaemons(home: string): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
        return argv.includes("--cline-hub-daemon") && readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(`HOME=${home}`);
      } catch {
        return false;
      }
    })
    .map(Number);
}
beforeEach(async () => {
  sandbox = makeSandbox();
  socket = join(sandbox.root, "tmux.sock");
  provider = await startProvider({ port: 0, toolCommand: "touch approved", slowMs: 4000 });
});
afterEach(async () => {
  await stopTmuxServer(socket);
  for (const pid of sandboxDaemons(sandbox.home)) process.kill(pid);
  await provider.stop();
  sandbox.cleanup();
});

const { package: PACKAGE, version: VERSION } = HARNESS_PACKAGES.cline;

describe(`Cline ${PACKAGE} ${VERSION} (live, interactive in tmux)`, () => {
  it("running, the tool, idle, Esc, error from the installed hooks; uninstall leaves the user's hook", { timeout: 300_000 }, async () => {
    const world = liveWorld(sandbox, ROOT, [harnessBinDir("cline")], { TONGS_AGENTS_DEBUG: "1" });
    const clineDir = world.env.CLINE_DIR as string;
    const hooksDir = join(clineDir, "hooks");
    // A hook of the user's own under another name Cline accepts for the same event: it runs beside ours and stays.
    mkdirSync(hooksDir, { recursive: true });
    const own = join(hooksDir, "TaskComplete");
    writeFileSync(own, "#!/bin/sh\ncat > /dev/null\n", { mode: 0o755 });
    expect((await runInstaller(world, { harnesses: await installersFor(["cline"]), mode: "install", dryRun: false, options: [] })).ok).toBe(
      true,
    );
    expect(readdirSync(hooksDir).sort()).toEqual(
      ["PostToolUse.sh", "PreToolUse.sh", "SessionShutdown.sh", "TaskComplete", "TaskComplete.sh", "TaskError.sh", "TaskStart.sh"].sort(),
    );
    const mcpPath = join(clineDir, "data", "settings", "cline_mcp_settings.json");
    expect(JSON.parse(readFileSync(mcpPath, "utf8")).mcpServers["tongs-agents"].transport).toMatchObject({
      type: "stdio",
      args: [expect.any(String), "mcp"],
    });
    // The provider, configured with Cline's own command.
    const auth = await world.exec(
      "cline",
      ["auth", "-p", "openai-compatible", "-k", "not-a-key", "-m", "fake-model", "-b", `${provider.url}/v1`],
      {
        env: world.env,
        timeoutMs: 60_000,
      },
    );
    expect(auth.ok, `${auth.stdout}${auth.stderr}`).toBe(true);
    const project = join(sandbox.root, "project");
    mkdirSync(project);

    const ui = tmuxUi({ socket, project, world, bin: "cline", inputMark: "❯ " });
    const { live, screen, explain, keys } = ui;
    const state = (want: (session: ShownSession) => boolean) => async () => (await live()).find(want);
    // Cline's echo of a sent prompt looks like its input line: type, pause, Enter once.
    const send = async (text: string) => {
      keys("first", "-l", text);
      await sleep(800);
      keys("first", "Enter");
    };

    ui.start("first", "-i");
    await until("the prompt", async () => (screen("first").includes("Auto-approve") ? true : undefined), explain("first"));
    await sleep(3000);
    // A first start shows an offer over the prompt; any key closes it.
    keys("first", "Escape");
    await sleep(1000);

    await send("please RUNTOOL");
    const idle = await until(
      "the end of the turn",
      state((session) => session.status === "idle"),
      explain("first"),
    );
    expect(existsSync(join(project, "approved"))).toBe(true);
    expect(idle.session_id).toMatch(/^conv_/);
    // The hooks run under a cline process (the UI's hub daemon where it started one).
    expect(readFileSync(`/proc/${idle.pid}/comm`, "utf8").trim()).toBe("cline");
    const history = JSON.parse((await runCliProcess(["explain", idle.session_id, "--json"], world.env)).stdout) as {
      entries: { event: string; status: string }[];
    };
    expect(history.entries.map((entry) => `${entry.event} ${entry.status}`)).toEqual([
      "cline.prompt-submit running",
      "cline.tool-use running",
      "cline.tool-done running",
      "cline.stop idle",
    ]);

    // Esc while the reply is held: SessionShutdown -> idle, the turn interrupted; the session goes on.
    await send("SLOW hello");
    await until(
      "running",
      state((session) => session.status === "running"),
      explain("first"),
    );
    keys("first", "Escape");
    const interrupted = await until(
      "idle after Esc",
      state((session) => session.detail === "turn interrupted"),
      explain("first"),
    );
    expect(interrupted).toMatchObject({ status: "idle", session_id: idle.session_id });

    // The provider's 400: TaskError -> error.
    await send("FAILAPI please");
    const failed = await until(
      "the failed turn",
      state((session) => session.status === "error"),
      explain("first"),
    );
    expect(failed).toMatchObject({ session_id: idle.session_id, detail: "turn failed (API error)" });
    expect((await live()).map((session) => session.session_id)).toEqual([idle.session_id]);

    // Uninstall: our scripts and our MCP entry go; the user's own hook stays as it was.
    expect(
      (await runInstaller(world, { harnesses: await installersFor(["cline"]), mode: "uninstall", dryRun: false, options: [] })).ok,
    ).toBe(true);
    expect(readdirSync(hooksDir)).toEqual(["TaskComplete"]);
    expect(readFileSync(own, "utf8")).toBe("#!/bin/sh\ncat > /dev/null\n");
    // install created the MCP settings file for our entry alone: uninstall takes it away again.
    expect(existsSync(mcpPath)).toBe(false);
  });
});
