// Live: the real OpenCode 1.18.33 (opencode-ai from the npm registry, pinned in test/live/harnesses.json), interactive
// in a tmux pane driven with send-keys, loads the plugin module our installer writes (`install --agent opencode`) and
// reports through the real hook into a sandboxed state dir. OpenCode talks to the synthetic provider (e2e/provider)
// through its OpenAI-compatible provider, with auto-update, sharing, the model-list fetch and LSP downloads off.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEvidence } from "../../e2e/evidence.ts";
import { startProvider } from "../../e2e/provider/server.mjs";
import type { SessionRecord } from "../../src/core/schema.ts";
import { runInstaller } from "../../src/install/installer.ts";
import { installersFor } from "../../src/harnesses/installers.ts";
import { sessionsDirOf } from "../../src/store/paths.ts";
import { listRecords } from "../../src/store/records.ts";
import { QUESTION } from "../../e2e/provider/script.mjs";
import { ROOT, runCliProcess, runFocus } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { HARNESS_PACKAGES, harnessBinDir, seedOpencodePlugin } from "./harnesses.ts";
import { TmuxLab, waitFor } from "./tmux-lab.ts";
import { run } from "../../src/core/exec.ts";

const VERSION = HARNESS_PACKAGES.opencode.version;
/** OpenCode starts slowly on a loaded machine (about 40 s seen with two cores shared), and each turn takes seconds. */
const START_MS = 180_000;
const STEP_MS = 120_000;

const evidence = createEvidence(
  "opencode-answer",
  `tongs-agents answer: OpenCode ${VERSION} interactive in tmux on this machine, answered through tongs-agents' plugin in its process`,
  { containers: false },
);
evidence.addVersions({ [`opencode (npm ${HARNESS_PACKAGES.opencode.package})`]: VERSION });
const HOW = `opencode ${VERSION} interactive in a private tmux server, the plugin from \`tongs-agents install --agent opencode\`, synthetic OpenAI-compatible provider (RUNTOOL asks to run \`touch approved\`, ASKUSER calls the question tool); answered with the built CLI; states read from the records`;

let sandbox: Sandbox;
let lab: TmuxLab;
let provider: Awaited<ReturnType<typeof startProvider>>;
let project: string;
let env: NodeJS.ProcessEnv;
let pane = "";

const records = (): SessionRecord[] => listRecords(sessionsDirOf(sandbox.stateDir)).records.map((entry) => entry.record);
const screen = () => lab.capture(lab.inner, pane);
const keys = (...args: string[]) => lab.tmux(lab.inner, "send-keys", "-t", pane, ...args);

async function until<T>(find: () => T | undefined, what: string, timeoutMs = STEP_MS): Promise<T> {
  let found: T | undefined;
  try {
    await waitFor(() => (found = find()) !== undefined, what, timeoutMs);
  } catch (error) {
    throw new Error(
      `${String(error)}\nrecords: ${JSON.stringify(records().map((r) => [r.session_id, r.status, r.detail, r.last_event]))}\nscreen:\n${screen()}`,
      { cause: error },
    );
  }
  return found as T;
}

/** Type a prompt the way a user does: the text, then Enter once the TUI shows it. */
async function prompt(text: string): Promise<void> {
  keys("-l", text);
  await waitFor(() => screen().includes(text), `the prompt "${text}" on screen`, 30_000);
  keys("Enter");
}

