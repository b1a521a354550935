// The real Codex CLI (pinned in containers/recipe.ts and test/live/harnesses.json), interactive in tmux panes inside a
// container, against the synthetic provider on 127.0.0.1 (e2e/provider). Our hooks are the ones the installed
// `tongs-agents install --agent codex --trust-codex-hooks` writes; Codex is driven with tmux send-keys only.
//
// 1. `codex --no-daemon`: every lifecycle transition (seen by a watcher of the record file), the record's identity
//    (the real `codex` process), exact focus (read from what an attached tmux client draws), an API error (no hook:
//    read from Codex's rollout), Esc mid-turn, /quit.
// 2. The default shared daemon, two UIs in two panes: what Codex does, and that no record claims a pane it cannot
//    prove (no terminal target, focus `unavailable` with the reason).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENTS } from "../containers/recipe.ts";
import { requireImage, startBox, type Box } from "./containers.ts";
import {
  codexRecords,
  environOf,
  focus,
  GATE,
  listSessions,
  prepareCodexBox,
  processTable,
  quitCodex,
  recordVersions,
  startCodex,
  transitionsOf,
  waitForRecord,
} from "./codex-box.ts";
import { attach, capture, clients, expectedCursor, keys, openPane, seen, submit, waitUntil, type Client, type Pane } from "./codex-tmux.ts";
import { boxVersions, createEvidence } from "./evidence.ts";
import type { FocusResult } from "../src/focus/result.ts";
import { NO_EVIDENCE } from "../src/harnesses/codex/locate-ui.ts";
import type { SessionView } from "../src/fleet/view.ts";

const CODEX = AGENTS.codex;
const evidence = createEvidence("codex", `Codex CLI ${CODEX.version}, interactive in tmux, in a container, against the synthetic provider`);
const HOW = `real codex ${CODEX.version} UI in a tmux pane inside a rootless Podman container, driven by tmux send-keys; model replies scripted by the synthetic provider (OpenAI Responses, streaming) on 127.0.0.1 in the same container; hooks written and trusted by the installed tongs-agents`;
let image: string;

beforeAll(async () => {
  image = await requireImage({ agents: ["codex"] });
}, 1_800_000);

afterAll(() => {
  evidence.write();
});

async function newBox(extraConfig = ""): Promise<{ box: Box; installOutput: string }> {
  const box = await startBox(image);
  try {
    const prepared = await prepareCodexBox(box, { extraConfig });
    expect(prepared.install.code, prepared.install.stderr).toBe(0);
    evidence.addVersions({ ...(await boxVersions(box, ["tmux", "procps"])), codex: prepared.codexVersion });
    return { box, installOutput: prepared.install.stdout };
  } catch (error) {
    await box.stop();
    throw error;
  }
}

