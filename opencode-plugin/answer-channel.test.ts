// Both sides of the answer channel into OpenCode, for real on a private directory: the CLI's deliverRequest
// (src/answer/request-channel.ts) and the plugin's channel (answer-channel.js), with a fake OpenCode client recording
// what it was asked to post.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Reply } from "../src/answer/replies.ts";
import { deliverRequest, openCodePlugin } from "../src/answer/request-channel.ts";
import { fakeSpawn } from "../test/fake-spawn.ts";
import { createAnswerChannel, REQUESTS_DIR, replyFor } from "./answer-channel.js";
import { createEmitter } from "./index.js";

const INSTANCE = "0d9c1e52-3b7a-4c1e-9f00-5a1b2c3d4e5f";
const QUESTION = {
  id: "que_1",
  sessionID: "ses_a",
  questions: [{ question: "Which colour?", header: "Colour", options: [{ label: "Blue" }, { label: "Green" }] }],
};

let stateDir: string;
let posts: { url: unknown; body: unknown }[];
let answerWith: (url: string) => unknown;
let channel: ReturnType<typeof createAnswerChannel>;

const fakeClient = {
  post: async (options: Record<string, unknown>) => {
    posts.push({ url: options.url, body: options.body });
    return answerWith(String(options.url));
  },
};
interface PluginRequest {
  readonly instance: string;
  readonly session: string;
  readonly sequence: number;
  readonly kind: "permission" | "input";
  readonly reply: Reply;
}
const deliverToPlugin = (dir: string, { instance, ...request }: PluginRequest, context: { claimMs: number }) =>
  deliverRequest(dir, openCodePlugin(instance), request, context);
const request = (fields: Partial<PluginRequest>): PluginRequest => ({
  instance: INSTANCE,
  session: "ses_a",
  sequence: 7,
  kind: "permission",
  reply: { kind: "allow" },
  ...fields,
});
const deliver = (fields: Partial<PluginRequest>, claimMs = 2500) => deliverToPlugin(stateDir, request(fields), { claimMs });

