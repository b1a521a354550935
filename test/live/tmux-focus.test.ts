// Live: real tmux servers with real attached clients (each inside an outer tmux pane, so the test reads exactly what
// the user would see), records written by the real hook from processes running in those panes, and the real CLI.
import { execFileSync } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { canonicalId, digestOf, processInstanceId } from "../../src/core/identity.ts";
import { ensureStateDirs } from "../../src/store/paths.ts";
import { linuxProcessSource } from "../../src/core/proc.ts";
import { writeRecord } from "../../src/store/records.ts";
import { runFocus } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { TmuxLab, type AgentPane, type AttachedClient } from "./tmux-lab.ts";

let sandbox: Sandbox;
let lab: TmuxLab;
beforeEach(() => {
  sandbox = makeSandbox();
  lab = new TmuxLab(sandbox);
});
afterEach(() => {
  lab.stop();
  sandbox.cleanup();
});

const focus = (query: string, options: { client?: string; env?: NodeJS.ProcessEnv } = {}) =>
  runFocus(query, { ...sandbox.env, ...options.env }, options.client ? ["--client", options.client] : []);

/** The client really shows the pane: its marker on screen, and the terminal cursor where the pane's cursor is. */
function expectShows(client: AttachedClient, agent: AgentPane): void {
  const seen = lab.seen(client);
  expect(seen.text).toContain(agent.marker);
  expect(seen.cursor).toEqual(lab.expectedCursor(agent.pane));
  expect(lab.clients().find((attached) => attached.tty === client.tty)?.pane).toBe(agent.pane);
}

