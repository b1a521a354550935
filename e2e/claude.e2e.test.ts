// The real Claude Code CLI (the version recipe.ts pins) in a container, run interactively in tmux panes and driven
// with send-keys like a user, against the synthetic provider on 127.0.0.1 in the same container. Its hooks are the ones
// `tongs-agents install --agent claude` writes. The tests run in order on one container: one Claude session walks
// through every transition (started, running, waiting on a real permission dialog, running again once approved, idle,
// error, ended); a second one in the same directory stays its own record; focus is read off an attached client; a
// third one is interrupted with Esc, which fires no hook (its state is read from what Claude writes itself).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENTS } from "../containers/recipe.ts";
import { APPROVED_FILE, ClaudeLab, INNER, PROJECT, type Pane, type SessionRecord } from "./claude-lab.ts";
import { requireImage, startBox, type Box } from "./containers.ts";
import { boxVersions, createEvidence } from "./evidence.ts";

const VERSION = AGENTS.claude.version;
const evidence = createEvidence("claude", `Claude Code ${VERSION}, interactive in tmux, hooks from tongs-agents install`);
const HOW = `claude ${VERSION} typed into a bash pane of tmux (send-keys), synthetic Anthropic Messages provider on 127.0.0.1 in the container`;

let box: Box;
let lab: ClaudeLab;
let first: Pane;
let second: Pane;
/** The first session's record once started: later steps must land on this very record. */
let firstRecord: SessionRecord;
let secondRecord: SessionRecord;
/** The session the Esc tests use. */
let third: { pane: Pane; record: SessionRecord } | undefined;

const byPane =
  (pane: Pane, check: (record: SessionRecord) => boolean = () => true) =>
  (records: SessionRecord[]) =>
    records.find((record) => record.terminal.env.TMUX_PANE === pane.id && check(record));
/** The record with this one's id, once `check` holds for it. */
const when =
  (record: SessionRecord, check: (current: SessionRecord) => boolean = () => true) =>
  (records: SessionRecord[]) =>
    records.find((current) => current.id === record.id && check(current));

async function fileInProject(name: string): Promise<boolean> {
  return (await box.exec(["test", "-e", `${PROJECT}/${name}`])).code === 0;
}