describe("codex --no-daemon: transitions, identity, focus, interrupt", { timeout: 300_000 }, () => {
  let box: Box;
  let pane: Pane;
  let decoy: Pane;
  let client: Client;
  let session: SessionView;
  let applied = 0;

  beforeAll(async () => {
    ({ box } = await newBox());
    // The client starts on another session, so focus has to switch session, window and pane.
    // The user's own shell, in the session the client shows first: focus is typed there, as a user would.
    decoy = await openPane(box, { session: "decoy" }, "/", "env PS1='decoy$ ' bash --norc --noprofile -i");
    await submit(box, decoy.id, "echo DECOY-PANE-MARKER");
    client = await attach(box, "decoy");
    pane = await startCodex(box, { session: "agents" }, ["--no-daemon"]);
  }, 600_000);

  afterAll(() => box?.stop());

  it("installs hooks that run the installed hook, trusted, and codex starts without a review screen", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "`tongs-agents install --agent codex --trust-codex-hooks` inside the container writes hooks Codex runs without asking for review",
      kind: "live",
      how: `${HOW}; hooks.json read back; the UI shows its composer, not the "Hooks need review" screen`,
    });
    const hooks = JSON.parse(await box.sh("cat /root/.codex/hooks.json")) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
    expect(Object.keys(hooks.hooks).sort()).toEqual([
      "Interrupt",
      "PermissionRequest",
      "PostCompact",
      "PostToolUse",
      "PreCompact",
      "PreToolUse",
      "SessionEnd",
      "SessionStart",
      "Stop",
      "SubagentStart",
      "SubagentStop",
      "UserPromptSubmit",
    ]);
    for (const [event, groups] of Object.entries(hooks.hooks))
      expect(groups[0]?.hooks[0]?.command, event).toMatch(
        /^\/bin\/sh \/usr\/local\/lib\/node_modules\/tongs-agents\/bin\/tongs-agents-hook\.sh \/usr\/local\/bin\/node [a-z-]+ --agent codex$/,
      );
    expect(await box.sh("grep -c trusted_hash /root/.codex/config.toml")).toBe("12\n");
    expect(await capture(box, pane.id)).not.toMatch(/review/i);
  });

  it("before the first prompt codex has no record and is discovered by its exact process name", async ({ task }) => {
    evidence.prove(task, {
      claim: "Codex's interactive UI fires no hook before the first prompt; list shows it as discovered (exact name `codex`)",
      kind: "live",
      how: HOW,
    });
    expect(await codexRecords(box)).toEqual([]);
    const discovered = (await listSessions(box)).filter((view) => view.harness === "codex");
    expect(discovered).toMatchObject([{ identity: "discovered", status: "discovered", pid: pane.pid, cwd: "/work/project" }]);
  });

  it("a tool turn: started, running, running (Bash) while the tool runs, running (Bash finished), idle", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "Codex: session-start -> started, prompt-submit -> running, PreToolUse -> running (Bash) held while the command runs, PostToolUse -> running, Stop -> idle with the reply",
      kind: "live",
      how: `${HOW}; every record version logged by an inotify watcher in the container; the tool command waits for a gate file`,
    });
    await submit(box, pane.id, "please RUNTOOL now (CODEX-E2E-TOOL-TURN)");
    session = await waitForRecord(
      box,
      (view) => view.status === "running" && view.tool === "Bash",
      "the record to say running (Bash) while the tool waits",
    );
    // The command really is running now: its gate loop is a live process (Codex runs it under its sandbox).
    expect((await processTable(box)).some((proc) => proc.argv.join(" ").includes(GATE))).toBe(true);
    await box.sh(`touch "$1"`, GATE);
    await waitForRecord(box, (view) => view.id === session.id && view.status === "idle", "idle after the tool turn");
    const versions = await transitionsOf(box, session.id);
    expect(versions).toEqual([
      "codex.session-start started session started",
      "codex.prompt-submit running processing prompt",
      "codex.tool-use running Bash",
      "codex.tool-done running Bash finished",
      "codex.stop idle The tool ran; all done.",
    ]);
    applied = versions.length;
  });

  it("a permission turn: waiting while Codex's UI asks for approval, then running and idle after 'y'", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "Codex: PermissionRequest -> waiting (permission: Bash) while the approval dialog is open; approving runs the tool and ends idle",
      kind: "live",
      how: `${HOW}; ASKPERM makes the model ask for an unsandboxed exec_command, so the UI asks`,
    });
    await submit(box, pane.id, "please ASKPERM now (CODEX-E2E-PERMISSION-TURN)");
    await waitForRecord(box, (view) => view.id === session.id && view.status === "waiting", "waiting for permission");
    // The hook runs before Codex draws its dialog: wait for the drawing, or the next keys would land in the composer.
    await expect.poll(() => capture(box, pane.id), { timeout: 30_000 }).toContain("Would you like to run the following command?");
    await keys(box, pane.id, "y");
    await waitForRecord(
      box,
      (view) => view.id === session.id && view.status === "idle" && view.last_event === "codex.stop",
      "idle after approval",
    );
    const versions = await transitionsOf(box, session.id, applied);
    expect(versions).toEqual([
      "codex.prompt-submit running processing prompt",
      "codex.tool-use running Bash",
      "codex.permission-request waiting permission: Bash",
      "codex.tool-done running Bash finished",
      "codex.stop idle The tool ran; all done.",
    ]);
    applied += versions.length;
  });

  it("identity: the record's PID is the real codex process, found by exact name, and its pane and tty", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "a Codex record names the real `codex` process (PID, start token), its tmux pane and tty; with --no-daemon hooks run under the UI itself",
      kind: "live",
      how: `${HOW}; /proc read inside the container`,
    });
    const [record] = await codexRecords(box);
    const processes = await processTable(box);
    const named = processes.filter((proc) => proc.comm === "codex");
    // The npm wrapper execs the native binary on Node >= 22.15: the pane's process is codex itself, and it is alone.
    expect(named.map((proc) => proc.pid)).toEqual([pane.pid]);
    expect(named[0]?.argv.slice(1)).toEqual(["--no-daemon"]);
    expect(record).toMatchObject({ pid: pane.pid, identity: "process", stale: false, harness: "codex" });
    expect(record?.instance_id).toMatch(new RegExp(`^pid:${pane.pid}@linux:[0-9a-f-]+:${named[0]?.starttime}$`));
    expect(record?.session_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(record?.terminal).toEqual({
      env: { TMUX: expect.stringMatching(/^\/tmp\/e2e\.tmux,\d+,\d+$/), TMUX_PANE: pane.id, TERM_PROGRAM: "tmux" },
      tty: pane.tty,
    });
    // The hooks ran as children of codex: the MCP server it started is its child too, and neither is mistaken for it.
    expect(processes.filter((proc) => proc.ppid === pane.pid && proc.comm === "node").length).toBeGreaterThan(0);
  });

  it("focus: typed in a shell in another session, it moves the user's client to exactly Codex's pane", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "`tongs-agents focus`, typed in a shell pane of another tmux session, moves that real attached client to the Codex pane: the client draws Codex's screen, with the cursor where Codex's is",
      kind: "live",
      how: `${HOW}; the client is attached inside an outer tmux in the container and read with capture-pane`,
    });
    expect((await seen(box, client)).text).toContain("DECOY-PANE-MARKER");
    await submit(box, decoy.id, `tongs-agents focus ${session.short_id} --json >/tmp/focus.json; echo $? >/tmp/focus.rc`);
    const code = Number(
      await waitUntil(async () => (await box.exec(["cat", "/tmp/focus.rc"])).stdout.trim() || undefined, "focus to finish in the shell"),
    );
    const result = JSON.parse(await box.sh("cat /tmp/focus.json")) as FocusResult;
    expect(result).toMatchObject({
      state: "complete",
      backend: "tmux",
      located: true,
      selection: { succeeded: true },
      activation: { succeeded: true, detail: expect.stringContaining("the caller's own client") },
    });
    expect(code).toBe(0);
    expect((await clients(box)).find((attached) => attached.tty === client.tty)).toMatchObject({ session: "agents", pane: pane.id });
    // Codex redraws for the client's size; wait for the redraw, then the client shows its screen and cursor.
    await expect.poll(async () => (await seen(box, client)).text, { timeout: 30_000 }).toContain("CODEX-E2E-PERMISSION-TURN");
    const view = await seen(box, client);
    expect(view.text).not.toContain("DECOY-PANE-MARKER");
    expect(view.text).toContain("The tool ran; all done.");
    // The client draws a moment after Codex moves its cursor: compare the two once the client has caught up.
    await expect
      .poll(async () => (await seen(box, client)).cursor.join(",") === (await expectedCursor(box, pane.id)).join(","), {
        timeout: 10_000,
      })
      .toBe(true);
    expect(decoy.id).not.toBe(pane.id);
  });

  it("error: an API error fires no hook, and the failed turn Codex writes to its rollout shows as error within seconds", async ({
    task,
  }) => {
    evidence.prove(task, {
      claim: `Codex ${CODEX.version} fires no hook when a turn fails with an API error (HTTP 400; no StopFailure, no Stop); its rollout (the hooks' transcript_path) says task_complete with the error, and \`tongs-agents list\` shows the record as error (turn failed: <message>) within 15 s; the next prompt runs and its Stop makes it idle`,
      kind: "live",
      how: `${HOW}; FAILAPI makes the provider answer HTTP 400; the record watcher shows every version between the two prompt-submits`,
    });
    await submit(box, pane.id, "please FAILAPI now (CODEX-E2E-API-ERROR)");
    await expect.poll(() => capture(box, pane.id), { timeout: 60_000 }).toContain("synthetic failure requested by FAILAPI");
    const failed = await waitForRecord(box, (view) => view.id === session.id && view.status === "error", "error from the rollout", 15_000);
    expect(failed).toMatchObject({
      last_event: "codex.turn-failed",
      detail: expect.stringMatching(/^turn failed: .*synthetic failure requested by FAILAPI/),
    });
    await submit(box, pane.id, "say hello after the error (CODEX-E2E-AFTER-ERROR)");
    await waitForRecord(box, (view) => view.id === session.id && view.status === "idle", "idle after the prompt that follows the error");
    const versions = await transitionsOf(box, session.id, applied);
    expect(versions.map((version) => version.replace(/^(codex\.turn-failed error turn failed): .*$/, "$1"))).toEqual([
      "codex.prompt-submit running processing prompt",
      "codex.turn-failed error turn failed",
      "codex.prompt-submit running processing prompt",
      "codex.stop idle Hello from the synthetic provider.",
    ]);
    applied += versions.length;
  });

  it("interrupt: Esc mid-turn (a SLOW reply keeps the turn open) records idle, turn interrupted", async ({ task }) => {
    evidence.prove(task, {
      claim: "Codex: Esc while a reply streams fires Interrupt -> idle (turn interrupted), with no Stop",
      kind: "live",
      how: `${HOW}; SLOW holds the streamed reply open`,
    });
    await submit(box, pane.id, "SLOW please take your time (CODEX-E2E-INTERRUPT)");
    await waitForRecord(
      box,
      (view) => view.id === session.id && view.status === "running" && view.detail === "processing prompt",
      "running while the reply is held",
    );
    await keys(box, pane.id, "Escape");
    await waitForRecord(box, (view) => view.id === session.id && view.status === "idle", "idle after Esc");
    await expect.poll(() => capture(box, pane.id), { timeout: 30_000 }).toContain("Conversation interrupted");
    const versions = await transitionsOf(box, session.id, applied);
    expect(versions).toEqual(["codex.prompt-submit running processing prompt", "codex.interrupt idle turn interrupted"]);
    applied += versions.length;
  });

  it("/quit fires SessionEnd: ended, and focus then refuses", async ({ task }) => {
    evidence.prove(task, {
      claim: "Codex --no-daemon: /quit fires SessionEnd -> ended; focus of an ended session is unavailable",
      kind: "live",
      how: HOW,
    });
    await submit(box, pane.id, "/quit");
    const ended = await waitForRecord(box, (view) => view.id === session.id && view.status === "ended", "ended after /quit");
    expect(ended).toMatchObject({ detail: "session closed", last_event: "codex.session-end" });
    expect(await transitionsOf(box, session.id, applied)).toEqual(["codex.session-end ended session closed"]);
    const { code, result } = await focus(box, session.short_id);
    expect(result).toMatchObject({ state: "unavailable", detail: "the session has ended" });
    expect(code).toBe(7);
    // One record for the whole run: no other session was created on the way.
    expect(new Set((await recordVersions(box)).map((version) => version.canonical_id))).toEqual(new Set([session.id]));
  });
});

