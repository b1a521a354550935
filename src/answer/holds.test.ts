// The answer service's side of Claude Code's held hook, on a real state dir (this test process stands in for Claude
// Code and for the hook's PID): a registration counts only while its process runs with its start token; a reply goes
// to the hook as a request file and its outcome becomes the answer (channel hook); a hook that does not claim the
// request in time leaves the answer to keys, as if there were none. The hook's own side: src/hook/claude-hold.test.ts.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { claimRequest, finishRequest, requestsFor, REQUESTS_DIR } from "../../opencode-plugin/answer-requests.js";
import { writeLiveRecord } from "../../test/records.ts";
import { linuxProcessSource } from "../core/proc.ts";
import type { PendingWait } from "../core/schema.ts";
import { answersOf } from "../store/answer-log.ts";
import { HOLDS_DIR, liveHold } from "./holds.ts";
import { answerSession, readOpenDialog, type AnswerContext } from "./service.ts";
import { waitIdOf } from "./wait-id.ts";

const processes = linuxProcessSource();
const WAIT: PendingWait = {
  kind: "permission",
  tool: "Bash",
  detail: "permission: Bash",
  candidates: [],
  since: "2026-12-07T14:00:00.000Z",
  event: "claude.permission-request",
};
const OPTIONS = [
  { number: 1, label: "Yes", reply: "allow" },
  { number: 3, label: "No", reply: "deny" },
];

let stateDir: string;
let canonical: string;
let wait: string;
let context: AnswerContext;

function register(fields: Record<string, unknown> = {}) {
  mkdirSync(join(stateDir, HOLDS_DIR), { recursive: true, mode: 0o700 });
  const hold = {
    v: 1,
    id: "hold-0123456789abcdef",
    pid: process.pid,
    start: start(),
    session: canonical,
    wait,
    options: OPTIONS,
    ...fields,
  };
  writeFileSync(join(stateDir, HOLDS_DIR, `${hold.id}.json`), JSON.stringify(hold));
  return hold;
}
let ownStart: string;
const start = () => ownStart;

beforeEach(async () => {
  stateDir = mkdtempSync(join(tmpdir(), "holds-"));
  ownStart = (await processes.basics(process.pid))?.startToken as string;
  canonical = await writeLiveRecord(stateDir, "s1", { env: {} }, "/w", { status: "waiting", pending: [WAIT] });
  wait = waitIdOf({ canonical_id: canonical }, WAIT);
  context = { stateDir, processes, env: {}, plugin: { claimMs: 300 }, sleep: async () => {} };
});
afterEach(() => rmSync(stateDir, { recursive: true, force: true }));

describe("the held hooks `answer` finds", () => {
  it("only a registration of this wait whose process runs with its start token", async () => {
    register();
    expect(await liveHold(stateDir, canonical, wait, processes)).toMatchObject({ id: "hold-0123456789abcdef" });
    expect(await liveHold(stateDir, canonical, "0123456789ab", processes)).toBeUndefined();
    register({ start: "another:1" });
    expect(await liveHold(stateDir, canonical, wait, processes)).toBeUndefined();
  });

  it("show lists the hook's options, channel hook", async () => {
    register();
    const open = await readOpenDialog({ query: canonical, fromAgent: true }, context);
    expect(open).toMatchObject({ ok: true, channel: "hook", wait: { id: wait }, dialog: { options: OPTIONS } });
  });
});

describe("answering through a held hook", () => {
  it("the hook's outcome is the answer, kept for explain with channel hook", async () => {
    const hold = register();
    const dir = join(stateDir, REQUESTS_DIR);
    // The hook's side, as claude-hold.ts takes a request: claim it, check what it names, say what it did.
    let seen: Record<string, unknown> | undefined;
    const hook = setInterval(() => {
      for (const file of requestsFor(dir, hold.id)) {
        const claimed = claimRequest(dir, file, Date.now());
        if (!claimed?.ok) continue;
        seen = claimed.request;
        finishRequest(dir, file, { ok: true, sent: "deny", option: { number: 3, label: "No" } });
      }
    }, 20);
    try {
      const answered = await answerSession({ query: canonical, fromAgent: true }, { kind: "deny", message: "not now" }, context);
      expect(answered).toMatchObject({ ok: true, channel: "hook", wait, reply: "deny with a message", option: { number: 3 }, keys: [] });
      expect(seen).toMatchObject({ session: canonical, wait, reply: { kind: "deny", message: "not now" } });
      expect(answersOf(stateDir, canonical)).toMatchObject([{ wait, reply: "deny", option: 3, channel: "hook" }]);
    } finally {
      clearInterval(hook);
    }
  });

  it("a hook that does not take the request in time: nothing sent through it, keys as without one", async () => {
    register();
    const answered = await answerSession({ query: canonical, fromAgent: true }, { kind: "allow" }, context);
    // The keys path's own refusal for a session outside tmux: proof the answer went on to keys.
    expect(answered).toMatchObject({ ok: false, reason: "unsupported" });
    expect(!answered.ok && answered.detail).toContain("answering by keys needs the agent in tmux");
    expect(readdirSync(join(stateDir, REQUESTS_DIR))).toEqual([]);
    expect(answersOf(stateDir, canonical)).toEqual([]);
  });

  it("a hook that refuses (the wait moved on): the refusal, nothing sent", async () => {
    const hold = register();
    const dir = join(stateDir, REQUESTS_DIR);
    const hook = setInterval(() => {
      for (const file of requestsFor(dir, hold.id)) {
        const claimed = claimRequest(dir, file, Date.now());
        if (claimed?.ok) finishRequest(dir, file, { ok: false, reason: "moved-on", detail: "already answered in the pane; nothing sent" });
      }
    }, 20);
    try {
      const answered = await answerSession({ query: canonical, fromAgent: true }, { kind: "allow" }, context);
      expect(answered).toEqual({ ok: false, reason: "wait-moved", detail: "already answered in the pane; nothing sent" });
      expect(answersOf(stateDir, canonical)).toEqual([]);
    } finally {
      clearInterval(hook);
    }
  });
});
