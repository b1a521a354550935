// Copilot CLI in a container, live: the release pinned in test/live/harnesses.json, run interactively in tmux panes
// against the synthetic provider on 127.0.0.1 inside the same container (offline, no sign-in: COPILOT_OFFLINE and
// COPILOT_PROVIDER_*, docs/harness-facts.md), with the hooks `tongs-agents install --agent copilot` writes (run there,
// as a user would). Prompts are sent to the pane with send-keys; a client attached inside an outer tmux shows what the
// user sees. Every state the record goes through is logged by a watcher in the container (e2e/fixtures/record-watch.mjs).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENTS } from "../containers/recipe.ts";
import type { FocusResult } from "../src/focus/result.ts";
import { shellQuote } from "../src/core/shell-quote.ts";
import { requireImage, startBox, type Box } from "./containers.ts";
import { boxVersions, createEvidence } from "./evidence.ts";
import { readHistory, startProvider, startWatcher, type HistoryEntry } from "./pi-box.ts";
import { expectTimeline, states, summary } from "./record-timeline.ts";
import { DEFAULT_TEXT, FAILING_COMMAND, FINAL_TEXT, MISSING_PATH, QUESTION } from "./provider/script.mjs";
import { BoxTmuxLab, INNER, prepareLab, waitUntil, type AttachedClient } from "./tmux-focus-lab.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./env.ts";

const PINNED = (
  JSON.parse(readFileSync(join(REPO_ROOT, "test", "live", "harnesses.json"), "utf8")) as Record<
    string,
    { package: string; version: string }
  >
).copilot as { package: string; version: string };
const PACKAGES = ["tmux", "procps", "bash", "catatonit"];
const PROJECT = "/work/project";
const COPILOT_HOME = "/root/.copilot";
const HOOKS_FILE = `${COPILOT_HOME}/hooks/tongs-agents.json`;
const NATIVE = `/usr/local/lib/node_modules/${"@github/copilot"}/node_modules/@github/copilot-linux-x64/copilot`;
const ERROR_DETAIL = "turn failed (model call error)";
const HOST_CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";

const evidence = createEvidence(
  "copilot",
  `Copilot CLI ${PINNED.version} interactive in tmux in a container: lifecycle through the installed hooks, and focus`,
);
let box: Box;
let lab: BoxTmuxLab;
let client: AttachedClient;
let providerUrl = "";
const copilot = { pane: "", loader: 0, pid: 0, sessionId: "" };
/** The second session, in its own window: where the question and the failing tool run (the first one's timeline stays). */
const secondSession = { pane: "", pid: 0, sessionId: "" };

/** Send a prompt to a session, do what `during` does, and wait until the session is idle after the prompt. */
async function waitUntilIdleAfter<T>(session: { pane: string; sessionId: string }, prompt: string, during: () => Promise<T>): Promise<T> {
  const count = (await copilotHistory()).length;
  await send(session.pane, prompt);
  const value = await during();
  await waitForState(
    "idle after the prompt",
    (entry) => entry.session_id === session.sessionId && entry.status === "idle",
    session.pane,
    count,
  );
  return value;
}

const copilotHistory = async () => (await readHistory(box)).filter((entry) => entry.harness === "copilot");
async function waitForState(what: string, test: (entry: HistoryEntry) => boolean, pane = copilot.pane, from = 0): Promise<HistoryEntry> {
  let found: HistoryEntry | undefined;
  await waitUntil(
    async () => {
      found = (await copilotHistory()).slice(from).find(test);
      return found !== undefined;
    },
    what,
    { timeoutMs: 90_000, explain: async () => `history:\n${summary(await copilotHistory())}\npane:\n${await lab.capture(pane)}` },
  );
  return found as HistoryEntry;
}

const ofSession = (entry: HistoryEntry) => entry.session_id === copilot.sessionId;