describe("codex with its shared daemon (default): two UIs in two panes", { timeout: 300_000 }, () => {
  let box: Box;
  let installOutput = "";
  let left: Pane;
  let right: Pane;
  let client: Client;
  let records: SessionView[] = [];
  let leftId = "";
  let daemonPid = 0;

  beforeAll(async () => {
    ({ box, installOutput } = await newBox());
    left = await startCodex(box, { session: "agents" }, []);
    right = await startCodex(box, { split: left.id }, []);
    client = await attach(box, "agents");
  }, 600_000);

  afterAll(() => box?.stop());

  it("both sessions are recorded against the daemon process, with no terminal target, and focus says why it cannot", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "Codex's shared daemon: hooks of both UIs run under one `codex app-server --managed-daemon` whose environment is the first UI's pane; tongs-agents records no terminal target for either session and focus answers unavailable with the reason",
      kind: "live",
      how: `${HOW}; two codex UIs (default daemon mode) split in one window, an attached client; /proc/<daemon>/environ read`,
    });
    // The installer warned about exactly this.
    expect(installOutput).toContain("shared app-server daemon");
    await submit(box, left.id, "hello from the left pane (CODEX-E2E-LEFT)");
    leftId = (await waitForRecord(box, (view) => view.status === "idle", "the left UI's session idle")).id;
    await submit(box, right.id, "hello from the right pane (CODEX-E2E-RIGHT)");
    await expect.poll(async () => (await codexRecords(box)).filter((view) => view.status === "idle").length, { timeout: 90_000 }).toBe(2);
    records = await codexRecords(box);

    const processes = await processTable(box);
    const daemons = processes.filter(
      (proc) => proc.comm === "codex" && proc.argv.includes("app-server") && proc.argv.includes("--managed-daemon"),
    );
    expect(daemons).toHaveLength(1);
    daemonPid = daemons[0]?.pid as number;
    // What Codex 0.171.0 does: the daemon is a child of the first UI, and carries that UI's pane in its environment.
    expect(daemons[0]?.ppid).toBe(left.pid);
    expect(await environOf(box, daemonPid, "TMUX_PANE")).toBe(left.id);

    expect(new Set(records.map((view) => view.session_id)).size).toBe(2);
    for (const view of records) {
      expect(view).toMatchObject({ pid: daemonPid, identity: "process", stale: false, status: "idle" });
      // Not the left pane for the right UI's session (what the daemon's environment would have claimed): nothing.
      expect(view.terminal).toEqual({
        env: {},
        unprovable: "Codex CLI shared daemon: hooks run with the environment of whichever UI started it",
      });
    }

    const before = await clients(box);
    for (const view of records) {
      const { code, result } = await focus(box, view.short_id);
      // A fresh UI names its session nowhere it can be read (docs/harness-facts.md): the reason says so.
      expect(result).toMatchObject({ state: "unavailable", selection: { attempted: false }, activation: { attempted: false } });
      expect(result.detail).toBe(
        `no provable terminal target: Codex CLI shared daemon: hooks run with the environment of whichever UI started it; ${NO_EVIDENCE}`,
      );
      expect(code).toBe(7);
    }
    expect(await clients(box)).toEqual(before);
    expect(before.find((attached) => attached.tty === client.tty)?.session).toBe("agents");
  });

  it("documents: each UI process is also listed as discovered, and quitting a daemon-backed UI fires no SessionEnd", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "Codex's shared daemon (0.171.0): the UIs themselves run no hooks, so `list` also shows each as a discovered process (saying its hooks may report through the daemon); /quit in a daemon-backed UI fires no SessionEnd, so both records stay idle, and the daemon outlives the UI that started it",
      kind: "live",
      how: `${HOW}; tongs-agents list --json --all before and after /quit in both panes`,
    });
    const discovered = (await listSessions(box)).filter((view) => view.identity === "discovered");
    expect(discovered.map((view) => view.pid).sort()).toEqual([left.pid, right.pid].sort());
    // Not "no hook events yet": their hooks do run, in the daemon. Nor any terminal claim beyond their own tty.
    for (const view of discovered)
      expect(view).toMatchObject({ detail: "running; its hooks may report through the Codex CLI shared daemon", terminal: { env: {} } });

    for (const ui of [right, left]) await quitCodex(box, ui);
    const processes = await processTable(box);
    expect(processes.find((proc) => proc.pid === daemonPid)).toMatchObject({ ppid: 1, comm: "codex" });
    // Nothing arrived: both records are as they were after their last Stop, and still tied to the living daemon.
    const after = await codexRecords(box);
    expect(after.map((view) => [view.id, view.status, view.last_event, view.stale]).sort()).toEqual(
      records.map((view) => [view.id, "idle", "codex.stop", false]).sort(),
    );
    expect((await recordVersions(box)).filter((version) => version.last_event === "codex.session-end")).toEqual([]);
  });

  it("two UIs resumed under the same daemon in two panes: focusing each session lands an attached client on that session's own pane", async ({
    task,
  }) => {
    evidence.prove(task, {
      claim:
        "Codex's shared daemon: a UI started as `codex resume <session id>` continues that session under the daemon (its hooks carry the same session id), and `tongs-agents focus` moves an attached tmux client to exactly the pane of the UI that names the session, for each of two such UIs split in one window; a fresh UI's session stays unavailable with the reason",
      kind: "live",
      how: `${HOW}; after both UIs quit, two \`codex resume <id>\` UIs (default daemon mode) split in one window, a third fresh UI in its own window; the client is attached inside an outer tmux and read with capture-pane; /proc read inside the container`,
    });
    // The sessions the first two UIs started (both quit since): the left one went idle first.
    const leftRecord = records.find((view) => view.id === leftId) as SessionView;
    const rightRecord = records.find((view) => view.id !== leftId) as SessionView;
    expect([leftRecord?.id, rightRecord?.id].every(Boolean)).toBe(true);
    const decoy = await openPane(box, { session: "decoy" }, "/", "env PS1='decoy$ ' bash --norc --noprofile -i");
    await submit(box, decoy.id, "echo DECOY-PANE-MARKER");
    const viewer = await attach(box, "decoy");
    const resumedLeft = await startCodex(box, { session: "resumed" }, ["resume", leftRecord.session_id]);
    const resumedRight = await startCodex(box, { split: resumedLeft.id }, ["resume", rightRecord.session_id]);
    const fresh = await startCodex(box, { session: "fresh" }, []);

    // All three are clients of the one daemon that outlived the first UIs; none runs its own.
    const processes = await processTable(box);
    expect(
      processes
        .filter((proc) => proc.comm === "codex" && proc.argv.includes("app-server") && proc.argv.includes("--managed-daemon"))
        .map((proc) => proc.pid),
    ).toEqual([daemonPid]);
    expect(processes.find((proc) => proc.pid === resumedLeft.pid)?.argv.slice(1)).toEqual(["resume", leftRecord.session_id]);

    // Each resumed UI continues its own session: a prompt there moves that very record (same session id, same daemon).
    for (const [pane, record, marker] of [
      [resumedLeft, leftRecord, "CODEX-E2E-LEFT-AGAIN"],
      [resumedRight, rightRecord, "CODEX-E2E-RIGHT-AGAIN"],
    ] as const) {
      const before = Math.max(
        0,
        ...(await recordVersions(box)).filter((version) => version.canonical_id === record.id).map((version) => version.arrival_sequence),
      );
      await submit(box, pane.id, `hello again (${marker})`);
      await expect
        .poll(async () => (await transitionsOf(box, record.id, before)).at(-1), { timeout: 90_000 })
        .toBe("codex.stop idle Hello from the synthetic provider.");
      expect(await codexRecords(box)).toContainEqual(
        expect.objectContaining({
          id: record.id,
          pid: daemonPid,
          terminal: { env: {}, unprovable: expect.stringContaining("shared daemon") },
        }),
      );
    }

    for (const [pane, record, marker] of [
      [resumedLeft, leftRecord, "CODEX-E2E-LEFT-AGAIN"],
      [resumedRight, rightRecord, "CODEX-E2E-RIGHT-AGAIN"],
    ] as const) {
      // Run from outside tmux (as the picker or an MCP client would), naming the client to move.
      const { code, result } = await focus(box, record.short_id, viewer.tty);
      expect(result, JSON.stringify(result)).toMatchObject({
        state: "complete",
        backend: "tmux",
        located: true,
        session: { id: record.id, pid: daemonPid },
        selection: { succeeded: true },
        activation: { succeeded: true },
      });
      expect(result.detail).toContain(`the terminal of Codex UI process ${pane.pid} runs \`codex resume ${record.session_id}\``);
      expect(code).toBe(0);
      // The attached client now shows exactly that pane, drawing that session's conversation, cursor where Codex's is.
      expect((await clients(box)).find((attached) => attached.tty === viewer.tty)).toMatchObject({ session: "resumed", pane: pane.id });
      await expect.poll(async () => (await seen(box, viewer)).text, { timeout: 30_000 }).toContain(marker);
      await expect
        .poll(async () => (await seen(box, viewer)).cursor.join(",") === (await expectedCursor(box, pane.id)).join(","), {
          timeout: 10_000,
        })
        .toBe(true);
    }

    // The fresh UI's session (hooks through the same daemon) names itself nowhere: unavailable, the client stays put.
    await submit(box, fresh.id, "hello from a fresh UI (CODEX-E2E-FRESH)");
    const freshRecord = await waitForRecord(
      box,
      (view) => view.id !== leftRecord.id && view.id !== rightRecord.id && view.status === "idle",
      "the fresh UI's session idle",
    );
    const before = await clients(box);
    const { code, result } = await focus(box, freshRecord.short_id, viewer.tty);
    expect(result).toMatchObject({ state: "unavailable", detail: expect.stringContaining(NO_EVIDENCE), selection: { attempted: false } });
    expect(code).toBe(7);
    expect(await clients(box)).toEqual(before);
  });
});

