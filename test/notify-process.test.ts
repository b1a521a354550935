// The notifier as the hook starts it: the built hook run by a fake harness process, the built notifier (dist/notify.cjs)
// started detached, a stand-in session bus (test/fake-bus.ts) in this process. The live suite (test/live/notify-*.test.ts)
// does the same against dbus-daemon, dunst, tmux and kitty.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { canonicalId, digestOf, processInstanceId, shortId } from "../src/core/identity.ts";
import { linuxProcessSource } from "../src/core/proc.ts";
import { mute, unmute } from "../src/notify/mute.ts";
import { FakeBus } from "./fake-bus.ts";
import { ROOT, startFakeHarness, type FakeHarness } from "./processes.ts";
import { makeSandbox, type Sandbox } from "./sandbox.ts";
import { waitFor } from "./live/tmux-lab.ts";

let sandbox: Sandbox;
let bus: FakeBus | undefined;
const harnesses: FakeHarness[] = [];

beforeEach(() => {
  sandbox = makeSandbox();
  sandbox.env.TONGS_AGENTS_NOTIFY = "on";
  // Only the desktop channel: the fake harness may have the developer's terminal as its tty, which must not ring.
  const config = join(sandbox.env.XDG_CONFIG_HOME as string, "tongs-agents");
  mkdirSync(config, { recursive: true });
  writeFileSync(
    join(config, "config.json"),
    JSON.stringify({ notifications: { channels: { terminal: false, tmux: false, bell: false }, click_wait_seconds: 20 } }),
  );
});
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((harness) => harness.stop()));
  await bus?.stop();
  bus = undefined;
  // The hooks started detached notifiers: each is stopped before its state dir goes, or one still writing makes the
  // cleanup fail (ENOTEMPTY, seen under load).
  await stopNotifiers();
  sandbox.cleanup();
});

/** Wait (bounded) for this sandbox's notifiers (by their arguments and environment) to exit; any left is killed. */
async function stopNotifiers(): Promise<void> {
  const ours = (pid: number) => {
    try {
      return (
        readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("notify.cjs") &&
        readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(`TONGS_AGENTS_STATE_DIR=${sandbox.stateDir}`)
      );
    } catch {
      return false;
    }
  };
  const running = () =>
    readdirSync("/proc")
      .filter((name) => /^\d+$/.test(name))
      .map(Number)
      .filter(ours);
  for (const deadline = Date.now() + 5000; running().length > 0 && Date.now() < deadline;)
    await new Promise((resolve) => setTimeout(resolve, 100));
  for (const pid of running()) process.kill(pid, "SIGKILL");
}

async function claude(): Promise<FakeHarness> {
  const started = await startFakeHarness("claude", sandbox, { DBUS_SESSION_BUS_ADDRESS: (bus as FakeBus).address });
  harnesses.push(started);
  return started;
}

interface LogEntry {
  pid: number;
  mode: string;
  outcome: string;
  sessions?: string[];
  deliveries?: { channel: string; outcome: string; detail: string }[];
  result?: string;
  skipped?: string[];
  focus?: { state: string };
  follow_up?: string;
}

