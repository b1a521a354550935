// Live: the real interactive Cline CLI (pinned in harnesses.json) with the hook scripts `tongs-agents install --agent
// cline` writes, in a private tmux server, offline against the synthetic provider on 127.0.0.1 (OpenAI Chat
// Completions): running at a prompt, the run_commands tool, idle at the end of the turn, idle with the turn interrupted
// after Esc, error from a provider 400. Where a session runs decides whose record it is: a UI started with no hub
// daemon running keeps its sessions in its own process (and starts the daemon in the background), so the record is
// that UI's and names its pane; a UI started while the daemon runs hands its sessions to the daemon, so the record is
// the daemon's and claims no terminal (docs/harness-facts.md). /clear in the first UI, then a prompt: a new session in
// the same process, the old record ended; /exit, then `cline -i --id <the id Cline printed>` in a new UI: the record
// has that id and the exited UI's record is not live. Then uninstall takes out exactly our scripts and our MCP entry,
// leaving the user's hook. Each step is a test of its own, in order, and proves one claim in .cache/evidence/cline.json
// (docs/evidence.md).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEvidence } from "../../e2e/evidence.ts";
import { startProvider } from "../../e2e/provider/server.mjs";
import { installersFor } from "../../src/harnesses/installers.ts";
import type { InstallContext } from "../../src/install/context.ts";
import { runInstaller } from "../../src/install/installer.ts";
import { ROOT, runCliProcess, stopTmuxServer } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { HARNESS_PACKAGES, harnessBinDir } from "./harnesses.ts";
import { liveWorld } from "./live-world.ts";
import { sleep, tmuxUi, until, type ShownSession } from "./tmux-ui.ts";

const { package: PACKAGE, version: VERSION } = HARNESS_PACKAGES.cline;

const evidence = createEvidence(
  "cline",
  `Cline CLI ${VERSION} interactive in tmux on this machine: lifecycle through the installed hooks`,
  {
    containers: false,
  },
);
evidence.addVersions({ [`cline (npm ${PACKAGE})`]: VERSION });
const HOW = `cline ${VERSION} (cline -i) in a private tmux server, driven by send-keys; hook scripts written by tongs-agents install --agent cline; provider set with cline auth: synthetic OpenAI Chat Completions on 127.0.0.1; records read with tongs-agents list and explain`;

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

const USER_HOOK = "#!/bin/sh\ncat > /dev/null\n";
let sandbox: Sandbox;
let provider: Awaited<ReturnType<typeof startProvider>>;
let socket: string;
let world: InstallContext;
let hooksDir: string;
let mcpPath: string;
let project: string;
let ui: ReturnType<typeof tmuxUi>;
let pane: string;
/** The first UI's session at the end of its first turn. */
let idle: ShownSession;
/** The second UI's session (the hub daemon runs it). */
let second: ShownSession;
/** The first UI's session after /clear. */
let cleared: ShownSession;
const state = (want: (session: ShownSession) => boolean) => async () => (await ui.live()).find(want);
// Cline's echo of a sent prompt looks like its input line: type, pause, Enter once.
const send = async (window: string, text: string) => {
  ui.keys(window, "-l", text);
  await sleep(800);
  ui.keys(window, "Enter");
};
/**
 * The prompt typed into the input line and sent: Enter again while the line still holds it (a UI redrawing its input,
 * as after /clear, can drop an early Enter). Cline echoes a sent prompt as ` ❯ <text>`, one space in; its input line
 * starts at the margin (`❯ `) or, on the welcome screen, centred.
 */
const prompt = async (window: string, text: string) => {
  const onInput = () =>
    ui
      .screen(window)
      .split("\n")
      .some((line) => line.trim() === `❯ ${text}` && !line.startsWith(" ❯ "));
  ui.keys(window, "-l", text);
  await until(`"${text}" typed`, () => (onInput() ? true : undefined), ui.explain(window));
  await sleep(800);
  await until(
    `"${text}" sent`,
    async () => {
      ui.keys(window, "Enter");
      await sleep(3000);
      return onInput() ? undefined : true;
    },
    ui.explain(window),
  );
};
const clineHistory = async () => (await world.exec("cline", ["history", "--json"], { env: world.env, timeoutMs: 60_000 })).stdout;
interface ClineListed {
  readonly sessionId: string;
  readonly status: string;
  readonly endedAt: string | null;
}
/** Wait until Cline's own list of sessions (`cline history --json`) shows the session as `want` says. */
const clineLists = (what: string, sessionId: string, want: (session: ClineListed) => boolean) =>
  until(
    `cline history: ${sessionId} ${what}`,
    async () => {
      const listed = await clineHistory();
      const sessions = listed.startsWith("[") ? (JSON.parse(listed) as ClineListed[]) : [];
      return sessions.some((session) => session.sessionId === sessionId && want(session)) ? true : undefined;
    },
    clineHistory,
  );
