// Live tmux, synthetic screens: the answer service's guards against a real tmux 3.3 pane that shows a captured
// Claude Code 2.1.332 dialog (src/answer/fixtures/) and records the one key it is sent (`head -c 1`, raw, echo off), with a
// waiting record of this live test process pointing at it. What no real agent run here can be made to show on cue (a
// waiting record over a pane without a dialog, a dialog replaced between the two reads) is shown this way.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LocatedTarget, RegisteredBackend } from "../../backends/contract.ts";
import { BACKENDS } from "../../backends/registry.ts";
import { answerSession, readOpenDialog, type AnswerContext } from "../../src/answer/service.ts";
import { explainSession } from "../../src/fleet/explain.ts";
import { waitIdOf } from "../../src/answer/wait-id.ts";
import { shellQuote } from "../../src/core/shell-quote.ts";
import { linuxProcessSource } from "../../src/core/proc.ts";
import type { SessionRecord } from "../../src/core/schema.ts";
import { stopTmuxServer } from "../processes.ts";
import { writeLiveRecord } from "../records.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";

const FIXTURE = join(import.meta.dirname, "..", "..", "src", "answer", "fixtures", "claude-2.1.332-bash.txt");
const DIALOG = readFileSync(FIXTURE, "utf8");

let sandbox: Sandbox;
let socket: string;
beforeEach(() => {
  sandbox = makeSandbox();
  socket = join(sandbox.root, "tmux.sock");
});
afterEach(async () => {
  await stopTmuxServer(socket);
  sandbox.cleanup();
});