describe("tmux focus, live (tmux 3.3a)", () => {
  it("lands on the exact pane among several sessions, windows and split panes", async () => {
    const a1 = lab.newSession("alpha");
    const a2 = lab.newWindow("alpha");
    const a3 = lab.split(a2.pane);
    const b1 = lab.newSession("beta");
    await lab.ready(a1, a2, a3, b1);
    const client = await lab.attach("beta");
    expectShows(client, b1);

    for (const target of [a3, a2, a1, a3, b1]) {
      const { code, result } = await focus(target.sessionId, { client: client.tty });
      expect(result).toMatchObject({
        state: "complete",
        backend: "tmux",
        located: true,
        selection: { succeeded: true },
        activation: { succeeded: true },
      });
      expect(code).toBe(0);
      expectShows(client, target);
    }
  });

  it("lands on the pane from a caller with no UTF-8 locale (MCP clients spawn servers in a bare environment)", async () => {
    const first = lab.newSession("bare");
    const target = lab.newWindow("bare");
    await lab.ready(first, target);
    const client = await lab.attach("bare");
    // Without `-u`, tmux printed every tab separator as `_` for this caller: focus moved the client, then said failed.
    const { code, result } = await focus(target.sessionId, { client: client.tty, env: { LC_ALL: "C", LANG: "C", LC_CTYPE: "C" } });
    expect(result).toMatchObject({ state: "complete", selection: { succeeded: true }, activation: { succeeded: true } });
    expect(code).toBe(0);
    expectShows(client, target);
  });

  it("unzooms a zoomed window to show a pane hidden behind the zoom", async () => {
    const first = lab.newSession("zoom");
    const second = lab.split(first.pane);
    await lab.ready(first, second);
    lab.tmux(lab.inner, "resize-pane", "-Z", "-t", first.pane);
    const client = await lab.attach("zoom");
    expect(lab.seen(client).text).not.toContain(second.marker);
    const { result } = await focus(second.sessionId, { client: client.tty });
    expect(result.state).toBe("complete");
    expectShows(client, second);
  });

  it("moves only the client it is pinned to when two clients watch different sessions", async () => {
    const left = lab.newSession("left");
    const right = lab.newSession("right");
    const target = lab.newSession("third");
    await lab.ready(left, right, target);
    const onLeft = await lab.attach("left");
    const onRight = await lab.attach("right");
    const { result } = await focus(target.sessionId, { client: onRight.tty });
    expect(result.state).toBe("complete");
    expectShows(onRight, target);
    expectShows(onLeft, left);
  });

  it("a --client that is not attached to the pane's server: a client there is chosen instead, as without --client", async () => {
    const first = lab.newSession("plain");
    const target = lab.newWindow("plain");
    await lab.ready(first, target);
    const client = await lab.attach("plain");
    // One tmux call switches a named client; this one is not a client of that server, so switch-client fails in it.
    const { result } = await focus(target.sessionId, { client: "/dev/pts/999999" });
    expectShows(client, target);
    expect(result).toMatchObject({ state: "partial", selection: { succeeded: true }, activation: { attempted: true, succeeded: false } });
    expect(result.activation.detail).toContain(`a client already on the target's session (${client.tty}) shows ${target.pane}`);
  });

  it("pins to the caller's own client when run from inside tmux without --client", async () => {
    const home = lab.newSession("home");
    const target = lab.newSession("target");
    await lab.ready(home, target);
    const client = await lab.attach("home");
    const sessionId = lab.tmux(lab.inner, "display-message", "-p", "-t", "home", "#{session_id}").slice(1);
    const { result } = await focus(target.sessionId, { env: { TMUX: `${lab.inner},1,${sessionId}` } });
    expect(result).toMatchObject({ state: "complete", activation: { detail: expect.stringContaining("the caller's own client") } });
    expectShows(client, target);
  });

  it("works from a real popup (no TMUX_PANE) bound the way tmux-setup binds it", async () => {
    const home = lab.newSession("home");
    const target = lab.newWindow("home");
    await lab.ready(home, target);
    const client = await lab.attach("home");
    const out = `${sandbox.root}/popup-result.json`;
    const cli = `'${process.execPath}' '${process.cwd()}/bin/tongs-agents.js'`;
    // tmux 3.3 does not expand formats in display-popup's command; run-shell does, so the binding goes through it.
    const popup = `${cli} focus ${target.sessionId} --json --client '#{client_tty}' > '${out}'; env | grep -c '^TMUX_PANE=' >> '${out}.pane'; true`;
    lab.tmux(
      lab.inner,
      "bind-key",
      "-T",
      "root",
      "F5",
      "run-shell",
      "-b",
      `tmux -S '${lab.inner}' display-popup -c '#{client_tty}' -E "${popup.replaceAll('"', '\\"')}"`,
    );
    lab.tmux(lab.outer, "send-keys", "-t", client.outerSession, "F5");
    const { readFileSync, existsSync } = await import("node:fs");
    const { waitFor } = await import("./tmux-lab.ts");
    // The redirection creates the file before grep writes to it: wait for its content, not its existence.
    await waitFor(() => existsSync(`${out}.pane`) && readFileSync(`${out}.pane`, "utf8").trim() !== "", "the popup to run focus");
    expect(readFileSync(`${out}.pane`, "utf8").trim()).toBe("0");
    expect(JSON.parse(readFileSync(out, "utf8"))).toMatchObject({ state: "complete" });
    await waitFor(
      () => lab.seen(client).text.includes(target.marker),
      `the popup to close on the target; the client shows:\n${lab.seen(client).text}`,
    );
    expectShows(client, target);
  });

  it("with no client attached: the pane is selected, activation is reported as not possible (partial, exit 5)", async () => {
    const first = lab.newSession("solo");
    const other = lab.newWindow("solo");
    await lab.ready(first, other);
    const { code, result } = await focus(other.sessionId);
    expect(result).toMatchObject({ state: "partial", selection: { succeeded: true }, activation: { attempted: false, succeeded: false } });
    expect(code).toBe(5);
    expect(lab.tmux(lab.inner, "display-message", "-p", "-t", other.pane, "#{pane_active}#{window_active}")).toBe("11");
  });

  it("an unpinned client in a terminal it cannot raise: the client shows the pane, activation says why it is not complete", async () => {
    const first = lab.newSession("plain");
    const target = lab.newWindow("plain");
    await lab.ready(first, target);
    const client = await lab.attach("plain");
    const { result } = await focus(target.sessionId);
    expectShows(client, target);
    expect(result).toMatchObject({ state: "partial", selection: { succeeded: true }, activation: { attempted: true, succeeded: false } });
    expect(result.activation.detail).toMatch(/shows %\d+; the client's terminal is not one tongs-agents can raise/);
  });

  it("refuses a stale record instead of focusing whatever now lives in that pane", async () => {
    const agent = lab.newSession("stale");
    await lab.ready(agent);
    const client = await lab.attach("stale");
    lab.tmux(lab.inner, "respawn-pane", "-k", "-t", agent.pane, "sh -c 'echo SOMETHING-ELSE; exec sleep 600'");
    const { code, result } = await focus(agent.sessionId, { client: client.tty });
    expect(result).toMatchObject({ state: "unavailable", detail: expect.stringContaining("stale") });
    expect(code).toBe(7);
  });

  it("reports a pane that no longer exists and a tmux server that is gone (records of a live process)", async () => {
    const agent = lab.newSession("keep");
    await lab.ready(agent);
    // A live process (this test) whose record points at a dead pane, then at a dead server.
    const me = await linuxProcessSource().basics(process.pid);
    const sessionsDir = ensureStateDirs(sandbox.stateDir).sessionsDir;
    const put = (sessionId: string, tmux: string, pane: string) => {
      const id = canonicalId("claude", sessionId, processInstanceId(process.pid, me?.startToken as string));
      const now = new Date().toISOString();
      writeRecord(sessionsDir, digestOf(id) as string, {
        schema_version: 1,
        canonical_id: id,
        harness: "claude",
        session_id: sessionId,
        instance_id: processInstanceId(process.pid, me?.startToken as string),
        identity: "process",
        pid: process.pid,
        process_start: me?.startToken as string,
        cwd: "/w",
        status: "idle",
        detail: "",
        tool: "",
        sequence: null,
        arrival_sequence: 1,
        last_event: "claude.stop",
        created_at: now,
        updated_at: now,
        status_changed_at: now,
        terminal: { env: { TMUX: tmux, TMUX_PANE: pane } },
      });
    };
    put("dead-pane-session", `${lab.inner},1,0`, "%999");
    put("dead-server-session", `${sandbox.root}/no-such-server,1,0`, "%0");
    const deadPane = await focus("dead-pane-session");
    expect(deadPane.result).toMatchObject({
      state: "failed",
      located: false,
      selection: { detail: expect.stringContaining("pane %999 no longer exists") },
    });
    expect(deadPane.code).toBe(6);
    const deadServer = await focus("dead-server-session");
    expect(deadServer.result).toMatchObject({ state: "failed", selection: { detail: expect.stringContaining("is gone") } });
  });

  it("says not-found and ambiguous without guessing, and finds a session by its directory name", async () => {
    const { mkdirSync } = await import("node:fs");
    for (const dir of ["repo-one", "repo-two", "shared/app", "other/app"]) mkdirSync(`${sandbox.root}/${dir}`, { recursive: true });
    execFileSync("git", ["init", "-q", `${sandbox.root}/repo-one`]);
    const one = lab.newSession("one", { cwd: `${sandbox.root}/repo-one` });
    const appA = lab.newSession("app-a", { cwd: `${sandbox.root}/shared/app` });
    const appB = lab.newSession("app-b", { cwd: `${sandbox.root}/other/app` });
    await lab.ready(one, appA, appB);
    const client = await lab.attach("app-a");
    expect((await focus("no-such-thing")).result.state).toBe("not-found");
    const ambiguous = await focus("app");
    expect(ambiguous.result.state).toBe("ambiguous");
    expect(ambiguous.result.candidates).toHaveLength(2);
    expect(ambiguous.code).toBe(4);
    const byRepo = await focus("repo-one", { client: client.tty });
    expect(byRepo.result.state).toBe("complete");
    expectShows(client, one);
  });
});
