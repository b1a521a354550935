// Live: the real interactive Copilot CLI (pinned in harnesses.json) in a private tmux server with the hooks our
// installer writes, offline against the synthetic provider: Ctrl+C cancels the first turn (no hook fires; the abort
// line in the session's events file makes it idle, interrupted), `/clear` starts a new conversation in the same process, and
// `copilot --resume=<id>` in a new process goes on with that conversation: one live record per running process, with
// the native session id. The interactive UI fires sessionStart only at a conversation's first prompt, so until then the
// process is listed as discovered.
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { createEvidence } from "../../e2e/evidence.ts";
import { startProvider } from "../../e2e/provider/server.mjs";
import { stopTmuxServer } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { copilotWorld } from "./copilot-world.ts";
import { HARNESS_PACKAGES } from "./harnesses.ts";
import { tmuxUi, until } from "./tmux-ui.ts";

let sandbox: Sandbox;
let provider: Awaited<ReturnType<typeof startProvider>>;
let socket: string;
beforeEach(async () => {
  sandbox = makeSandbox();
  socket = join(sandbox.root, "tmux.sock");
  provider = await startProvider({ port: 0, slowMs: 15_000 });
});
afterEach(async () => {
  await stopTmuxServer(socket);
  await provider.stop();
  sandbox.cleanup();
});

const VERSION = HARNESS_PACKAGES.copilot.version;
const evidence = createEvidence("copilot-live", `Copilot CLI ${VERSION} interactive in tmux on this machine: Ctrl+C, /clear and resume`, {
  containers: false,
});
evidence.addVersions({ [`copilot (npm ${HARNESS_PACKAGES.copilot.package})`]: VERSION });
afterAll(() => void evidence.write());

describe(`Copilot CLI ${VERSION} (live, interactive in tmux)`, () => {
  it("/clear and resume keep one live record per process, with the native session id", { timeout: 300_000 }, async ({ task }) => {
    evidence.prove(task, {
      claim:
        "Ctrl+C while the first reply is held cancels the turn and fires no hook: the abort line in the session's events.jsonl (found by its id) makes the record idle, interrupted; `/clear`: the old session ended, the new conversation a new record of the same process; `/exit`: ended; `copilot --resume=<id>` in a new process: that session's own id, the only live record",
      kind: "live",
      how: `copilot ${VERSION} interactive in a private tmux server (send-keys), hooks from \`tongs-agents install --agent copilot\`; synthetic provider on 127.0.0.1 (COPILOT_PROVIDER_BASE_URL, offline); records read with tongs-agents list --json`,
    });
    const { world, project } = await copilotWorld(sandbox, provider.url);
    const ui = tmuxUi({ socket, project, world, bin: "copilot", inputMark: "❯ " });
    const { live, sessions, explain, type } = ui;
    const idleOther = (pid: number | undefined, not: string[]) => async () =>
      (await live()).find(
        (session) => session.status === "idle" && !not.includes(session.session_id) && (pid === undefined || session.pid === pid),
      );

    ui.start("first");
    await until("the prompt", async () => (ui.screen("first").includes("fake-model") ? true : undefined), explain("first"), 120_000);
    // Ctrl+C while the first reply is held (SLOW) cancels the turn ("Operation cancelled by user"; Esc is not taken while
    // Copilot waits for the model). No hook fires: the abort line in the session's events file says it, found by the
    // session's id before any agentStop named the file.
    await type("first", "SLOW hello");
    const busy = await until("the held turn", async () => (await live()).find((session) => session.status === "running"), explain("first"));
    ui.keys("first", "C-c");
    const first = await until(
      "the state after Ctrl+C",
      async () => (await live()).find((session) => session.session_id === busy.session_id && session.status !== "running"),
      explain("first"),
    );
    expect([first.status, first.detail, first.last_event]).toEqual([
      "idle",
      "interrupted by the user (stated in Copilot CLI's session events)",
      "copilot.interrupted",
    ]);
    await type("first", "say hello");
    await until(
      "the next turn's end",
      async () => (await live()).find((session) => session.session_id === first.session_id && session.last_event === "copilot.stop"),
      explain("first"),
      90_000,
    );

    await type("first", "/clear");
    await until("the first session's end", async () => ((await live()).length === 0 ? true : undefined), explain("first"));
    await type("first", "say hello");
    const cleared = await until("the new conversation's first turn", idleOther(first.pid, [first.session_id]), explain("first"));
    expect((await live()).map((session) => [session.session_id, session.pid])).toEqual([[cleared.session_id, first.pid]]);
    expect((await sessions()).find((session) => session.session_id === first.session_id)?.status).toBe("ended");

    await type("first", "/exit");
    await until("sessionEnd", async () => ((await live()).length === 0 ? true : undefined), explain("first"));

    ui.start("resumed", `--resume=${cleared.session_id}`);
    await until(
      "the resumed prompt",
      async () => (ui.screen("resumed").includes("fake-model") ? true : undefined),
      explain("resumed"),
      120_000,
    );
    await type("resumed", "say hello again");
    const resumed = await until(
      "the resumed turn's end",
      async () => (await live()).find((session) => session.status === "idle" && session.pid !== first.pid),
      explain("resumed"),
      90_000,
    );
    expect(resumed.session_id).toBe(cleared.session_id);
    expect((await live()).map((session) => [session.session_id, session.pid])).toEqual([[cleared.session_id, resumed.pid]]);
  });
});