const panePid = (window: string) =>
  Number(execFileSync("tmux", ["-S", socket, "display-message", "-p", "-t", `live:${window}`, "#{pane_pid}"], { encoding: "utf8" }));

/** Start `cline -i` in a window and wait for its prompt; a first start shows an offer over it that any key closes. */
const startUi = async (window: string, ...args: string[]) => {
  const started = ui.start(window, "-i", ...args);
  await until("the prompt", async () => (ui.screen(window).includes("Auto-approve") ? true : undefined), ui.explain(window));
  await sleep(3000);
  ui.keys(window, "Escape");
  await sleep(1000);
  return started;
};

beforeAll(async () => {
  sandbox = makeSandbox();
  socket = join(sandbox.root, "tmux.sock");
  // SLOW holds the reply long enough for Esc to land on a loaded machine (the record must show running first).
  provider = await startProvider({ port: 0, toolCommand: "touch approved", slowMs: 15_000 });
});
afterAll(async () => {
  await stopTmuxServer(socket);
  for (const pid of sandboxDaemons(sandbox.home)) process.kill(pid);
  await provider.stop();
  sandbox.cleanup();
  evidence.untested(
    "waiting (an approval dialog)",
    "Cline has no permission hook and its task files are not read, so a dialog is not visible; the UI runs with auto-approve on",
  );
  evidence.untested("started before the first prompt", "TaskStart fires with every prompt, not once per session: a record begins running");
  evidence.untested("ended", "/exit fires no hook in this version, and a daemon-hosted session outlives the UI");
  evidence.untested(
    "/clear in a UI whose session the hub daemon runs",
    "the daemon runs several UIs' sessions, so nothing says which one a /clear replaced: the old record stays live (idle) until the daemon exits",
  );
  evidence.untested(
    "focus on a Cline record",
    "not driven by this suite: a UI-hosted record names its pane (proven above; focus by pane is proven for tmux by the tmux-focus suite); a daemon-hosted record claims no terminal and nothing locates its UI",
  );
  evidence.write();
});