const record = async (sessionId = copilot.sessionId): Promise<Record<string, unknown>> => {
  const shown = await box.exec(["tongs-agents", "show", sessionId, "--json"]);
  if (shown.code !== 0) throw new Error(`tongs-agents show ${sessionId} exited ${shown.code}: ${shown.stdout}${shown.stderr}`);
  return JSON.parse(shown.stdout) as Record<string, unknown>;
};

/** Copilot's environment in its pane: the provider, offline, no update check. */
const copilotEnv = () => ({
  COPILOT_OFFLINE: "true",
  COPILOT_PROVIDER_BASE_URL: `${providerUrl}/v1`,
  COPILOT_PROVIDER_API_KEY: "synthetic",
  COPILOT_MODEL: "fake-model",
  COPILOT_AUTO_UPDATE: "false",
  // The drainer logs each event it applied: the history then holds a state that lasted only within a batch.
  TONGS_AGENTS_DEBUG: "1",
});

/** Start `copilot` in a new split of session work; returns its pane and the loader's PID (the pane's process). */
async function startCopilot(where: "split" | "window" = "split"): Promise<{ pane: string; loader: number }> {
  const env = Object.entries(copilotEnv()).flatMap(([key, value]) => ["-e", `${key}=${value}`]);
  const command = ["exec", "copilot"].map(shellQuote).join(" ");
  const place = where === "split" ? ["split-window", "-h", "-t", "work:"] : ["new-window", "-t", "work:"];
  const [pane = "", pid = ""] = (await lab.inner(...place, "-c", PROJECT, ...env, "-P", "-F", "#{pane_id} #{pane_pid}", command)).split(
    " ",
  );
  await waitUntil(async () => (await lab.capture(pane)).includes("Manual Approval"), "Copilot's prompt and footer", {
    timeoutMs: 120_000,
    explain: () => lab.capture(pane),
  });
  return { pane, loader: Number(pid) };
}

/** The native binary the loader started: the process the hooks run under. */
async function nativeChild(loader: number): Promise<number> {
  return Number((await box.sh(`ps -o pid= --ppid ${loader}`)).trim());
}

async function send(pane: string, text: string): Promise<void> {
  await lab.inner("send-keys", "-t", pane, "-l", text);
  await lab.inner("send-keys", "-t", pane, "Enter");
}

async function focusCopilot(): Promise<FocusResult> {
  const run = await box.exec(["tongs-agents", "focus", copilot.sessionId, "--json", "--client", client.tty]);
  if (run.stdout === "") throw new Error(`focus printed nothing (exit ${run.code}): ${run.stderr}`);
  const result = JSON.parse(run.stdout) as FocusResult;
  expect(result).toMatchObject({ state: "complete", backend: "tmux", session: { harness: "copilot", pid: copilot.pid } });
  expect(run.code).toBe(0);
  return result;
}