describe(
  "codex with `[features] daemon_auto_start = false` (what install and doctor advise): two UIs in two panes",
  { timeout: 300_000 },
  () => {
    let box: Box;
    let installOutput = "";
    let top: Pane;
    let bottom: Pane;

    beforeAll(async () => {
      ({ box, installOutput } = await newBox("\n[features]\ndaemon_auto_start = false\n"));
      top = await startCodex(box, { session: "agents" }, []);
      bottom = await startCodex(box, { split: top.id }, []);
    }, 600_000);

    afterAll(() => box?.stop());

    it("each plain `codex` runs its own hooks: each record names its own UI process, pane and tty, and no daemon runs", async ({
      task,
    }) => {
      evidence.prove(task, {
        claim:
          "with `[features] daemon_auto_start = false` in config.toml, two plain `codex` UIs in two panes each record their own process, pane and tty (no shared daemon); the installer gives no daemon advice then",
        kind: "live",
        how: `${HOW}; two codex UIs without flags split in one window`,
      });
      expect(installOutput).not.toContain("shared app-server daemon");
      await submit(box, top.id, "hello from the top pane (CODEX-E2E-TOP)");
      await waitForRecord(box, (view) => view.status === "idle", "the top UI's session idle");
      await submit(box, bottom.id, "hello from the bottom pane (CODEX-E2E-BOTTOM)");
      await expect.poll(async () => (await codexRecords(box)).filter((view) => view.status === "idle").length, { timeout: 90_000 }).toBe(2);
      const processes = await processTable(box);
      expect(processes.filter((proc) => proc.argv.includes("app-server"))).toEqual([]);
      const records = await codexRecords(box);
      for (const ui of [top, bottom]) {
        expect(records.filter((view) => view.pid === ui.pid)).toMatchObject([
          { identity: "process", status: "idle", terminal: { env: { TMUX_PANE: ui.id }, tty: ui.tty } },
        ]);
      }
    });
  },
);