describe(`Cline ${PACKAGE} ${VERSION} (live, interactive in tmux)`, { timeout: 180_000 }, () => {
  it("install writes our hook scripts and MCP entry beside the user's own hook", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "`tongs-agents install --agent cline` writes six `<Event>.sh` hook scripts into $CLINE_DIR/hooks beside the user's own `TaskComplete` hook, and our stdio MCP server into cline_mcp_settings.json",
      kind: "live",
      how: HOW,
    });
    world = liveWorld(sandbox, ROOT, [harnessBinDir("cline")], { TONGS_AGENTS_DEBUG: "1" });
    const clineDir = world.env.CLINE_DIR as string;
    hooksDir = join(clineDir, "hooks");
    // A hook of the user's own under another name Cline accepts for the same event: it runs beside ours and stays.
    mkdirSync(hooksDir, { recursive: true });
    writeFileSync(join(hooksDir, "TaskComplete"), USER_HOOK, { mode: 0o755 });
    expect((await runInstaller(world, { harnesses: await installersFor(["cline"]), mode: "install", dryRun: false, options: [] })).ok).toBe(
      true,
    );
    expect(readdirSync(hooksDir).sort()).toEqual(
      ["PostToolUse.sh", "PreToolUse.sh", "SessionShutdown.sh", "TaskComplete", "TaskComplete.sh", "TaskError.sh", "TaskStart.sh"].sort(),
    );
    mcpPath = join(clineDir, "data", "settings", "cline_mcp_settings.json");
    expect(JSON.parse(readFileSync(mcpPath, "utf8")).mcpServers["tongs-agents"].transport).toMatchObject({
      type: "stdio",
      args: [expect.any(String), "mcp"],
    });
  });

  it("a prompt with a tool call: running, the tool, idle, in that order", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "a prompt whose reply calls run_commands: the command runs and `explain` shows exactly TaskStart -> running, PreToolUse -> running, PostToolUse -> running, TaskComplete -> idle for one session",
      kind: "live",
      how: HOW,
    });
    // The provider, configured with Cline's own command.
    const auth = await world.exec(
      "cline",
      ["auth", "-p", "openai-compatible", "-k", "not-a-key", "-m", "fake-model", "-b", `${provider.url}/v1`],
      { env: world.env, timeoutMs: 60_000 },
    );
    expect(auth.ok, `${auth.stdout}${auth.stderr}`).toBe(true);
    project = join(sandbox.root, "project");
    mkdirSync(project);
    ui = tmuxUi({ socket, project, world, bin: "cline", inputMark: "❯ " });
    // No hub daemon runs under this HOME yet: this UI will keep its sessions in its own process.
    expect(sandboxDaemons(sandbox.home)).toEqual([]);
    pane = await startUi("first");

    await send("first", "please RUNTOOL");
    idle = await until(
      "the end of the turn",
      state((session) => session.status === "idle"),
      ui.explain("first"),
    );
    expect(existsSync(join(project, "approved"))).toBe(true);
    const history = JSON.parse((await runCliProcess(["explain", idle.session_id, "--json"], world.env)).stdout) as {
      entries: { event: string; status: string }[];
    };
    expect(history.entries.map((entry) => `${entry.event} ${entry.status}`)).toEqual([
      "cline.prompt-submit running",
      "cline.tool-use running",
      "cline.tool-done running",
      "cline.stop idle",
    ]);
  });

  it("a UI started with no hub daemon runs its session itself: the record is that UI's process and names its pane", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "the first UI (no hub daemon running when it started) runs the hooks itself: the record's PID is exactly the pane's `cline -i` process and it names that pane; the hub daemon it starts meanwhile is another process",
      kind: "live",
      how: `${HOW}; tmux display-message #{pane_pid}, /proc/<pid>/cmdline`,
    });
    expect(idle.pid).toBe(panePid("first"));
    expect(readFileSync(`/proc/${idle.pid}/cmdline`, "utf8").split("\0")).toContain("-i");
    expect(idle.terminal.env.TMUX_PANE).toBe(pane);
    const daemons = await until(
      "the hub daemon the UI starts",
      () => {
        const found = sandboxDaemons(sandbox.home);
        return found.length > 0 ? found : undefined;
      },
      ui.explain("first"),
    );
    expect(daemons).toHaveLength(1);
    expect(daemons).not.toContain(idle.pid);
  });

  it("Esc while the reply is held: idle, the turn interrupted; the session goes on", async ({ task }) => {
    evidence.prove(task, {
      claim: "Esc while the provider holds the reply: SessionShutdown -> `idle` (turn interrupted), the same session",
      kind: "live",
      how: `${HOW}; the prompt says SLOW, the test presses Escape once the record is running`,
    });
    await send("first", "SLOW hello");
    await until(
      "running",
      state((session) => session.status === "running"),
      ui.explain("first"),
    );
    ui.keys("first", "Escape");
    const interrupted = await until(
      "idle after Esc",
      state((session) => session.detail === "turn interrupted"),
      ui.explain("first"),
    );
    expect(interrupted).toMatchObject({ status: "idle", session_id: idle.session_id });
  });

  it("a provider 400: error", async ({ task }) => {
    evidence.prove(task, {
      claim: "an HTTP 400 from the provider: TaskError -> `error` (turn failed (API error)); one live record",
      kind: "live",
      how: `${HOW}; the prompt says FAILAPI, the provider answers 400`,
    });
    await send("first", "FAILAPI please");
    const failed = await until(
      "the failed turn",
      state((session) => session.status === "error"),
      ui.explain("first"),
    );
    expect(failed).toMatchObject({ session_id: idle.session_id, detail: "turn failed (API error)" });
    expect((await ui.live()).map((session) => session.session_id)).toEqual([idle.session_id]);
  });

  it("a UI started while the hub daemon runs hands its session to the daemon: the record is the daemon's, no terminal claimed", async ({
    task,
  }) => {
    evidence.prove(task, {
      claim:
        "a second UI started while the hub daemon runs: its session's hooks run under the daemon, so the record's PID is exactly the daemon (`--cline-hub-daemon`) and it claims no terminal (the daemon has the first UI's environment); the first UI's record is unchanged",
      kind: "live",
      how: `${HOW}; a second tmux window; /proc/<pid>/cmdline and environ`,
    });
    const [daemon] = sandboxDaemons(sandbox.home);
    await startUi("second");
    await send("second", "second RUNTOOL");
    second = await until(
      "the second UI's turn",
      state((session) => session.session_id !== idle.session_id && session.status === "idle"),
      ui.explain("second"),
    );
    expect(second.pid).toBe(daemon);
    expect(second.terminal).toEqual({ env: {}, unprovable: expect.stringContaining("shared daemon") });
    expect((await ui.live()).find((session) => session.session_id === idle.session_id)).toMatchObject({
      pid: idle.pid,
      terminal: { env: { TMUX_PANE: pane } },
    });
  });

  it("/clear in the UI that runs its session, then a prompt: a new session in that process, the old record ended", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "/clear (fires no hook) then a prompt in the first UI: TaskStart carries a new session id, the one `cline history` lists as idle (the old one ended at the /clear); its record has the same PID, the old record is `ended` (replaced by a new session in the same process), and it is that process's only live record",
      kind: "live",
      how: `${HOW}; cline history --json`,
    });
    await prompt("first", "/clear");
    // Cline's welcome screen, whose input line invites the first prompt of a session.
    await until(
      "the new session's prompt",
      () => (ui.screen("first").includes("❯ What can I do for you?") ? true : undefined),
      ui.explain("first"),
    );
    await prompt("first", "hello after clear");
    cleared = await until(
      "the new session's turn",
      state((session) => session.session_id !== idle.session_id && session.pid === idle.pid && session.status === "idle"),
      ui.explain("first"),
    );
    await clineLists("idle", cleared.session_id, (session) => session.status === "idle");
    // Ended at the /clear: `completed`, or `failed` as here, since its last turn failed.
    await clineLists("ended", idle.session_id, (session) => session.endedAt !== null);
    expect((await ui.sessions()).find((session) => session.session_id === idle.session_id)).toMatchObject({
      status: "ended",
      detail: "replaced by a new session in the same process",
    });
    expect((await ui.live()).filter((session) => session.pid === idle.pid).map((session) => session.session_id)).toEqual([
      cleared.session_id,
    ]);
  });

  it("/exit, then `cline -i --id <the id Cline printed>` in a new UI: that session id, the exited UI's record not live", async ({
    task,
  }) => {
    evidence.prove(task, {
      claim:
        "/exit prints `Continue  cline --id <id>` with the record's session id; `cline -i --id <id>` in a new window, then a prompt: the record has that id and the PID of the process that runs it now (the hub daemon), and the exited UI's record of the same session is not live (its process is gone)",
      kind: "live",
      how: `${HOW}; a third tmux window; tmux #{pane_dead}`,
    });
    await prompt("first", "/exit");
    const printed = await until(
      "the id /exit prints",
      () => /Continue\s+cline --id (\S+)/.exec(ui.screen("first"))?.[1],
      ui.explain("first"),
    );
    expect(printed).toBe(cleared.session_id);
    await until(
      "the first UI's exit",
      () =>
        execFileSync("tmux", ["-S", socket, "display-message", "-p", "-t", "live:first", "#{pane_dead}"], { encoding: "utf8" }).trim() ===
        "1"
          ? true
          : undefined,
      ui.explain("first"),
    );
    const [daemon] = sandboxDaemons(sandbox.home);
    await startUi("resumed", "--id", printed);
    await prompt("resumed", "hello again");
    const resumed = await until(
      "the resumed session's turn",
      state((session) => session.session_id === printed && session.pid !== idle.pid && session.status === "idle"),
      ui.explain("resumed"),
    );
    expect(resumed.pid).toBe(daemon);
    const records = (await ui.sessions()).filter((session) => session.session_id === printed);
    expect(records.map((session) => `${session.pid} ${session.status}`).sort()).toEqual([`${idle.pid} ended`, `${daemon} idle`].sort());
    expect((await ui.live()).map((session) => session.session_id).sort()).toEqual([printed, second.session_id].sort());
  });

  it("uninstall takes out our scripts and our MCP entry; the user's hook stays", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "`tongs-agents uninstall --agent cline` removes exactly our six scripts and the MCP settings file it created; the user's own `TaskComplete` hook stays byte for byte",
      kind: "live",
      how: HOW,
    });
    expect(
      (await runInstaller(world, { harnesses: await installersFor(["cline"]), mode: "uninstall", dryRun: false, options: [] })).ok,
    ).toBe(true);
    expect(readdirSync(hooksDir)).toEqual(["TaskComplete"]);
    expect(readFileSync(join(hooksDir, "TaskComplete"), "utf8")).toBe(USER_HOOK);
    // install created the MCP settings file for our entry alone: uninstall takes it away again.
    expect(existsSync(mcpPath)).toBe(false);
  });
});