describe(`Copilot CLI ${PINNED.package}@${PINNED.version} in a container`, { timeout: 180_000 }, () => {
  beforeAll(async () => {
    box = await startBox(await requireImage({ agents: ["copilot"] }));
    lab = new BoxTmuxLab(box);
    await prepareLab(box);
    evidence.addVersions(await boxVersions(box, PACKAGES));
    evidence.addVersions({
      copilot: `${PINNED.package} ${(await box.sh("copilot --version")).trim().split("\n")[0]}`,
      "model provider": "synthetic (e2e/provider, OpenAI chat completions, 127.0.0.1 in the container)",
    });
    providerUrl = await startProvider(box, { slowMs: 3000, toolCommand: "touch approved" });
    await startWatcher(box);
    await box.sh(`mkdir -p ${PROJECT} ${COPILOT_HOME} /etc/ssl/certs`);
    // Copilot's native HTTP client refuses to start a model call without trust roots, even for a plain-http provider
    // ("no trust roots available for proxy TLS"): the image has none, so the host's bundle (ca-certificates) goes in.
    await box.container.copyFilesToContainer([{ source: HOST_CA_BUNDLE, target: "/etc/ssl/certs/ca-certificates.crt" }]);
    // A trusted folder: no folder-trust dialog before the prompt.
    await box.container.copyContentToContainer([
      { content: `${JSON.stringify({ trustedFolders: [PROJECT] })}\n`, target: `${COPILOT_HOME}/config.json` },
    ]);
    await lab.inner("new-session", "-d", "-s", "home", "-x", "120", "-y", "40");
    await lab.inner("new-session", "-d", "-s", "work", "-x", "160", "-y", "40", "-c", PROJECT);
    client = await lab.attach("home");
  }, 900_000);

  afterAll(async () => {
    try {
      await lab?.stop();
      await box?.stop();
    } finally {
      evidence.write();
    }
  });

  it("runs the Copilot CLI release pinned for the live suites", async ({ task }) => {
    evidence.prove(task, {
      claim: `the image's Copilot CLI is the pinned ${PINNED.package}@${PINNED.version}`,
      kind: "live",
      how: "`copilot --version` in the container; containers/recipe.ts and test/live/harnesses.json agree",
    });
    expect(AGENTS.copilot).toEqual({ package: PINNED.package, version: PINNED.version });
    expect(await box.sh("copilot --version")).toContain(PINNED.version);
  });

  it("tongs-agents install --agent copilot writes our hooks file; doctor says every hook is current", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "`tongs-agents install --agent copilot` writes $COPILOT_HOME/hooks/tongs-agents.json (the hook shim); doctor finds the binary and every hook current",
      kind: "live",
      how: "the installed CLI in the container; the file read back; tongs-agents doctor --agent copilot --json",
    });
    const install = await box.exec(["tongs-agents", "install", "--agent", "copilot"]);
    expect(install.code, `${install.stdout}${install.stderr}`).toBe(0);
    const hooks = JSON.parse(await box.sh(`cat ${HOOKS_FILE}`)) as { version: number; hooks: Record<string, { bash: string }[]> };
    expect(hooks.version).toBe(1);
    // The hook shim (the default on Linux): Copilot waits for a POSIX sh, a detached worker applies the event.
    expect(hooks.hooks.preToolUse?.[0]?.bash).toMatch(/^\/bin\/sh \S+\/tongs-agents-hook\.sh \S+ tool-use --agent copilot$/);
    const doctor = JSON.parse((await box.exec(["tongs-agents", "doctor", "--agent", "copilot", "--json"])).stdout) as {
      harnesses: { harness: string; ok: boolean; hooks: { status: string }[]; todo: string[] }[];
    };
    expect(doctor.harnesses[0]).toMatchObject({ harness: "copilot", ok: true });
    expect(doctor.harnesses[0]?.hooks.every((hook) => hook.status === "current")).toBe(true);
  });

  it("Copilot started in a pane: discovered before its first prompt, started and running at the first prompt, then idle", async ({
    task,
  }) => {
    evidence.prove(task, {
      claim:
        "interactive Copilot in a tmux pane is listed as discovered (the native binary, by its argv[0]) before any hook; its first prompt reports started (sessionStart fires only then) and running, then idle; the record's pid is the native `copilot` process under the pane's node loader, its terminal that pane",
      kind: "live",
      how: "copilot in a split of session work; `SLOW say hello` sent with send-keys; tongs-agents list; the record history; /proc/<pid>/exe, ps --ppid of the pane's process",
    });
    Object.assign(copilot, await startCopilot());
    copilot.pid = await nativeChild(copilot.loader);
    expect((await box.sh(`readlink /proc/${copilot.pid}/exe`)).trim()).toBe(NATIVE);
    expect((await box.sh(`cat /proc/${copilot.pid}/comm`)).trim()).toBe("MainThread");
    const listed = JSON.parse((await box.exec(["tongs-agents", "list", "--json"])).stdout) as { sessions: Record<string, unknown>[] };
    expect(listed.sessions).toContainEqual(expect.objectContaining({ harness: "copilot", pid: copilot.pid, identity: "discovered" }));

    await send(copilot.pane, "SLOW say hello");
    const started = await waitForState("started", (entry) => entry.status === "started");
    copilot.sessionId = started.session_id;
    expect(started).toMatchObject({ pid: copilot.pid, detail: "session started", last_event: "copilot.session-start" });
    await waitForState("running", (entry) => ofSession(entry) && entry.status === "running" && entry.detail === "processing prompt");
    await waitForState("idle", (entry) => ofSession(entry) && entry.status === "idle");
    expect(await record()).toMatchObject({
      harness: "copilot",
      identity: "process",
      status: "idle",
      pid: copilot.pid,
      cwd: PROJECT,
      terminal: { env: { TMUX: expect.stringMatching(new RegExp(`^${INNER},\\d+,\\d+$`)), TMUX_PANE: copilot.pane } },
    });
    await lab.waitForText(copilot.pane, DEFAULT_TEXT);
  });

  it("a shell tool call: running(tool), waiting on the real permission dialog, focus shows it, approving through the client runs it, then idle", async ({
    task,
  }) => {
    evidence.prove(task, {
      claim:
        "a bash tool call reports running (tool bash), then waiting when Copilot's permission dialog opens (notification permission_prompt); focus brings the client to the dialog; Enter typed into the client approves it; running (bash finished) when the tool ends, then idle",
      kind: "live",
      how: "`SLOW please RUNTOOL` sent to the pane; the provider's tool call runs `touch approved`; the client is on another session first; the file exists only after approval",
    });
    await lab.inner("switch-client", "-c", client.tty, "-t", "home");
    await send(copilot.pane, "SLOW please RUNTOOL");
    await waitForState("running(tool)", (entry) => ofSession(entry) && entry.status === "running" && entry.tool === "bash");
    const waiting = await waitForState("waiting", (entry) => ofSession(entry) && entry.status === "waiting");
    expect(waiting).toMatchObject({ pid: copilot.pid, detail: "permission requested", last_event: "copilot.notification" });
    await waitUntil(async () => (await lab.capture(copilot.pane)).includes("Do you want to run this command?"), "the dialog", {
      explain: () => lab.capture(copilot.pane),
    });
    expect(await box.exec(["test", "-e", `${PROJECT}/approved`])).toMatchObject({ code: 1 });

    expect(await lab.paneOf(client)).not.toBe(copilot.pane);
    await focusCopilot();
    expect(await lab.paneOf(client)).toBe(copilot.pane);
    // What the client draws (Copilot's own cursor is hidden in its dialog, so the pane is checked, not the cursor).
    expect((await lab.seen(client)).text).toContain("Do you want to run this command?");

    await lab.keys(client, "Enter"); // "1. Yes" is selected
    await waitForState(
      "running after approval",
      (entry) => ofSession(entry) && entry.status === "running" && entry.detail === "bash finished",
    );
    await waitForState("idle after the tool", (entry) => ofSession(entry) && entry.status === "idle" && entry.at > waiting.at);
    expect(await box.exec(["test", "-e", `${PROJECT}/approved`])).toMatchObject({ code: 0 });
    await lab.waitForText(copilot.pane, FINAL_TEXT);
  });

  it("a provider error (HTTP 400) reports error", async ({ task }) => {
    evidence.prove(task, {
      claim: "a turn failed by the provider (HTTP 400) reports error (errorOccurred, errorContext model_call)",
      kind: "live",
      how: "`FAILAPI` sent to the pane; the provider answers 400; the record",
    });
    await send(copilot.pane, "FAILAPI");
    await waitForState("error", (entry) => ofSession(entry) && entry.status === "error");
    expect(await record()).toMatchObject({ status: "error", detail: ERROR_DETAIL, last_event: "copilot.error-occurred", pid: copilot.pid });
  });

  it("a second Copilot in the same directory is a second record", async ({ task }) => {
    evidence.prove(task, {
      claim: "two Copilot sessions in one directory stay two records, each with its own native process and pane",
      kind: "live",
      how: "a second copilot in a new window of session work with the same cwd; `say hello` sent; tongs-agents list --json",
    });
    const second = await startCopilot("window");
    const secondPid = await nativeChild(second.loader);
    await send(second.pane, "say hello");
    const idle = await waitForState("the second session idle", (entry) => entry.pid === secondPid && entry.status === "idle", second.pane);
    expect(idle.session_id).not.toBe(copilot.sessionId);
    const listed = JSON.parse((await box.exec(["tongs-agents", "list", "--json"])).stdout) as { sessions: Record<string, unknown>[] };
    const ours = listed.sessions.filter((session) => session.harness === "copilot" && session.identity === "process");
    expect(ours.map((session) => [session.session_id, session.pid, session.cwd]).sort()).toEqual(
      [
        [copilot.sessionId, copilot.pid, PROJECT],
        [idle.session_id, secondPid, PROJECT],
      ].sort(),
    );
    expect(await record(idle.session_id)).toMatchObject({ terminal: { env: { TMUX_PANE: second.pane } } });
    expect(await record()).toMatchObject({ status: "error", terminal: { env: { TMUX_PANE: copilot.pane } } });
    Object.assign(secondSession, { pane: second.pane, pid: secondPid, sessionId: idle.session_id });
  });

  it("a question (Copilot's ask_user form): waiting for user input while the form shows, running once answered, then idle", async ({
    task,
  }) => {
    evidence.prove(task, {
      claim:
        "when the model asks the user through Copilot's ask_user tool, the record goes running (tool ask_user), then waiting (notification elicitation_dialog, `waiting for user input`) while Copilot's form shows the question; Enter picks the first option; running when the tool ends, then idle",
      kind: "live",
      how: "`SLOW ASKUSER please` sent to the second session's pane; the provider calls ask_user with a message and a one-field form (e2e/provider/script.mjs ASK_USER_INPUT); the pane read with capture-pane; the record history",
    });
    const ofSecond = (entry: HistoryEntry) => entry.session_id === secondSession.sessionId;
    /** Where the history stood when the form was answered: what follows is the answer's timeline. */
    let answeredAt = 0;
    // SLOW: every later answer of this conversation comes 3 s late, so each state between two events lasts that long.
    await waitUntilIdleAfter(secondSession, "SLOW ASKUSER please", async () => {
      const waiting = await waitForState(
        "waiting for the answer",
        (entry) => ofSecond(entry) && entry.status === "waiting",
        secondSession.pane,
      );
      expect(waiting).toMatchObject({ pid: secondSession.pid, detail: "waiting for user input", last_event: "copilot.notification" });
      await waitUntil(async () => (await lab.capture(secondSession.pane)).includes("enter accept"), "the question form", {
        explain: () => lab.capture(secondSession.pane),
      });
      const form = await lab.capture(secondSession.pane);
      expect(form).toContain(QUESTION.question);
      expect(form).toContain("Green");
      expect(await record(secondSession.sessionId)).toMatchObject({ status: "waiting", detail: "waiting for user input" });
      answeredAt = (await copilotHistory()).length;
      await lab.inner("send-keys", "-t", secondSession.pane, "Enter");
    });
    // By place in the history, not by time stamps (a filter by time twice left the waiting state out in CI). The
    // waiting state, proven above while the form showed, may be read again there (fleeting).
    const after = states((await copilotHistory()).slice(answeredAt).filter(ofSecond));
    expectTimeline(after, [
      { status: "waiting", detail: "waiting for user input", fleeting: true },
      { status: "running", detail: "ask_user finished", tool: "ask_user" },
      { status: "idle", detail: "" },
    ]);
    await lab.waitForText(secondSession.pane, FINAL_TEXT);
  });

  it("a tool that fails (view of a missing file) reports `view failed` (postToolUseFailure); a shell command exiting 2 is a tool that finished", async ({
    task,
  }) => {
    evidence.prove(task, {
      claim:
        "a view tool call on a file that does not exist reports running (tool view), waiting while Copilot asks to allow the path (outside the session's folder), then, allowed, running (`view failed`: postToolUseFailure), then idle; a bash tool call whose command exits 2 is reported by Copilot as a tool that finished (postToolUse: `bash finished`), though its UI marks it failed",
      kind: "live",
      how: `\`FAILREAD please\` then \`FAILTOOL please\` sent to the second session's pane; the provider calls view on \`${MISSING_PATH}\`, then bash with \`${FAILING_COMMAND}\` (exit 2; Copilot runs the read-only \`ls\` without asking); the conversation is SLOW (each answer 3 s late); the record history`,
    });
    const ofSecond = (entry: HistoryEntry) => entry.session_id === secondSession.sessionId;
    const timelineOf = async (prompt: string, during: () => Promise<void> = async () => undefined) => {
      const before = (await copilotHistory()).filter(ofSecond).length;
      await waitUntilIdleAfter(secondSession, prompt, during);
      return states((await copilotHistory()).filter(ofSecond).slice(before));
    };
    // Reading a path outside the session's folder asks first ("Allow path access"): allowed once with Enter.
    const allowPath = async () => {
      await waitUntil(async () => (await lab.capture(secondSession.pane)).includes("Allow path access"), "the path dialog", {
        explain: () => lab.capture(secondSession.pane),
      });
      await lab.inner("send-keys", "-t", secondSession.pane, "Enter");
    };
    // A tool's own running state may last only milliseconds before its end replaces it, unseen by the watcher.
    expectTimeline(await timelineOf("FAILREAD please", allowPath), [
      { status: "running", detail: "processing prompt" },
      { status: "running", detail: "view", tool: "view" },
      { status: "waiting", detail: "permission requested" },
      { status: "running", detail: "view failed", tool: "view" },
      { status: "idle", detail: "" },
    ]);
    expectTimeline(await timelineOf("FAILTOOL please"), [
      { status: "running", detail: "processing prompt" },
      { status: "running", detail: "bash", tool: "bash", fleeting: true },
      { status: "running", detail: "bash finished", tool: "bash" },
      { status: "idle", detail: "" },
    ]);
    expect(await record(secondSession.sessionId)).toMatchObject({ status: "idle", pid: secondSession.pid });
  });

  it("/exit reports ended", async ({ task }) => {
    evidence.prove(task, {
      claim: "/exit reports ended (sessionEnd, reason user_exit)",
      kind: "live",
      how: "`/exit` sent to the pane; the record",
    });
    await send(copilot.pane, "/exit");
    await waitForState("ended", (entry) => ofSession(entry) && entry.status === "ended");
    expect(await record()).toMatchObject({
      status: "ended",
      detail: "session closed",
      last_event: "copilot.session-end",
      pid: copilot.pid,
    });
  });

  it("went through exactly the expected states, every one reported by the native copilot process", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "the first session's states, in order: started and running (in either order: Copilot runs those two hooks at once), idle, running, running (tool bash), waiting, running (bash finished), idle, error, ended; every state carries the native process's PID",
      kind: "live",
      how: "the watcher's log of every record change in the container (inotify plus 100 ms polls); fleeting states between two events ms apart may be absent",
    });
    const history = (await copilotHistory()).filter(ofSession);
    expect(new Set(history.map((entry) => entry.pid))).toEqual(new Set([copilot.pid]));
    // Copilot runs the sessionStart and userPromptSubmitted hooks of the first prompt at the same time (their runs
    // overlap in its own timeline, docs/harness-facts.md): started and running arrive in either order.
    expectTimeline(states(history), [
      { status: "running", detail: "processing prompt", fleeting: true },
      { status: "started", detail: "session started" },
      { status: "running", detail: "processing prompt", fleeting: true },
      { status: "idle", detail: "" },
      { status: "running", detail: "processing prompt" },
      { status: "running", detail: "bash", tool: "bash" },
      { status: "waiting", detail: "permission requested" },
      { status: "running", detail: "bash finished", tool: "bash" },
      { status: "idle", detail: "" },
      { status: "running", detail: "processing prompt", fleeting: true }, // the 400 comes back at once
      { status: "error", detail: ERROR_DETAIL },
      { status: "ended", detail: "session closed" },
    ]);
  });
});