const tmux = (...args: string[]) => execFileSync("tmux", ["-S", socket, ...args], { encoding: "utf8" }).trim();
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A pane that shows `screen` and writes the first key it is sent to `keyFile`, then clears. */
function paneCommand(screen: string, keyFile: string): string {
  const file = join(sandbox.root, `screen-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(file, screen);
  return `stty raw -echo; cat ${shellQuote(file)}; head -c 1 > ${shellQuote(keyFile)}; clear; exec sleep 600`;
}

async function world(screen: string, overrides: Partial<SessionRecord> = {}) {
  const keyFile = join(sandbox.root, "key");
  tmux("new-session", "-d", "-s", "s", "-x", "150", "-y", "40", "/bin/sh", "-c", paneCommand(screen, keyFile));
  const pane = tmux("display-message", "-p", "-t", "s", "#{pane_id}");
  const serverPid = tmux("display-message", "-p", "#{pid}");
  const shown = Date.now() + 5000;
  while (!tmux("capture-pane", "-p", "-t", pane).includes("Esc to cancel") && Date.now() < shown && screen === DIALOG) await sleep(50);
  const since = new Date().toISOString();
  const pending: SessionRecord["pending"] = [
    { kind: "permission", tool: "Bash", detail: "permission: Bash", candidates: [], since, event: "claude.permission-request" },
  ];
  const id = await writeLiveRecord(sandbox.stateDir, "s-answer", { env: { TMUX: `${socket},${serverPid},0`, TMUX_PANE: pane } }, "/w", {
    status: "waiting",
    detail: "permission: Bash",
    tool: "Bash",
    last_event: "claude.permission-request",
    pending,
    ...overrides,
  });
  const context: AnswerContext = {
    stateDir: sandbox.stateDir,
    processes: linuxProcessSource(),
    listProcesses: async () => [],
    env: process.env,
    // The record's process is this test process: a walk from here would (rightly) find the caller inside that agent.
    selfPid: 1,
  };
  const waitId = waitIdOf({ canonical_id: id }, pending[0]!);
  return { id, pane, keyFile, context, waitId };
}

const keyPressed = async (file: string) => {
  await sleep(300);
  // The shell creates the file before `head` reads anything: an empty file is no key.
  return (existsSync(file) && readFileSync(file, "utf8")) || undefined;
};

describe("answer by keys, against a live tmux pane showing a captured Claude Code dialog", { timeout: 30_000 }, () => {
  it("presses the digit of the option the reply's label names, and sees the dialog close", async () => {
    const { id, keyFile, context, waitId } = await world(DIALOG);
    expect(await readOpenDialog({ query: id }, context)).toMatchObject({
      ok: true,
      wait: { id: waitId, kind: "permission", tool: "Bash" },
    });
    const answered = await answerSession({ query: id, waitId }, { kind: "deny" }, context);
    expect(answered).toMatchObject({ ok: true, keys: ["4"], option: { label: "No" }, closed: true });
    expect(answered).not.toHaveProperty("unrecorded");
    expect(await keyPressed(keyFile)).toBe("4");
    // `explain` shows who answered which wait, with what: never the dialog's text.
    const explained = await explainSession(context, id);
    const entry = explained.ok ? explained.explanation.entries.find((candidate) => candidate.source === "answer") : undefined;
    expect(entry).toMatchObject({ event: "answer", change: `tongs-agents answer answered wait ${waitId}: deny, option 4 (keys)` });
    expect(JSON.stringify(explained)).not.toContain("touch approved");
  });

  it("types nothing into a pane that shows the prompt input while the record says waiting", async () => {
    const prompt = `● The tool ran; all done.\n${"─".repeat(60)}\n❯ \n${"─".repeat(60)}\n  ⏸ manual mode on · ? for shortcuts\n`;
    const { id, keyFile, context } = await world(prompt);
    const answered = await answerSession({ query: id }, { kind: "allow" }, context);
    expect(answered).toMatchObject({ ok: false, reason: "no-dialog" });
    expect(existsSync(join(sandbox.stateDir, "answers"))).toBe(false);
    expect(!answered.ok && answered.detail).toMatch(/does not show Claude Code's dialog \(its last line: .*\); nothing sent$/);
    expect(await keyPressed(keyFile)).toBeUndefined();
  });

  it("sends nothing when another dialog took the place of the one read first", async () => {
    const { id, pane, keyFile, context } = await world(DIALOG);
    const otherKey = join(sandbox.root, "other-key");
    let reads = 0;
    // The real tmux backend, whose pane gets a different request on screen right after the first read.
    const swapping: RegisteredBackend[] = BACKENDS.map((backend) => ({
      ...backend,
      locate: (terminal) => {
        const located = backend.locate(terminal);
        if (!located?.capture) return located;
        const capture = located.capture;
        return {
          ...located,
          capture: async (lines, read) => {
            const shown = await capture(lines, read);
            if (++reads === 1) {
              tmux("respawn-pane", "-k", "-t", pane, paneCommand(DIALOG.replaceAll("touch approved", "rm -rf build"), otherKey));
              await sleep(300);
            }
            return shown;
          },
        } satisfies LocatedTarget;
      },
    }));
    const answered = await answerSession({ query: id }, { kind: "allow" }, { ...context, backends: swapping });
    expect(answered).toMatchObject({ ok: false, reason: "dialog-changed" });
    expect(await keyPressed(keyFile)).toBeUndefined();
    expect(await keyPressed(otherKey)).toBeUndefined();
  });

  it("refuses a wait id that is not the open one, a session that is not waiting, and a caller inside the agent", async () => {
    const { id, keyFile, context } = await world(DIALOG);
    expect(await answerSession({ query: id, waitId: "000000000000" }, { kind: "allow" }, context)).toMatchObject({
      ok: false,
      reason: "wait-moved",
      detail: expect.stringContaining("the wait 000000000000 is no longer open"),
    });
    expect(await answerSession({ query: id }, { kind: "allow" }, { ...context, selfPid: process.pid })).toMatchObject({
      ok: false,
      reason: "inside-agent",
    });
    expect(await answerSession({ query: id }, { kind: "session" }, context)).toMatchObject({ ok: false, reason: "not-offered" });
    expect(await keyPressed(keyFile)).toBeUndefined();
    await writeLiveRecord(sandbox.stateDir, "s-answer", { env: {} }, "/w", { status: "running" });
    expect(await answerSession({ query: id }, { kind: "allow" }, context)).toMatchObject({ ok: false, reason: "not-waiting" });
  });

  it("sends nothing when the pane no longer shows exactly the dialog the picker showed when the option was chosen", async () => {
    const { id, keyFile, context, waitId } = await world(DIALOG);
    const read = await readOpenDialog({ query: id }, context);
    if (!read.ok) throw new Error(read.detail);
    // The same wait, but the request the person saw was another one (what a redraw between the panel and the digit gives).
    const seen = { ...read.dialog, context: read.dialog.context.map((line) => line.replaceAll("touch approved", "rm -rf build")) };
    expect(seen).not.toEqual(read.dialog);
    expect(await answerSession({ query: id, waitId, shown: seen, by: "the picker" }, { kind: "choice", number: 1 }, context)).toMatchObject(
      {
        ok: false,
        reason: "dialog-changed",
        detail: expect.stringContaining("is no longer the one shown when the reply was chosen; nothing sent"),
      },
    );
    expect(await keyPressed(keyFile)).toBeUndefined();
    // The dialog as shown: option 1, by the picker, as explain tells.
    expect(
      await answerSession({ query: id, waitId, shown: read.dialog, by: "the picker" }, { kind: "choice", number: 1 }, context),
    ).toMatchObject({ ok: true, keys: ["1"], option: { label: "Yes" } });
    expect(await keyPressed(keyFile)).toBe("1");
    const explained = await explainSession(context, id);
    expect(explained.ok && explained.explanation.entries.find((entry) => entry.source === "answer")?.change).toBe(
      `the picker answered wait ${waitId}: choice, option 1 (keys)`,
    );
  });
});