beforeAll(async () => {
  sandbox = makeSandbox();
  lab = new TmuxLab(sandbox, "opencode");
  // SLOW holds a reply long enough for Esc, twice, under load.
  provider = await startProvider({ port: 0, toolCommand: "touch approved", slowMs: 15_000 });
  project = join(sandbox.root, "project");
  mkdirSync(project, { recursive: true });
  const configDir = join(sandbox.env.XDG_CONFIG_HOME as string, "opencode");
  mkdirSync(configDir, { recursive: true });
  writeFileSync(
    join(configDir, "opencode.json"),
    `${JSON.stringify({
      model: "fake/fake-model",
      autoupdate: false,
      share: "disabled",
      permission: { bash: "ask" },
      provider: {
        fake: {
          npm: "@ai-sdk/openai-compatible",
          options: { baseURL: `${provider.url}/v1`, apiKey: "fake" },
          models: { "fake-model": { tool_call: true } },
        },
      },
    })}\n`,
  );
  seedOpencodePlugin(configDir, sandbox.home);
  const bin = harnessBinDir("opencode");
  env = {
    ...sandbox.env,
    PATH: `${bin}:${process.env.PATH ?? ""}`,
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    OPENCODE_DISABLE_SHARE: "1",
    // OpenCode (a Bun binary) writes its native libraries into TMPDIR at every start and leaves them (19 MB each
    // time): into the sandbox, removed with it, not /tmp.
    TMPDIR: mkdtempSync(join(sandbox.root, "tmp-")),
  };
  delete env.TONGS_AGENTS_HOOK; // the installed module names the hook itself
  const world = { env, home: sandbox.home, nodePath: process.execPath, nodeVersion: process.versions.node, packageRoot: ROOT, exec: run };
  const installed = await runInstaller(world, {
    harnesses: await installersFor(["opencode"]),
    mode: "install",
    dryRun: false,
    options: [],
  });
  expect(installed.ok).toBe(true);
  const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
  const assignments = Object.entries(env)
    .filter(([name]) => /^(HOME|PATH|TMPDIR|XDG_\w+|TONGS_AGENTS_\w+|OPENCODE_\w+)$/.test(name))
    .map(([name, value]) => `${name}=${quote(String(value))}`)
    .join(" ");
  pane = lab.tmux(
    lab.inner,
    "new-session",
    "-d",
    "-s",
    "oc",
    "-x",
    "160",
    "-y",
    "45",
    "-c",
    project,
    "-P",
    "-F",
    "#{pane_id}",
    `env ${assignments} opencode`,
  );
  await waitFor(() => screen().includes("Ask anything"), "OpenCode's prompt", START_MS);
}, START_MS + 300_000);

afterAll(async () => {
  evidence.write();
  lab?.stop();
  await provider?.stop();
  sandbox?.cleanup();
});