beforeEach(() => {
  stateDir = mkdtempSync(join(tmpdir(), "answer-channel-"));
  posts = [];
  answerWith = () => ({ data: true, response: { status: 200 } });
  channel = createAnswerChannel({ dir: join(stateDir, REQUESTS_DIR), instanceId: INSTANCE, client: () => fakeClient });
  expect(channel.start()).toBe(true);
});
afterEach(() => {
  channel.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

describe("the answer channel into OpenCode (both sides, a real directory, a fake OpenCode client)", () => {
  it("allow: the plugin claims the request, replies once by the request's id, and says so; nothing is left behind", async () => {
    channel.asked("ses_a", "permission", { id: "per_1", permission: "bash" }, 7);
    const delivered = await deliver({});
    expect(delivered).toEqual({ ok: true, outcome: { ok: true, sent: "once", option: { number: 1, label: "Allow once" } } });
    expect(posts).toEqual([{ url: "/permission/per_1/reply", body: { reply: "once" } }]);
    expect(readdirSync(join(stateDir, REQUESTS_DIR))).toEqual([]);
  });

  it("deny with a message: reject, the message along", async () => {
    channel.asked("ses_a", "permission", { id: "per_1", permission: "bash" }, 7);
    const delivered = await deliver({ reply: { kind: "deny", message: "not now" } });
    expect(delivered).toMatchObject({ ok: true, outcome: { ok: true, sent: "reject", option: { number: 3 } } });
    expect(posts).toEqual([{ url: "/permission/per_1/reply", body: { reply: "reject", message: "not now" } }]);
  });

  it("a request answered in OpenCode first (permission.replied): already answered, nothing posted", async () => {
    channel.asked("ses_a", "permission", { id: "per_1", permission: "bash" }, 7);
    channel.replied("per_1");
    const delivered = await deliver({});
    expect(delivered).toMatchObject({ ok: true, outcome: { ok: false, reason: "moved-on" } });
    expect(JSON.stringify(delivered)).toContain("already answered");
    expect(posts).toEqual([]);
  });

  it("a wait this process never opened (another sequence, another session): moved on, nothing posted", async () => {
    channel.asked("ses_a", "permission", { id: "per_1", permission: "bash" }, 7);
    for (const fields of [{ sequence: 8 }, { session: "ses_b" }, { kind: "input" as const }]) {
      const delivered = await deliver(fields);
      expect(delivered).toMatchObject({ ok: true, outcome: { ok: false, reason: "moved-on" } });
    }
    expect(posts).toEqual([]);
  });

  it("a second request opened while the first was open (no wait of its own in the record) is never the target", async () => {
    channel.asked("ses_a", "permission", { id: "per_1", permission: "bash" }, 7);
    channel.asked("ses_a", "permission", { id: "per_2", permission: "bash" }, undefined);
    channel.replied("per_1");
    const delivered = await deliver({});
    expect(delivered).toMatchObject({ ok: true, outcome: { ok: false, reason: "moved-on" } });
    expect(posts).toEqual([]);
  });

  it("answered in the pane between the plugin's check and its reply: OpenCode's 404 is reported as moved on", async () => {
    channel.asked("ses_a", "permission", { id: "per_1", permission: "bash" }, 7);
    answerWith = () => ({ error: { name: "NotFoundError" }, response: { status: 404 } });
    const delivered = await deliver({});
    expect(delivered).toMatchObject({ ok: true, outcome: { ok: false, reason: "moved-on" } });
    expect(posts).toHaveLength(1);
  });

  it("no plugin claims the request within the bound: the CLI withdraws it; nothing sent, nothing left", async () => {
    channel.stop();
    const delivered = await deliverToPlugin(stateDir, request({ instance: "another-process" }), { claimMs: 300 });
    expect(delivered).toMatchObject({ ok: false, sent: false });
    expect(readdirSync(join(stateDir, REQUESTS_DIR))).toEqual([]);
    expect(posts).toEqual([]);
  });

  it("files a minute old are swept by the next request (an outcome nobody waited for); newer ones are left", async () => {
    channel.stop();
    const dir = join(stateDir, REQUESTS_DIR);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, "old.outcome"), "{}");
    writeFileSync(join(dir, "new.outcome"), "{}");
    const minuteAgo = (Date.now() - 61_000) / 1000;
    utimesSync(join(dir, "old.outcome"), minuteAgo, minuteAgo);
    await deliverToPlugin(stateDir, request({ instance: "another-process" }), { claimMs: 100 });
    expect(readdirSync(dir)).toEqual(["new.outcome"]);
  });

  it("the same request file handled twice at once is applied once (the rename claims it)", async () => {
    channel.stop();
    channel.asked("ses_a", "permission", { id: "per_1", permission: "bash" }, 7);
    const dir = join(stateDir, REQUESTS_DIR);
    const name = `${INSTANCE}.00112233445566778899aabb.request`;
    writeFileSync(join(dir, name), JSON.stringify({ v: 1, at: new Date().toISOString(), ...request({}) }));
    const other = createAnswerChannel({ dir, instanceId: INSTANCE, client: () => fakeClient });
    other.asked("ses_a", "permission", { id: "per_1", permission: "bash" }, 7);
    await Promise.all([channel.handle(name), other.handle(name), channel.handle(name)]);
    expect(posts).toHaveLength(1);
    expect(readdirSync(dir)).toEqual([`${INSTANCE}.00112233445566778899aabb.outcome`]);
  });

  it("a request older than the plugin accepts is not applied", async () => {
    channel.stop();
    channel.asked("ses_a", "permission", { id: "per_1", permission: "bash" }, 7);
    const dir = join(stateDir, REQUESTS_DIR);
    const name = `${INSTANCE}.00112233445566778899aabc.request`;
    writeFileSync(join(dir, name), JSON.stringify({ v: 1, at: new Date(Date.now() - 60_000).toISOString(), ...request({}) }));
    await channel.handle(name);
    expect(posts).toEqual([]);
  });

  it("a question: an option by label or number, free text, deny dismisses; a permission reply is not offered", async () => {
    channel.asked("ses_a", "input", QUESTION, 9);
    const answer = (reply: PluginRequest["reply"]) => deliver({ sequence: 9, kind: "input", reply });
    expect(await answer({ kind: "allow" })).toMatchObject({ ok: true, outcome: { ok: false, reason: "not-offered" } });
    expect(await answer({ kind: "choice", label: "gre" })).toMatchObject({
      ok: true,
      outcome: { ok: true, sent: "answers", option: { number: 2, label: "Green" } },
    });
    expect(posts.at(-1)).toEqual({ url: "/question/que_1/reply", body: { answers: [["Green"]] } });
    expect(await answer({ kind: "choice", number: 1 })).toMatchObject({ ok: true, outcome: { ok: true, option: { label: "Blue" } } });
    expect(await answer({ kind: "text", text: "Purple, please" })).toMatchObject({
      ok: true,
      outcome: { ok: true, option: { number: 3 } },
    });
    expect(posts.at(-1)).toEqual({ url: "/question/que_1/reply", body: { answers: [["Purple, please"]] } });
    expect(await answer({ kind: "deny" })).toMatchObject({ ok: true, outcome: { ok: true, sent: "reject" } });
    expect(posts.at(-1)).toEqual({ url: "/question/que_1/reject", body: {} });
    expect(await answer({ kind: "choice", number: 5 })).toMatchObject({ ok: true, outcome: { ok: false, reason: "not-offered" } });
  });
});