function notifyLog(): LogEntry[] {
  const path = join(sandbox.stateDir, "notify.log");
  // A line being written right now is left for the next read.
  return existsSync(path)
    ? readFileSync(path, "utf8")
        .split("\n")
        .filter((line) => line.endsWith("}"))
        .map((line) => JSON.parse(line) as LogEntry)
    : [];
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function idOf(sessionId: string, pid: number): Promise<string> {
  const info = await linuxProcessSource().basics(pid);
  return canonicalId("claude", sessionId, processInstanceId(pid, info?.startToken as string));
}

describe("the hook starts the notifier on a state change", () => {
  it("the hook's bundle holds the trigger and the ledger, and nothing of the notifier itself", () => {
    const meta = JSON.parse(readFileSync(join(ROOT, ".cache/hook.meta.json"), "utf8")) as { inputs: Record<string, unknown> };
    const inputs = Object.keys(meta.inputs);
    expect(inputs.filter((input) => input.includes("src/notify/"))).toEqual([]);
    expect(inputs).toEqual(expect.arrayContaining(["src/hook/notify-trigger.ts", "src/store/notify-ledger.ts"]));
  });

  it("waiting: one desktop notification; its click focuses the session and reports what focus did; then the notifier exits", async () => {
    bus = await new FakeBus().start();
    const agent = await claude();
    await agent.emit("session-start", "claude", { session_id: "n1", cwd: "/src/api" });
    const run = await agent.emit("permission-request", "claude", { session_id: "n1", cwd: "/src/api", tool_name: "Bash" });
    expect(run.code).toBe(0);
    await waitFor(() => bus?.notified.length === 1, "the notification", 20_000);
    expect(bus.notified[0]?.body[3]).toBe("Claude Code needs you: api");
    expect(bus.notified[0]?.body[4]).toContain("permission: Bash");
    await waitFor(() => notifyLog().some((entry) => entry.outcome === "delivered"), "the notifier's log");
    const delivered = notifyLog().find((entry) => entry.outcome === "delivered") as LogEntry;
    expect(delivered.sessions).toEqual([shortId(await idOf("n1", agent.pid))]);
    expect(alive(delivered.pid)).toBe(true); // waiting for the click

    // The session has no terminal target (the fake harness runs in none): focus says so, and a follow-up says it too.
    bus.click(1);
    await waitFor(() => notifyLog().some((entry) => entry.result === "clicked"), "the click to be handled", 20_000);
    const clicked = notifyLog().find((entry) => entry.result === "clicked") as LogEntry;
    expect(clicked.focus?.state).toBe("unavailable");
    expect(clicked.follow_up).toContain("delivered");
    expect(bus.notified[1]?.body[3]).toBe("tongs-agents could not fully focus: unavailable");
    await waitFor(() => !alive(delivered.pid), "the notifier to exit", 10_000);
  });

  it("the same state again (a second waiting event) does not notify twice; a new change does", async () => {
    bus = await new FakeBus().start();
    const agent = await claude();
    await agent.emit("session-start", "claude", { session_id: "n2", cwd: "/src/web" });
    await agent.emit("permission-request", "claude", { session_id: "n2", cwd: "/src/web", tool_name: "Bash" });
    await waitFor(() => bus?.notified.length === 1, "the first notification", 20_000);
    await agent.emit("notification", "claude", { session_id: "n2", cwd: "/src/web", notification_type: "permission_prompt" });
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(bus.notified).toHaveLength(1);
    await agent.emit("tool-done", "claude", { session_id: "n2", cwd: "/src/web", tool_name: "Bash" });
    await agent.emit("stop-failure", "claude", { session_id: "n2", cwd: "/src/web" });
    await waitFor(() => bus?.notified.length === 2, "the notification of the new change", 20_000);
    expect(bus.notified[1]?.body[3]).toBe("Claude Code failed: web");
  });

  it("idle notifies only when turned on", async () => {
    bus = await new FakeBus().start();
    const agent = await claude();
    await agent.emit("session-start", "claude", { session_id: "n3", cwd: "/src/cli" });
    await agent.emit("stop", "claude", { session_id: "n3", cwd: "/src/cli" });
    await waitFor(() => notifyLog().some((entry) => entry.outcome === "nothing"), "the notifier to decide");
    expect(bus.notified).toEqual([]);
  });

  it("a hung notification server: the hook is unaffected, the notifier gives up within its bound and exits", async () => {
    bus = await new FakeBus("hung").start();
    const agent = await claude();
    await agent.emit("session-start", "claude", { session_id: "n4", cwd: "/src/hung" });
    const run = await agent.emit("permission-request", "claude", { session_id: "n4", cwd: "/src/hung", tool_name: "Bash" });
    expect(run).toMatchObject({ code: 0, stdout: "", stderr: "" });
    // The record is written whatever the notifier does.
    const id = await idOf("n4", agent.pid);
    expect(readFileSync(join(sandbox.stateDir, "sessions", `${digestOf(id)}.json`), "utf8")).toContain('"status": "waiting"');
    await waitFor(() => notifyLog().some((entry) => entry.outcome === "delivered"), "the notifier to give up on the server", 20_000);
    const entry = notifyLog().find((line) => line.outcome === "delivered") as LogEntry;
    expect(entry.deliveries?.[0]).toMatchObject({
      channel: "desktop",
      outcome: "failed",
      detail: expect.stringContaining("did not answer"),
    });
    await waitFor(() => !alive(entry.pid), "the notifier to exit", 10_000);
  });

  it("five agents that become waiting together: one notification naming all five", async () => {
    bus = await new FakeBus().start();
    const agents = await Promise.all([1, 2, 3, 4, 5].map(() => claude()));
    await Promise.all(
      agents.map((agent, index) => agent.emit("session-start", "claude", { session_id: `b${index}`, cwd: `/src/repo${index}` })),
    );
    await Promise.all(
      agents.map((agent, index) =>
        agent.emit("permission-request", "claude", { session_id: `b${index}`, cwd: `/src/repo${index}`, tool_name: "Bash" }),
      ),
    );
    await waitFor(() => notifyLog().filter((entry) => entry.mode === "deliver").length >= 5, "every notifier to finish", 30_000);
    expect(bus.notified).toHaveLength(1);
    expect(bus.notified[0]?.body[3]).toBe("5 agents need you");
    for (const index of [0, 1, 2, 3, 4]) expect(bus.notified[0]?.body[4]).toContain(`repo${index} (Claude Code)`);
  });
});

describe("webhooks (a real HTTP server on 127.0.0.1; the notifier as the hook starts it)", () => {
  interface Received {
    readonly path: string;
    readonly headers: Record<string, string | string[] | undefined>;
    readonly body: string;
  }
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    server = undefined;
  });

  /** A server that records every request and answers 200; its URL for `path`. */
  async function receiver(received: Received[]): Promise<(path: string) => string> {
    server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
      request.on("end", () => {
        received.push({ path: request.url ?? "", headers: request.headers, body });
        response.end("ok");
      });
    });
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    return (path) => `http://127.0.0.1:${port}${path}`;
  }

  /** Webhooks only: every other channel off, so nothing reaches the developer's desktop or terminal. */
  function webhooksOnly(hooks: readonly { url: string; ntfy: boolean }[]): void {
    const config = join(sandbox.env.XDG_CONFIG_HOME as string, "tongs-agents");
    writeFileSync(
      join(config, "config.json"),
      JSON.stringify({ notifications: { channels: { desktop: false, terminal: false, tmux: false, bell: false } } }),
    );
    writeFileSync(join(config, "webhooks.json"), JSON.stringify({ webhooks: hooks }), { mode: 0o600 });
  }

  const decided = () => notifyLog().filter((entry) => entry.mode === "deliver" && ["delivered", "nothing"].includes(entry.outcome));

  it("exactly one POST per change into waiting or error, none for the same state again, none while muted", async () => {
    const received: Received[] = [];
    const url = await receiver(received);
    webhooksOnly([{ url: url("/hook/s3cret-token"), ntfy: false }]);
    bus = await new FakeBus().start();
    const agent = await claude();
    const payload = (extra: object) => ({ session_id: "w1", cwd: "/src/api", ...extra });
    await agent.emit("session-start", "claude", payload({}));
    await agent.emit("permission-request", "claude", payload({ tool_name: "Bash" }));
    await waitFor(() => received.length === 1, "the first POST", 20_000);
    const id = await idOf("w1", agent.pid);
    expect(received[0]?.path).toBe("/hook/s3cret-token");
    expect(received[0]?.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(received[0]?.body ?? "")).toEqual({
      host: hostname(),
      session: id,
      agent: "Claude Code",
      state: "waiting",
      detail: "permission: Bash",
      directory: "/src/api",
    });
    // The same state again: no notifier is even started, so nothing is posted.
    await agent.emit("notification", "claude", payload({ notification_type: "permission_prompt" }));
    await agent.emit("tool-done", "claude", payload({ tool_name: "Bash" }));
    await agent.emit("stop-failure", "claude", payload({}));
    await waitFor(() => received.length === 2, "the POST for the failed turn", 20_000);
    expect(JSON.parse(received[1]?.body ?? "")).toMatchObject({ state: "error", detail: "turn failed (API error)" });

    // Muted: the change is decided (and marked handled) without a POST; unmuted, the next change posts again. The
    // notifier that posted for the failed turn logs after the POST arrived: counted once its line is there.
    await waitFor(() => decided().length === 2, "the notifier of the failed turn to log", 20_000);
    expect(mute(sandbox.stateDir, Date.now(), 60_000).ok).toBe(true);
    await agent.emit("prompt-submit", "claude", payload({}));
    await agent.emit("permission-request", "claude", payload({ tool_name: "Edit" }));
    await waitFor(() => decided().length > 2, "the muted notifier to decide", 20_000);
    expect(decided().slice(2)).toEqual([expect.objectContaining({ outcome: "nothing", skipped: [expect.stringContaining("muted")] })]);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(received).toHaveLength(2);
    unmute(sandbox.stateDir);
    await agent.emit("tool-done", "claude", payload({ tool_name: "Edit" }));
    await agent.emit("stop-failure", "claude", payload({}));
    await waitFor(() => received.length === 3, "the POST after unmute", 20_000);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(received).toHaveLength(3);
    // The log names the webhook by scheme and host only.
    const logText = readFileSync(join(sandbox.stateDir, "notify.log"), "utf8");
    expect(logText).toContain("http://127.0.0.1:");
    expect(logText).not.toContain("s3cret-token");
  });

  it("an ntfy topic gets the message as text and ntfy's headers; a failed POST is tried once more", async () => {
    const received: Received[] = [];
    let failures = 1;
    server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
      request.on("end", () => {
        received.push({ path: request.url ?? "", headers: request.headers, body });
        response.statusCode = failures-- > 0 ? 503 : 200;
        response.end();
      });
    });
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    webhooksOnly([{ url: `http://127.0.0.1:${port}/agents-topic`, ntfy: true }]);
    bus = await new FakeBus().start();
    const agent = await claude();
    await agent.emit("session-start", "claude", { session_id: "w2", cwd: "/src/wébapp" });
    await agent.emit("permission-request", "claude", { session_id: "w2", cwd: "/src/wébapp", tool_name: "Bash" });
    await waitFor(() => received.length === 2, "the POST and its retry", 20_000);
    const [first, second] = received;
    expect(second).toEqual(first);
    expect(second?.headers).toMatchObject({
      "x-title": `=?UTF-8?B?${Buffer.from("Claude Code needs you: wébapp").toString("base64")}?=`,
      "x-priority": "high",
      "x-tags": "bell,tongs-agents",
    });
    expect(second?.body).toBe(`permission: Bash\n/src/wébapp on ${hostname()}`);
    await waitFor(() => decided().length === 1, "the notifier's log");
    expect(decided()[0]?.deliveries).toContainEqual({ channel: "webhook", outcome: "delivered", detail: `http://127.0.0.1:${port}/… 200` });
  });
});