describe(`OpenCode ${VERSION} live in tmux, with the plugin installed by tongs-agents`, () => {
  let first: SessionRecord;
  let opencodePid = 0;

  it(
    "a tool run behind a real permission dialog: started, running, running(bash), waiting, running, idle",
    async () => {
      await prompt("RUNTOOL please");
      const waiting = await until(() => records().find((record) => record.status === "waiting"), "a waiting record");
      // The plugin's event can reach the record before the TUI draws the dialog (seen under load in CI).
      await waitFor(() => screen().includes("Permission required"), "OpenCode's permission dialog on screen", 30_000);
      expect(waiting).toMatchObject({ harness: "opencode", identity: "emitter", detail: "permission: bash", tool: "bash", cwd: project });
      opencodePid = waiting.pid as number;
      expect(execFileSync("cat", [`/proc/${opencodePid}/comm`], { encoding: "utf8" }).trim()).toBe("opencode");
      expect(waiting.terminal).toMatchObject({ env: { TMUX_PANE: pane } });
      keys("Enter"); // "Allow once"
      first = await until(() => records().find((record) => record.session_id === waiting.session_id && record.status === "idle"), "idle");
      expect(first.history?.map((entry) => [entry.event, entry.status])).toEqual([
        ["opencode.session-start", "started"],
        ["opencode.session-busy", "running"],
        ["opencode.tool-execute-before", "running"],
        ["opencode.permission-asked", "waiting"],
        ["opencode.permission-replied", "running"],
        ["opencode.session-busy", "running"],
        ["opencode.session-idle", "idle"],
      ]);
    },
    2 * STEP_MS,
  );

  it(
    "a provider failure is an error, and stays one through the idle OpenCode sends after it",
    async () => {
      await prompt("FAILAPI now");
      const failed = await until(
        () => records().find((record) => record.session_id === first.session_id && record.status === "error"),
        "error",
      );
      expect(failed.detail).toMatch(/^turn failed: APIError 400/);
      await new Promise((resolve) => setTimeout(resolve, 3000));
      expect(records().find((record) => record.session_id === first.session_id)?.status).toBe("error");
    },
    2 * STEP_MS,
  );

  it(
    "a second session in the same process and directory is a second record; the first is not ended",
    async () => {
      await prompt("/new");
      await prompt("hello again");
      const second = await until(
        () => records().find((record) => record.session_id !== first.session_id && record.status === "idle"),
        "a second idle session",
      );
      expect(second).toMatchObject({ pid: opencodePid, cwd: project });
      expect(records().find((record) => record.session_id === first.session_id)?.status).toBe("error");
    },
    2 * STEP_MS,
  );

  it(
    "focus lands an attached client on OpenCode's pane",
    async () => {
      lab.tmux(lab.inner, "new-session", "-d", "-s", "elsewhere", "sh -c 'echo ELSEWHERE; exec sleep 600'");
      const client = await lab.attach("elsewhere");
      const { code, result } = await runFocus(first.session_id, env, ["--client", client.tty]);
      expect({ code, state: result.state }, JSON.stringify(result)).toEqual({ code: 0, state: "complete" });
      expect(lab.clients().find((attached) => attached.tty === client.tty)?.pane).toBe(pane);
    },
    STEP_MS,
  );

  it(
    "Esc twice while a reply is held: idle, turn interrupted (OpenCode's MessageAbortedError is the user's, not a failure)",
    async () => {
      await prompt("SLOW hello");
      const busy = await until(() => records().find((record) => record.status === "running"), "a running record");
      keys("Escape");
      await new Promise((resolve) => setTimeout(resolve, 500));
      keys("Escape"); // the first Esc asks for a second ("esc again to interrupt")
      // OpenCode's idle and its abort may come in either order under load: the state the Esc leaves is the interrupt.
      const stopped = await until(
        () => records().find((record) => record.session_id === busy.session_id && record.detail === "turn interrupted"),
        "the interrupt after Esc",
      );
      expect(stopped).toMatchObject({ status: "idle", detail: "turn interrupted", last_event: "opencode.session-interrupted" });
      // The idle OpenCode sends after the abort leaves it so.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      expect(records().find((record) => record.session_id === busy.session_id)).toMatchObject({
        status: "idle",
        detail: "turn interrupted",
      });
    },
    2 * STEP_MS,
  );
  /** `tongs-agents answer` as a process, as the user runs it. */
  const answer = async (...args: string[]) => {
    const ran = await runCliProcess(["answer", ...args], env);
    return { code: ran.code, stdout: ran.stdout.trim(), stderr: ran.stderr.trim() };
  };
  /** The session the pane shows now (the tests above switched to a second one): the one that waits. */
  let shownSession = "";
  const waitingOf = async (tool: string) => {
    const waiting = await until(
      () => records().find((record) => record.status === "waiting" && record.tool === tool),
      `waiting on ${tool}`,
    );
    shownSession = waiting.session_id;
    return waiting;
  };
  const settled = () =>
    until(() => records().find((record) => record.session_id === shownSession && record.status === "idle"), "idle again");

  it(
    "answer allow and deny through the plugin in OpenCode's process: the dialog closes, the tool runs (or not), waiting -> running",
    async ({ task }) => {
      evidence.prove(task, {
        claim:
          "OpenCode: `tongs-agents answer` replies through tongs-agents' plugin inside the OpenCode process, by the request's id (channel `plugin`, no keys, no port): allow closes the dialog, the command runs, the record goes waiting -> running -> idle and `explain` names the answer; the same wait again is refused; deny with a message closes the dialog and the command does not run",
        kind: "live",
        how: HOW,
      });
      const approved = join(project, "approved");
      rmSync(approved, { force: true });
      // A session of its own: the provider holds every reply of a conversation that said SLOW (the Esc test's).
      await prompt("/new");
      await prompt("RUNTOOL answer allow");
      const waiting = await waitingOf("bash");
      await until(() => (screen().includes("Permission required") ? true : undefined), "the permission dialog");
      const shown = await answer(shownSession, "show", "--json");
      expect(shown.code, shown.stderr).toBe(0);
      const open = JSON.parse(shown.stdout) as {
        wait: { id: string; kind: string };
        channel: string;
        dialog: { options: { label: string }[] };
      };
      expect(open).toMatchObject({ channel: "plugin", wait: { tool: "bash" } });
      expect(open.dialog.options.map((option) => option.label)).toEqual(["Allow once", "Allow always", "Reject"]);
      const allowed = await answer(shownSession, "allow", "--wait", open.wait.id);
      expect(allowed.stderr).toBe("");
      expect(allowed.code).toBe(0);
      expect(allowed.stdout).toBe(
        `answered allow: Allow once (option 1), through OpenCode (PID ${waiting.pid}) through its tongs-agents plugin; OpenCode took it`,
      );
      await until(() => (existsSync(approved) ? true : undefined), "the allowed command's file");
      await until(() => (screen().includes("Permission required") ? undefined : true), "the dialog gone from the pane");
      const after = await settled();
      const events = after.history?.map((entry) => [entry.event, entry.status]) ?? [];
      const at = events.findLastIndex(([event]) => event === "opencode.permission-asked");
      expect(events.slice(at, at + 2)).toEqual([
        ["opencode.permission-asked", "waiting"],
        ["opencode.permission-replied", "running"],
      ]);
      const explained = JSON.parse((await runCliProcess(["explain", shownSession, "--json"], env)).stdout) as {
        entries: { source: string; change: string }[];
      };
      expect(explained.entries.filter((entry) => entry.source === "answer").map((entry) => entry.change)).toContain(
        `tongs-agents answer answered wait ${open.wait.id}: allow, option 1 (plugin)`,
      );
      // The same wait again: closed, nothing sent.
      const again = await answer(shownSession, "allow", "--wait", open.wait.id);
      expect(again).toMatchObject({ code: 10, stdout: "" });
      expect(again.stderr).toContain(`(the wait ${open.wait.id} is closed)`);

      // Deny with a message: the command does not run.
      rmSync(approved, { force: true });
      await prompt("RUNTOOL answer deny");
      await waitingOf("bash");
      const denied = await answer(shownSession, "deny", "not", "this", "time");
      expect(denied.stderr).toBe("");
      expect(denied.stdout).toMatch(/^answered deny with a message: Reject \(option 3\), through OpenCode .*; OpenCode took it$/);
      await until(() => records().find((record) => record.session_id === shownSession && record.status !== "waiting"), "no longer waiting");
      await until(() => (screen().includes("Permission required") ? undefined : true), "the dialog gone from the pane");
      await new Promise((resolve) => setTimeout(resolve, 2000));
      expect(existsSync(approved)).toBe(false);
      await settled();
    },
    3 * STEP_MS,
  );

  it(
    "the dialog answered in the pane first: the answer sends nothing and says why",
    async ({ task }) => {
      evidence.prove(task, {
        claim:
          "OpenCode: a permission dialog answered in the pane before `tongs-agents answer`: nothing is sent, the refusal says why (exit 10)",
        kind: "live",
        how: HOW,
      });
      rmSync(join(project, "approved"), { force: true });
      await prompt("RUNTOOL answer late");
      await waitingOf("bash");
      const open = JSON.parse((await answer(shownSession, "show", "--json")).stdout) as { wait: { id: string } };
      keys("Enter"); // "Allow once", in the pane
      await until(() => (existsSync(join(project, "approved")) ? true : undefined), "the command run by the pane's answer");
      const late = await answer(shownSession, "allow", "--wait", open.wait.id);
      expect(late).toMatchObject({ code: 10, stdout: "" });
      expect(late.stderr).toMatch(/already answered|nothing to answer: .* \(the wait [0-9a-f]{12} is closed\)/);
      await settled();
    },
    2 * STEP_MS,
  );

  it(
    "a question from the model answered by an option's label, then by free text",
    async ({ task }) => {
      evidence.prove(task, {
        claim:
          "OpenCode: a question from the model (its `question` tool) answered through the plugin by the start of an option's label (`choose gre`: Green) and by free text; the session runs on to idle",
        kind: "live",
        how: HOW,
      });
      await prompt("ASKUSER by label");
      await waitingOf("question");
      await until(() => (screen().includes(QUESTION.question) ? true : undefined), "the question dialog");
      const chosen = await answer(shownSession, "choose", "gre");
      expect(chosen.stderr).toBe("");
      expect(chosen.stdout).toMatch(/^answered the option "gre": Green \(option 2\), through OpenCode .*; OpenCode took it$/);
      await settled();
      await waitFor(() => screen().includes("Green"), "the chosen option in OpenCode's transcript", 30_000);

      await prompt("ASKUSER by text");
      await waitingOf("question");
      const typed = await answer(shownSession, "text", "Purple, with stripes");
      expect(typed.stderr).toBe("");
      expect(typed.stdout).toMatch(/^answered free text: Type your own answer \(option 3\), through OpenCode .*; OpenCode took it$/);
      await settled();
      await waitFor(() => screen().includes("Purple, with stripes"), "the typed answer in OpenCode's transcript", 30_000);
    },
    2 * STEP_MS,
  );
});