describe("replyFor", () => {
  it("refuses what a dialog does not offer, and questions with several parts", () => {
    const base = { id: "x", root: "s", sequence: 1, title: "" };
    expect(replyFor({ ...base, kind: "permission", question: undefined }, { kind: "session" })).toMatchObject({ ok: false });
    expect(replyFor({ ...base, kind: "permission", question: undefined }, { kind: "choice", label: "allow a" })).toMatchObject({
      ok: true,
      sent: "always",
    });
    const two = { question: "q", options: [{ label: "A" }], custom: true, count: 2 };
    expect(replyFor({ ...base, kind: "input", question: two }, { kind: "choice", number: 1 })).toMatchObject({ ok: false });
    const closed = { question: "q", options: [{ label: "A" }], custom: false, count: 1 };
    expect(replyFor({ ...base, kind: "input", question: closed }, { kind: "text", text: "t" })).toMatchObject({ ok: false });
  });
});

describe("the emitter ties each request to the waiting payload it sent", () => {
  it("the first request of a session carries the sequence of its waiting payload; a second one none; replies close them", () => {
    const dir = join(stateDir, "emitter-requests");
    const emitter = createEmitter(
      { pid: 4242, env: {}, spawn: fakeSpawn({ autoExit: true }).spawn, instanceId: INSTANCE, answerDir: dir },
      { node: "/usr/bin/node", hook: "/opt/hook.cjs" },
    );
    emitter.useClient({ _client: fakeClient });
    emitter.event({ type: "session.created", properties: { info: { id: "ses_a", directory: "/work/app" } } });
    emitter.event({ type: "session.status", properties: { sessionID: "ses_a", status: { type: "busy" } } });
    emitter.event({ type: "permission.asked", properties: { id: "per_1", sessionID: "ses_a", permission: "bash" } });
    emitter.event({ type: "permission.asked", properties: { id: "per_2", sessionID: "ses_a", permission: "bash" } });
    expect(emitter.state.sequence).toBe(3);
    expect([...(emitter.answers?.open.values() ?? [])].map((open) => [open.id, open.sequence])).toEqual([
      ["per_1", 3],
      ["per_2", undefined],
    ]);
    emitter.event({ type: "permission.replied", properties: { sessionID: "ses_a", requestID: "per_1", reply: "once" } });
    expect([...(emitter.answers?.open.keys() ?? [])]).toEqual(["per_2"]);
    emitter.answers?.stop();
  });
});