describe(`Claude Code ${VERSION} in a container (live)`, { timeout: 180_000 }, () => {
  beforeAll(async () => {
    box = await startBox(await requireImage({ agents: ["claude"] }));
    lab = new ClaudeLab(box);
    await lab.startProvider();
    await lab.seedConfig();
    const claudeVersion = (await box.sh("claude --version")).trim();
    evidence.addVersions({ "claude (in container)": claudeVersion, ...(await boxVersions(box, ["tmux", "bash", "procps"])) });
  }, 900_000);

  afterAll(async () => {
    try {
      await box?.stop();
    } finally {
      evidence.untested(
        "Notification elicitation_dialog and Elicitation from the real CLI",
        "they need an MCP server that asks the user for input; the shells suite replays payloads for both",
      );
      evidence.write();
    }
  });

  it("tongs-agents install --agent claude, run inside the container, writes the hooks and registers the MCP server", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "the installed CLI's `install --agent claude` writes all 11 hook events into ~/.claude/settings.json (keeping the user's permissions) and registers the MCP server through the real `claude mcp add`; doctor reports them current",
      kind: "live",
      how: `tongs-agents install --agent claude and doctor --agent claude --json inside the container, claude ${VERSION} on PATH`,
    });
    const install = await box.exec(["tongs-agents", "install", "--agent", "claude"]);
    expect(install.code, install.stderr).toBe(0);
    expect(install.stdout).toContain("ran: /usr/local/bin/claude mcp add --scope user tongs-agents");
    const settings = JSON.parse(await box.sh(`cat "$HOME/.claude/settings.json"`)) as {
      permissions: unknown;
      hooks: Record<string, { hooks: { command: string }[] }[]>;
    };
    expect(settings.permissions).toEqual({ defaultMode: "default" });
    const aliases = Object.fromEntries(
      Object.entries(settings.hooks).map(([event, groups]) => [event, groups.flatMap((group) => group.hooks.map((hook) => hook.command))]),
    );
    const command = (alias: string) => [
      `/bin/sh /usr/local/lib/node_modules/tongs-agents/bin/tongs-agents-hook.sh /usr/local/bin/node ${alias} --agent claude`,
    ];
    expect(aliases).toEqual({
      SessionStart: command("session-start"),
      UserPromptSubmit: command("prompt-submit"),
      PreToolUse: command("tool-use"),
      PostToolUse: command("tool-done"),
      PostToolUseFailure: command("tool-failed"),
      // Beside the state event, the held hook: Node itself (it holds while the dialog is open), never the shim.
      PermissionRequest: [
        ...command("permission-request"),
        "/usr/local/bin/node /usr/local/lib/node_modules/tongs-agents/bin/tongs-agents-hook.cjs permission-hold --agent claude",
      ],
      Notification: command("notification"),
      Stop: command("stop"),
      StopFailure: command("stop-failure"),
      Elicitation: command("elicitation"),
      SessionEnd: command("session-end"),
      PreCompact: command("compact-start"),
      PostCompact: command("compact-end"),
      SubagentStart: command("subagent-start"),
      SubagentStop: command("subagent-stop"),
    });
    const doctor = await box.exec(["tongs-agents", "doctor", "--agent", "claude", "--json"]);
    const report = JSON.parse(doctor.stdout) as { harnesses: { version: string; mcp: string; hooks: { status: string }[] }[] };
    expect(report.harnesses[0]).toMatchObject({ version: `${VERSION} (Claude Code)`, mcp: "current" });
    expect(report.harnesses[0]?.hooks.map((hook) => hook.status)).toEqual(Array(16).fill("current"));
  });

  it("started: typing `claude` into a tmux pane makes a record whose identity is that pane's claude process", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "SessionStart from the real CLI makes a `started` record; its PID is the process named exactly `claude` that the pane's shell started (native binary, no node), its instance id carries that process's start time, and it names the pane",
      kind: "live",
      how: `${HOW}; record compared with ps and /proc of the container and tmux list-panes`,
    });
    first = await lab.openPane("first");
    await lab.launchClaude(first.id);
    firstRecord = await lab.waitForRecord(
      "a started record for the first pane",
      byPane(first, (record) => record.status === "started"),
      first.id,
    );
    const claude = await lab.claudeIn(first);
    expect(claude, "a process named claude under the pane's bash").toBeDefined();
    const pid = claude?.pid as number;
    expect(firstRecord).toMatchObject({
      identity: "process",
      pid,
      cwd: PROJECT,
      detail: "session started",
      last_event: "claude.session-start",
      stale: false,
    });
    const boot = (await box.sh("cat /proc/sys/kernel/random/boot_id")).trim();
    expect(firstRecord.instance_id).toBe(`pid:${pid}@linux:${boot}:${await lab.startTime(pid)}`);
    expect(firstRecord.session_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(firstRecord.terminal).toMatchObject({
      env: { TMUX_PANE: first.id, TMUX: expect.stringMatching(/^\/tmp\/claude-inner\.tmux,\d+,\d+$/) },
      tty: first.tty,
    });
    // The native binary: no node process stands between the pane's shell and the hooks' parent.
    expect((await box.sh(`readlink /proc/"$1"/exe`, String(pid))).trim()).toBe(
      "/usr/local/lib/node_modules/@anthropic-ai/claude-code/bin/claude.exe",
    );
    const panes = await lab.tmux(INNER, "list-panes", "-a", "-F", "#{pane_id} #{pane_pid}");
    expect(panes.split("\n")).toContain(`${first.id} ${first.pid}`);
  });

  it("running: a prompt makes the record run while the model has not answered", async ({ task }) => {
    evidence.prove(task, {
      claim: "UserPromptSubmit from the real CLI: `running` (processing prompt) while the provider holds the answer",
      kind: "live",
      how: `${HOW}; the prompt says HOLD, so the provider answers only when the test releases it`,
    });
    await lab.type(first.id, "HOLD RUNTOOL in the first session");
    const record = await lab.waitForRecord(
      "running after the prompt",
      when(firstRecord, (candidate) => candidate.status === "running"),
      first.id,
    );
    expect(record).toMatchObject({ status: "running", detail: "processing prompt", last_event: "claude.prompt-submit" });
    await waitForHeld("tool:Bash");
    expect((await lab.waitForRecord("still running", when(firstRecord))).last_event).toBe("claude.prompt-submit");
    expect(await lab.release()).toBe(1);
  });

  it("waiting: the tool call needs approval, Claude shows a real permission dialog", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "PermissionRequest from the real CLI in `default` permission mode: `waiting` while the dialog is on screen and the command has not run; the permission_prompt Notification that follows keeps it waiting, with the specific detail (permission: Bash)",
      kind: "live",
      how: `${HOW}; the model calls Bash with \`touch ${APPROVED_FILE}\`; capture-pane shows the dialog`,
    });
    const waiting = await lab.waitForRecord(
      "waiting on the permission dialog",
      when(firstRecord, (record) => record.status === "waiting"),
      first.id,
    );
    expect(waiting).toMatchObject({ pid: firstRecord.pid });
    expect(["claude.permission-request", "claude.notification"]).toContain(waiting.last_event);
    const screen = await lab.waitForScreen(first.id, (text) => text.includes("Do you want to proceed?"), "the permission dialog");
    expect(screen).toContain(`touch ${APPROVED_FILE}`);
    // Claude sends the permission_prompt notification a few seconds after the dialog opens.
    const notified = await lab.waitForRecord(
      "the permission_prompt notification",
      when(firstRecord, (record) => record.last_event === "claude.notification"),
      first.id,
    );
    // It states the same wait without naming the tool: the record keeps the more specific detail (issue 9, item 3).
    expect(notified).toMatchObject({ status: "waiting", detail: "permission: Bash", tool: "Bash" });
    expect(await fileInProject(APPROVED_FILE)).toBe(false);
  });

  it("running again: approving the dialog runs the tool and the record leaves waiting (tool-done)", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "after the user approves (send-keys 1), PostToolUse from the real CLI: `running` (Bash finished) while the model's next answer is held; the approved command really ran",
      kind: "live",
      how: `${HOW}; the file the command creates exists afterwards`,
    });
    await lab.keys(first.id, "1");
    const record = await lab.waitForRecord(
      "running after approval",
      when(firstRecord, (candidate) => candidate.last_event === "claude.tool-done"),
      first.id,
    );
    expect(record).toMatchObject({ status: "running", detail: "Bash finished" });
    expect(await fileInProject(APPROVED_FILE)).toBe(true);
    await waitForHeld("text");
    expect((await lab.waitForRecord("still running", when(firstRecord))).status).toBe("running");
    expect(await lab.release()).toBe(1);
  });

  it("idle: the final reply makes the record idle with the reply's first line", async ({ task }) => {
    evidence.prove(task, { claim: "Stop from the real CLI: `idle` with the last assistant message as detail", kind: "live", how: HOW });
    const record = await lab.waitForRecord(
      "idle after the reply",
      when(firstRecord, (candidate) => candidate.status === "idle"),
      first.id,
    );
    expect(record).toMatchObject({
      detail: "The tool ran; all done.",
      last_event: "claude.stop",
      pid: firstRecord.pid,
      instance_id: firstRecord.instance_id,
    });
    await lab.waitForScreen(first.id, (text) => text.includes("The tool ran; all done."), "the reply on screen");
  });

  it("a second Claude in the same directory is its own record; its events leave the first one alone", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "two interactive Claude sessions in one directory: two records, each with its own session id, claude PID and pane; a turn in the second changes only the second",
      kind: "live",
      how: `${HOW}; second tmux window, same cwd`,
    });
    second = await lab.openPane("second");
    await lab.launchClaude(second.id);
    secondRecord = await lab.waitForRecord(
      "a started record for the second pane",
      byPane(second, (record) => record.status === "started"),
      second.id,
    );
    const claude = await lab.claudeIn(second);
    expect(secondRecord).toMatchObject({ identity: "process", pid: claude?.pid, cwd: PROJECT });
    expect(secondRecord.id).not.toBe(firstRecord.id);
    expect(secondRecord.session_id).not.toBe(firstRecord.session_id);
    expect(secondRecord.pid).not.toBe(firstRecord.pid);

    await lab.type(second.id, "hello from the second session");
    // Claude's own session state may say idle a moment before its Stop hook's worker writes (claude.state-idle, the
    // race claude-waits meets); both are true reports. The Stop hook's, with the reply, follows: wait for that one.
    const idle = await lab.waitForRecord(
      "the second session idle after its Stop hook",
      when(secondRecord, (record) => record.status === "idle" && record.last_event === "claude.stop"),
      second.id,
    );
    expect(idle).toMatchObject({ detail: "Hello from the synthetic provider.", last_event: "claude.stop" });
    const records = await lab.records();
    expect(records.filter((record) => record.cwd === PROJECT)).toHaveLength(2);
    // The first one still shows its own last turn. Its own idle_prompt notification (about 60 s after its Stop) may
    // have come meanwhile; the second session's prompt and reply must not have landed on it.
    const untouched = records.find((record) => record.id === firstRecord.id);
    expect(untouched).toMatchObject({
      status: "idle",
      session_id: firstRecord.session_id,
      pid: firstRecord.pid,
      terminal: { env: { TMUX_PANE: first.id } },
    });
    expect([
      ["claude.stop", "The tool ran; all done."],
      ["claude.notification", "waiting for the next prompt"],
    ]).toContainEqual([untouched?.last_event, untouched?.detail]);
  });

  it("focus: `tongs-agents focus <id>` brings the exact pane onto an attached client", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "tongs-agents focus on each record makes a real attached tmux client show that record's pane (switching windows), read from the client's own screen",
      kind: "live",
      how: "an inner client attached inside an outer tmux in the container; tongs-agents focus <id> --client <tty> --json; list-clients and capture-pane of the outer pane",
    });
    // A third window, current, so that focusing either Claude has to switch away from it.
    const plain = await lab.openPane("plain");
    await lab.tmux(INNER, "select-window", "-t", plain.window);
    const tty = await lab.attachClient();
    expect((await lab.clients()).find((client) => client.tty === tty)?.pane).toBe(plain.id);

    for (const [pane, record, mine, theirs] of [
      [first, firstRecord, "HOLD RUNTOOL in the first session", "hello from the second session"],
      [second, secondRecord, "hello from the second session", "HOLD RUNTOOL in the first session"],
      [first, firstRecord, "HOLD RUNTOOL in the first session", "hello from the second session"],
    ] as const) {
      const run = await box.exec(["tongs-agents", "focus", record.short_id, "--client", tty, "--json"]);
      expect(JSON.parse(run.stdout)).toMatchObject({ state: "complete", backend: "tmux", located: true, session: { id: record.id } });
      expect(run.code).toBe(0);
      expect((await lab.clients()).find((client) => client.tty === tty)?.pane).toBe(pane.id);
      let seen = "";
      await expect.poll(async () => (seen = await lab.seen()).includes(mine), { timeout: 30_000 }).toBe(true);
      expect(seen).not.toContain(theirs);
    }
  });

  it("error: a provider failure makes the record an error (StopFailure)", async ({ task }) => {
    evidence.prove(task, {
      claim: "StopFailure from the real interactive CLI on an HTTP 400 from the provider: `error` (turn failed (API error))",
      kind: "live",
      how: `${HOW}; the prompt says FAILAPI, the provider answers 400`,
    });
    const before = (await lab.providerRequests()).length;
    await lab.type(first.id, "FAILAPI in the first session");
    const record = await lab.waitForRecord(
      "error after the failure",
      when(firstRecord, (candidate) => candidate.status === "error"),
      first.id,
    );
    expect(record).toMatchObject({ detail: "turn failed (API error)", last_event: "claude.stop-failure" });
    expect(await lab.capture(first.id)).toContain("API Error: 400");
    // Claude Code 2.1.332 sent the failing turn several times (six within half a second here) before giving up: every
    // one of them was answered 400.
    const failing = (await lab.providerRequests()).slice(before);
    expect(failing.length).toBeGreaterThan(0);
    expect(failing.map((request) => request.decision)).toEqual(failing.map(() => "error"));
  });

  it("ended: /exit ends the record; the session id is the one Claude prints to resume it", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "SessionEnd from the real CLI on /exit: `ended`; the claude process is gone; the record's session id is the one Claude prints for --resume; the other session is untouched",
      kind: "live",
      how: HOW,
    });
    await lab.type(first.id, "/exit");
    const record = await lab.waitForRecord(
      "ended after /exit",
      when(firstRecord, (candidate) => candidate.recorded_status === "ended"),
      first.id,
    );
    expect(record).toMatchObject({ detail: "session closed", last_event: "claude.session-end" });
    const screen = await lab.waitForScreen(first.id, (text) => text.includes("claude --resume"), "Claude's resume hint");
    expect(screen).toContain(`claude --resume ${firstRecord.session_id}`);
    expect(await lab.claudeIn(first)).toBeUndefined();
    expect((await lab.records()).find((candidate) => candidate.id === secondRecord.id)).toMatchObject({
      status: "idle",
      pid: secondRecord.pid,
    });
  });

  it(
    "idle_prompt: a minute after its reply, the second session's record says it waits for the next prompt",
    { timeout: 240_000 },
    async ({ task }) => {
      evidence.prove(task, {
        claim: "Notification idle_prompt from the real CLI (about 60 s after Stop): `idle` (waiting for the next prompt)",
        kind: "live",
        how: `${HOW}; the second session, left alone after its reply`,
      });
      const record = await lab.waitForRecord(
        "the idle_prompt notification",
        when(secondRecord, (current) => current.last_event === "claude.notification"),
        second.id,
        150_000,
      );
      expect(record).toMatchObject({ status: "idle", detail: "waiting for the next prompt", pid: secondRecord.pid });
    },
  );

  it("the hook's debug log shows every event of the first session, in order, each applied to its record", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "the real CLI ran the installed hooks in this order for one session: SessionStart, UserPromptSubmit, PreToolUse, PermissionRequest, Notification (permission_prompt), PostToolUse, Stop, UserPromptSubmit, StopFailure, SessionEnd; every one was written to the same record",
      kind: "live",
      how: `${HOW}; TONGS_AGENTS_DEBUG=1 in Claude's environment, ~/.local/state/tongs-agents/hook.log`,
    });
    const applied = (await lab.hookLog())
      .filter((entry) => entry.canonicalId === firstRecord.id)
      .map((entry) => `${entry.action} ${entry.detail}`);
    // idle_prompt notifications (-> idle) come about 60 s after a Stop: how many there are depends on the machine's speed.
    const withoutIdle = applied.filter((line) => line !== "written claude.notification -> idle");
    expect(withoutIdle).toEqual(
      [
        "session-start -> started",
        "prompt-submit -> running",
        "tool-use -> running",
        "permission-request -> waiting",
        "notification -> waiting",
        "tool-done -> running",
        "stop -> idle",
        "prompt-submit -> running",
        "stop-failure -> error",
        "session-end -> ended",
      ].map((step) => `written claude.${step}`),
    );
  });

  it("Esc: no hook fires, Claude states the turn's end itself, and the record leaves running within seconds", async ({ task }) => {
    evidence.prove(task, {
      claim: `Esc in Claude Code ${VERSION}'s UI while the reply is held fires no hook (anthropics/claude-code#9516); Claude's own <config>/sessions/<pid>.json turns idle for that exact pid, session and process start, and \`tongs-agents list\` shows the record idle (claude.state-idle) within 10 s; the hook log shows nothing after the prompt`,
      kind: "live",
      how: `${HOW}; a third session; the prompt says HOLD, the test presses Escape once the provider holds the request`,
    });
    const pane = await lab.openPane("third");
    await lab.launchClaude(pane.id);
    const started = await lab.waitForRecord(
      "a started record for the third pane",
      byPane(pane, (record) => record.status === "started"),
      pane.id,
    );
    await lab.type(pane.id, "HOLD say something in the third session");
    await lab.waitForRecord(
      "running after the prompt",
      when(started, (record) => record.status === "running"),
      pane.id,
    );
    await waitForHeld("text");
    await lab.keys(pane.id, "Escape");
    const idle = await lab.waitForRecord(
      "idle after Esc",
      when(started, (record) => record.status === "idle"),
      pane.id,
      10_000,
    );
    expect(idle).toMatchObject({ last_event: "claude.state-idle", pid: started.pid, session_id: started.session_id });
    const state = JSON.parse(await box.sh(`cat "$HOME/.claude/sessions/$1.json"`, String(started.pid))) as {
      status: string;
      sessionId: string;
      pid: number;
    };
    expect(state).toMatchObject({ status: "idle", sessionId: started.session_id, pid: started.pid });
    const hooks = (await lab.hookLog()).filter((entry) => entry.canonicalId === started.id).map((entry) => entry.detail);
    expect(hooks).toEqual(["claude.session-start -> started", "claude.prompt-submit -> running"]);
    // Listed again: the same statement is not applied twice.
    const again = (await lab.records()).find((record) => record.id === started.id);
    expect(again).toMatchObject({ status: "idle", last_event: "claude.state-idle", updated_at: idle.updated_at });
    await lab.release();
    third = { pane, record: started };
  });

  it("Esc on a permission dialog: Claude writes the interruption to its transcript, which the readers read once", async ({ task }) => {
    evidence.prove(task, {
      claim: `Esc on Claude Code ${VERSION}'s permission dialog fires no hook; Claude appends \`[Request interrupted by user for tool use]\` to its transcript and turns its session state idle; \`tongs-agents list\` shows the record idle within 10 s, stated by the transcript or by Claude's session state (whichever a reader saw first); when by the transcript, its cursor in the state dir has read past that line`,
      kind: "live",
      how: `${HOW}; the third session; the model's Bash call (\`touch ${APPROVED_FILE}\`) opens the dialog, the test presses Escape`,
    });
    const { pane, record } = third as { pane: Pane; record: SessionRecord };
    // Esc before the first token put the held prompt back into the input box: clear it first.
    await lab.keys(pane.id, "C-u");
    const inputLine = (text: string) =>
      text
        .split("\n")
        .filter((line) => line.startsWith("❯"))
        .at(-1) ?? "";
    await lab.waitForScreen(pane.id, (text) => !inputLine(text).includes("HOLD"), "the input box cleared");
    await lab.type(pane.id, "RUNTOOL in the third session");
    await lab.waitForRecord(
      "waiting on the dialog",
      when(record, (current) => current.status === "waiting"),
      pane.id,
    );
    await lab.waitForScreen(pane.id, (text) => text.includes("Do you want to proceed?"), "the permission dialog");
    await lab.keys(pane.id, "Escape");
    const idle = await lab.waitForRecord(
      "idle after Esc on the dialog",
      when(record, (current) => current.status === "idle"),
      pane.id,
      10_000,
    );
    expect(["claude.interrupted", "claude.state-idle"]).toContain(idle.last_event);
    const transcript = await box.sh(`cat "$HOME"/.claude/projects/*/"$1".jsonl`, record.session_id);
    const marker = transcript.indexOf("[Request interrupted by user for tool use]");
    expect(marker).toBeGreaterThan(0);
    const lineEnd = Buffer.byteLength(transcript.slice(0, transcript.indexOf("\n", marker) + 1));
    // A reader checks only running and waiting records: once Claude's session state made it idle, the transcript line is
    // not needed, and its cursor may stop before it.
    if (idle.last_event === "claude.interrupted") {
      const digest = record.id.split(":").at(-1) as string;
      const cursor = JSON.parse(await box.sh(`cat "$HOME/.local/state/tongs-agents/transcripts/$1.json"`, digest)) as { offset: number };
      expect(cursor.offset).toBeGreaterThanOrEqual(lineEnd);
    }
  });
});

/** Wait until the provider holds a request with this decision (the model's answer the test will release). */
async function waitForHeld(decision: string): Promise<void> {
  await expect
    .poll(async () => (await lab.providerRequests()).filter((request) => request.held).map((request) => request.decision), {
      timeout: 60_000,
    })
    .toContain(decision);
}
