// SSH hosts, live: two containers on a rootless Podman network of their own. Host B runs sshd (public-key auth only,
// a key pair made in this test) and agents in tmux: stand-ins named `claude` running the hook command line that
// `tongs-agents install --agent claude` wrote (synthetic), and the real Pi CLI with the bridge installed (live, against
// the synthetic provider inside B). Host A has its own stand-in, and a tmux client attached to B over ssh
// (`ssh -t b tmux attach`) in a pane of A's tmux, itself shown by a client attached inside an outer tmux on A, so the
// test reads what the user sees through both hops. On A: `hosts add`, `list`, `status`, `focus` and `pick` across the
// hop; the real Claude Code on B, waiting on its permission dialog, told on A (A's keypress server asking b, a webhook
// to a listener in A) and answered from A (`answer b:ID`, allow and deny);
// then B's sshd frozen (a host that hangs) and B stopped (a host that is gone).
import { randomUUID } from "node:crypto";
import { AGENTS } from "../containers/recipe.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Network, type StartedNetwork } from "testcontainers";
import { HOST_TIMEOUT_MS } from "../src/hosts/everywhere.ts";
import { shellQuote } from "../src/core/shell-quote.ts";
import { hookLogLines, jsonLines, requireImage, startBox, type Box, type Run } from "./containers.ts";
import { APPROVED_FILE, ClaudeLab, INNER as CLAUDE_INNER, PROJECT, type Pane, type SessionRecord } from "./claude-lab.ts";
import { boxVersions, createEvidence } from "./evidence.ts";
import { PI_ENV, PINNED_PI, configurePi, startProvider } from "./pi-box.ts";
import { BoxTmuxLab, INNER, prepareLab, waitUntil, type AttachedClient } from "./tmux-focus-lab.ts";

const PACKAGES = ["openssh-server", "openssh-client", "tmux", "procps", "catatonit"];
const B_PROJECT = "/work/b-project";
/** root's default state dir on A (nothing points TONGS_AGENTS_STATE_DIR elsewhere; no XDG_RUNTIME_DIR in podman exec). */
const A_STATE_DIR = "/root/.local/state/tongs-agents";
/** A's view of B: the host name, the ssh destination (B's alias on the network) and the attach command in A's pane. */
const HOST = "b";
/**
 * How much later than the documented bound a host's read may be reported on this loaded 2-core machine: the kill at
 * the bound, the process exit and the event loop turn after it.
 */
const BOUND_SLACK_MS = 1500;
/** Removes the held PermissionRequest hook's entry from the Claude Code settings file named by its argument. */
const DROP_HELD_HOOK = [
  'const fs = require("node:fs");',
  "const path = process.argv[1];",
  'const settings = JSON.parse(fs.readFileSync(path, "utf8"));',
  "settings.hooks.PermissionRequest = settings.hooks.PermissionRequest.filter(",
  '  (group) => !group.hooks.some((hook) => String(hook.command).includes(" permission-hold ")),',
  ");",
  "fs.writeFileSync(path, JSON.stringify(settings, null, 2));",
].join("\n");

/** A's notification settings: the keypress server asks each host every 2 s (default 15 s), so the suite waits little. */
const POLL_S = 2;
/** The webhook A's notifications post to: a tiny HTTP listener inside A that appends each request to a file. */
const WEBHOOK_PORT = 8799;
const WEBHOOK_FILE = "/tmp/webhook.jsonl";
const LISTENER = `const http = require("node:http"), fs = require("node:fs");
http.createServer((request, response) => {
  let body = "";
  request.on("data", (chunk) => (body += chunk));
  request.on("end", () => {
    fs.appendFileSync(${JSON.stringify(WEBHOOK_FILE)}, JSON.stringify({ type: request.headers["content-type"], body }) + "\\n");
    response.end("ok");
  });
}).listen(${WEBHOOK_PORT}, "127.0.0.1", () => fs.writeFileSync("/tmp/webhook.ready", ""));`;

interface Row {
  readonly id: string;
  readonly short_id: string;
  readonly session_id: string;
  readonly harness: string;
  readonly status: string;
  readonly host: string;
  readonly pid: number | null;
  readonly terminal: { env?: Record<string, string> };
}
interface HostReport {
  readonly host: string;
  readonly destination: string;
  readonly state: string;
  readonly detail: string;
  readonly elapsed_ms: number;
  readonly invalid_rows: number;
}
interface Listing {
  readonly sessions: Row[];
  readonly hosts?: HostReport[];
}
interface Agent {
  readonly sessionId: string;
  readonly marker: string;
  readonly pane: string;
}

const evidence = createEvidence(
  "hosts",
  "SSH hosts: two containers on a Podman network, sshd on one, list/status/focus/pick across the hop",
);
let network: StartedNetwork | undefined;
let a: Box;
let b: Box;
let labA: BoxTmuxLab;
let labB: BoxTmuxLab;
/** The user's terminal on A: a client of A's tmux, attached inside A's outer tmux. */
let viewA: AttachedClient;
/** A's pane that runs `ssh -t b tmux attach`. */
let sshPane = "";
/** The tmux client on B that A's ssh pane runs (the user's), and another one started on B itself (not over ssh). */
let sshClientB = "";
let otherB: AttachedClient;
/** The real Claude Code on B (its own tmux server), answered from A. */
let claudeB: ClaudeLab;
const local: Agent[] = [];
const remote: Agent[] = [];
const pi = { pane: "", pid: 0, sessionId: "" };
const timings: Record<string, number> = {};

async function timed<T>(label: string, fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await fn();
  } finally {
    timings[label] = Math.round(performance.now() - started);
  }
}

async function cli(box: Box, ...args: string[]): Promise<Run> {
  return box.exec(["tongs-agents", ...args]);
}

async function cliJson<T>(box: Box, ...args: string[]): Promise<{ code: number; value: T }> {
  const run = await cli(box, ...args);
  if (run.stdout.trim() === "") throw new Error(`tongs-agents ${args.join(" ")} printed nothing (exit ${run.code}): ${run.stderr}`);
  return { code: run.code, value: JSON.parse(run.stdout) as T };
}

/** A stand-in agent (a process named claude running the installed SessionStart hook) in a new window of `lab`'s server. */
async function startStandIn(lab: BoxTmuxLab, session: string, name: string): Promise<Agent> {
  const sessionId = randomUUID();
  const marker = `MARKER-${name.toUpperCase()}`;
  const pane = await lab.inner("new-window", "-d", "-t", `${session}:`, "-P", "-F", "#{pane_id}", lab.agentCommand(sessionId, marker));
  await waitUntil(async () => (await lab.capture(pane)).includes(`${marker}\nSessionStart hook exit 0`), `${name} to run its hook`, {
    explain: () => lab.capture(pane),
  });
  return { sessionId, marker, pane };
}

/** Wait until `box`'s own listing holds every session id given (the shim's worker writes records after the hook). */
async function waitForRecords(box: Box, ids: readonly string[]): Promise<Row[]> {
  let rows: Row[] = [];
  await waitUntil(
    async () => {
      rows = (await cliJson<Listing>(box, "list", "--json", "--local")).value.sessions;
      return ids.every((id) => rows.some((row) => row.session_id === id));
    },
    `records for ${ids.join(", ")}`,
    { explain: async () => JSON.stringify(rows, null, 2) },
  );
  return rows;
}

const bySession = (rows: readonly Row[], sessionId: string) => rows.find((row) => row.session_id === sessionId);

/** The pane a client of B's tmux shows (list-clients: `display -c` from outside tmux may answer for another client). */
const paneOnB = async (tty: string) => (await labB.clients()).find((client) => client.tty === tty)?.pane;

/** The pane of B's real Claude Code (its own tmux server), and its first wait, which both the notify and answer tests use. */
let claudePane: Pane;
let firstWait: SessionRecord;
/** A record of the Claude in that pane (pane ids are per tmux server: the socket is compared too). */
const inPane =
  (check: (record: SessionRecord) => boolean) =>
  (records: SessionRecord[]): SessionRecord | undefined =>
    records.find(
      (record) =>
        record.terminal.env.TMUX?.startsWith(`${CLAUDE_INNER},`) === true &&
        record.terminal.env.TMUX_PANE === claudePane.id &&
        check(record),
    );
const fileOnB = async () => (await b.exec(["test", "-e", `${PROJECT}/${APPROVED_FILE}`])).code === 0;
/** Ask B's Claude for the tool; resolves with the record once it waits on the dialog the pane shows. */
async function asks(): Promise<SessionRecord> {
  await claudeB.type(claudePane.id, "RUNTOOL now");
  await claudeB.waitForScreen(claudePane.id, (screen) => screen.includes("Do you want to proceed?"), "Claude's permission dialog on B");
  return claudeB.waitForRecord(
    "B's record waiting on the dialog",
    inPane((record) => record.status === "waiting"),
    claudePane.id,
  );
}

/** What A's webhook listener received: each body, in order. */
async function posts(): Promise<Record<string, unknown>[]> {
  const text = (await a.exec(["sh", "-c", `cat ${WEBHOOK_FILE} 2>/dev/null; true`])).stdout;
  return jsonLines(text).map((line) => JSON.parse(String(line.body)) as Record<string, unknown>);
}
/** The host watch's lines in A's notify.log. */
async function watchLog(): Promise<Record<string, unknown>[]> {
  return (await hookLogLines(a, `${A_STATE_DIR}/notify.log`)).filter((line) => line.mode === "hosts");
}
const readsOk = async () =>
  (await watchLog()).filter((line) => line.outcome === "host" && line.host === HOST && line.state === "ok").length;
/** Start A's keypress server (it asks b at once, then every POLL_S); resolves once its first read of b was ok. */
async function startServerA(): Promise<void> {
  const before = await readsOk();
  const run = await cli(a, "serve", "--detach");
  if (run.code !== 0) throw new Error(`serve --detach on A exited ${run.code}: ${run.stderr}`);
  await waitUntil(async () => (await readsOk()) > before, "A's server to read b", {
    explain: async () => JSON.stringify(await watchLog()),
  });
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("SSH hosts across two containers", { timeout: 180_000 }, () => {
  beforeAll(async () => {
    const image = await requireImage({ agents: ["pi", "claude"], extras: ["ssh"] });
    await timed("start network and containers", async () => {
      network = await new Network().start();
      const started = network;
      [a, b] = await Promise.all([
        startBox(image, { network: started, aliases: ["a"] }),
        startBox(image, { network: started, aliases: [HOST] }),
      ]);
    });
    labA = new BoxTmuxLab(a);
    labB = new BoxTmuxLab(b);
    await Promise.all([prepareLab(a), prepareLab(b)]);
    evidence.addVersions(Object.fromEntries(Object.entries(await boxVersions(b, PACKAGES)).map(([key, value]) => [`B: ${key}`, value])));
    evidence.addVersions({
      "B: pi": `${PINNED_PI.package} ${(await b.sh("pi --version")).trim()}`,
      "B: sshd": (await b.exec(["sshd", "-V"])).stderr.trim().split("\n")[0] ?? "",
      "B: claude (answered across the hop)": (await b.sh("claude --version")).trim(),
      "A: ssh": (await a.exec(["ssh", "-V"])).stderr.trim(),
      claude: `stand-in: a process named claude (node) running the installed hook command line (synthetic); the answer tests run the real Claude Code ${AGENTS.claude.version} on B`,
      "model provider": "synthetic (e2e/provider, openai-completions, 127.0.0.1 in B)",
    });
    await timed("sshd, keys and agents", async () => {
      // B: its own host keys, sshd with public keys only (no passwords, no keyboard-interactive).
      await b.sh(
        `ssh-keygen -A >/dev/null && mkdir -p /run/sshd && printf '%s\\n' "$@" > /etc/ssh/sshd_config.d/e2e.conf && /usr/sbin/sshd -E /tmp/sshd.log`,
        "PasswordAuthentication no",
        "KbdInteractiveAuthentication no",
        "PermitRootLogin prohibit-password",
        "AuthenticationMethods publickey",
      );
      // A: a key pair made here; its public half authorized on B, B's host key known to A (no trust on first use).
      const publicKey = await a.sh(
        `mkdir -p -m 700 /root/.ssh && ssh-keygen -q -t ed25519 -N '' -C hosts-e2e -f /root/.ssh/id_ed25519 && cat /root/.ssh/id_ed25519.pub`,
      );
      await b.sh(
        `mkdir -p -m 700 /root/.ssh && printf '%s\\n' "$1" > /root/.ssh/authorized_keys && chmod 600 /root/.ssh/authorized_keys`,
        publicKey.trim(),
      );
      const hostKey = (await b.sh("cat /etc/ssh/ssh_host_ed25519_key.pub")).trim().split(" ").slice(0, 2).join(" ");
      await a.sh(`printf '%s %s\\n' "$1" "$2" > /root/.ssh/known_hosts`, HOST, hostKey);

      // A: notifications from hosts, read every POLL_S, through a webhook to a listener of its own (no desktop bus here).
      await a.sh(
        `mkdir -p /root/.config/tongs-agents && printf '%s\\n' "$1" > /root/.config/tongs-agents/config.json && (node -e "$2" > /tmp/webhook.log 2>&1 < /dev/null &)`,
        JSON.stringify({ notifications: { hosts_poll_seconds: POLL_S } }),
        LISTENER,
      );
      await waitUntil(async () => (await a.exec(["test", "-e", "/tmp/webhook.ready"])).code === 0, "the webhook listener on A", {
        explain: () => a.sh("cat /tmp/webhook.log"),
      });
      const webhook = await cli(a, "notify", "webhook", "add", `http://127.0.0.1:${WEBHOOK_PORT}/hook`);
      if (webhook.code !== 0) throw new Error(`notify webhook add exited ${webhook.code}: ${webhook.stderr}`);
      // B: Claude Code's config as after onboarding (the answer tests start the real CLI there), before the installer
      // adds its hooks to the same settings file.
      claudeB = new ClaudeLab(b);
      await claudeB.seedConfig();
      for (const box of [a, b]) {
        const install = await cli(box, "install", "--agent", "claude");
        if (install.code !== 0) throw new Error(`install --agent claude exited ${install.code}: ${install.stderr}`);
      }
      // B answers by keys into its pane, the channel this suite proves across the hop: without the held
      // PermissionRequest hook (that one is proven on the host, test/live/claude-hold.test.ts; B's answer service is the same).
      const dropped = await b.exec(["sh", "-c", 'node -e "$1" "$HOME/.claude/settings.json"', "sh", DROP_HELD_HOOK]);
      if (dropped.code !== 0) throw new Error(`dropping the held hook on B exited ${dropped.code}: ${dropped.stderr}`);
      // B: a plain session the ssh'd client attaches to, two stand-ins, and Pi in a window of its own.
      await labB.inner("new-session", "-d", "-s", "home", "-x", "120", "-y", "40");
      await labB.inner("new-session", "-d", "-s", "agents", "-x", "120", "-y", "40");
      remote.push(await startStandIn(labB, "agents", "b1"), await startStandIn(labB, "agents", "b2"));
      // One provider on B for Pi and Claude Code; its tool call creates a file, so Claude Code asks first.
      const url = await startProvider(b, { slowMs: 0, toolCommand: `touch ${APPROVED_FILE}` });
      await configurePi(b, url);
      const piInstall = await cli(b, "install", "--agent", "pi");
      if (piInstall.code !== 0) throw new Error(`install --agent pi exited ${piInstall.code}: ${piInstall.stderr}`);
      await b.sh(`mkdir -p ${B_PROJECT}`);
      const env = Object.entries(PI_ENV).flatMap(([key, value]) => ["-e", `${key}=${value}`]);
      const [pane = "", pid = ""] = (
        await labB.inner("new-window", "-d", "-t", "agents:", "-c", B_PROJECT, ...env, "-P", "-F", "#{pane_id} #{pane_pid}", "exec pi")
      ).split(" ");
      Object.assign(pi, { pane, pid: Number(pid) });
      let rows: Row[] = [];
      await waitUntil(
        async () => {
          rows = (await cliJson<Listing>(b, "list", "--json", "--local")).value.sessions;
          return rows.some((row) => row.harness === "pi" && row.pid === pi.pid);
        },
        "Pi's record on B",
        { timeoutMs: 90_000, explain: async () => `${JSON.stringify(rows, null, 2)}\npane:\n${await labB.capture(pi.pane)}` },
      );
      pi.sessionId = rows.find((row) => row.harness === "pi" && row.pid === pi.pid)?.session_id ?? "";

      // A: its own stand-in, the user's terminal (a client of A's tmux inside A's outer tmux), and the ssh pane.
      await labA.inner("new-session", "-d", "-s", "local", "-x", "120", "-y", "40");
      local.push(await startStandIn(labA, "local", "a1"));
      await labA.inner("new-session", "-d", "-s", "remote", "-x", "120", "-y", "40");
      viewA = await labA.attach("local");
      const attach = ["exec", "ssh", "-t", HOST, "tmux", "-S", shellQuote(INNER), "attach", "-t", "home"].map(shellQuote).join(" ");
      sshPane = await labA.inner("new-window", "-d", "-t", "remote:", "-P", "-F", "#{pane_id}", attach);
      await waitUntil(async () => (await labB.clients()).length === 1, "the ssh'd client to attach on B", {
        explain: async () => `A's ssh pane:\n${await labA.capture(sshPane)}\nsshd log:\n${await b.sh("cat /tmp/sshd.log")}`,
      });
      sshClientB = (await labB.clients())[0]?.tty ?? "";
      // A second client of B's tmux, attached on B itself (no SSH_CONNECTION), on a session of its own, later than the
      // ssh'd one: without exact evidence, B's focus would move it (the most recently active client).
      await labB.inner("new-session", "-d", "-s", "other", "-x", "120", "-y", "40");
      otherB = await labB.attach("other");
      await waitForRecords(a, [local[0]?.sessionId ?? ""]);
      await waitForRecords(b, [...remote.map((agent) => agent.sessionId), pi.sessionId]);
    });
  }, 900_000);

  afterAll(async () => {
    try {
      await labA?.stop();
      await a?.stop();
      await b?.stop();
      await network?.stop();
    } finally {
      evidence.untested(
        "a terminal other than tmux on A holding the ssh connection (kitty, wezterm, a plain window)",
        "the local leg goes through the same focus backends as a local session; this suite runs tmux on A only",
      );
      evidence.untested("ssh through a jump host or with a user@ destination", "B is reached directly as `b`, as root");
      evidence.write();
      process.stderr.write(`hosts e2e timings (ms): ${JSON.stringify(timings)}\n`);
    }
  });

  it("B's sshd takes public keys only: the key made on A gets in, no password is asked", async ({ task }) => {
    evidence.prove(task, {
      claim: "sshd on B runs with PasswordAuthentication and KbdInteractiveAuthentication off; A's key pair logs in with BatchMode",
      kind: "live",
      how: "sshd -T on B; from A: ssh -o BatchMode=yes b true (exit 0) and the same with public keys off (Permission denied (publickey))",
    });
    const config = await b.sh(
      "sshd -T -C user=root,host=a,addr=127.0.0.1 | grep -E '^(passwordauthentication|kbdinteractiveauthentication) '",
    );
    expect(config.trim().split("\n").sort()).toEqual(["kbdinteractiveauthentication no", "passwordauthentication no"]);
    expect((await a.exec(["ssh", "-o", "BatchMode=yes", HOST, "true"])).code).toBe(0);
    const refused = await a.exec(["ssh", "-o", "BatchMode=yes", "-o", "PubkeyAuthentication=no", HOST, "true"]);
    expect(refused.code).toBe(255);
    expect(refused.stderr).toContain("Permission denied (publickey)");
  });

  it("hosts add, then list --json on A shows B's sessions with host b and A's own with host empty", async ({ task }) => {
    evidence.prove(task, {
      claim:
        '`tongs-agents hosts add b b` on A; `list --json` there lists A\'s stand-in with host "" and B\'s two stand-ins and the real Pi session with host "b", and reports b ok',
      kind: "live",
      how: "the installed CLI on A reading B over real ssh on a Podman network, the shared connection's master then running (ssh -O check); B's rows are its own `list --json --local`",
    });
    const add = await cli(a, "hosts", "add", HOST, HOST);
    expect(add.code, add.stderr).toBe(0);
    const listed = (await cliJson<{ hosts: { name: string; destination: string }[] }>(a, "hosts", "list", "--json")).value;
    expect(listed.hosts).toEqual([expect.objectContaining({ name: HOST, destination: HOST })]);
    // The first read connects on its own and starts the shared connection in the background; on this loaded machine a
    // cold connection plus the remote Node start can pass the 3 s bound, so that read may say unreachable (as a status
    // line's first refresh would). The reads after it go through the shared connection: wait (bounded) for one to say ok.
    let code = -1;
    let value: Listing = { sessions: [] };
    let reads = 0;
    await timed("list --json on A until b reads ok", () =>
      waitUntil(
        async () => {
          ({ code, value } = await cliJson<Listing>(a, "list", "--json"));
          reads++;
          return value.hosts?.[0]?.state === "ok";
        },
        "b to read as ok",
        { timeoutMs: 90_000, explain: async () => JSON.stringify(value.hosts) },
      ),
    );
    timings["reads until b ok"] = reads;
    expect(code).toBe(0);
    expect(value.hosts).toEqual([expect.objectContaining({ host: HOST, destination: HOST, state: "ok", invalid_rows: 0 })]);
    expect(bySession(value.sessions, local[0]?.sessionId ?? "")).toMatchObject({ host: "", harness: "claude" });
    for (const agent of remote) expect(bySession(value.sessions, agent.sessionId)).toMatchObject({ host: HOST, harness: "claude" });
    expect(bySession(value.sessions, pi.sessionId)).toMatchObject({ host: HOST, harness: "pi", pid: pi.pid });
    expect(value.sessions.filter((row) => row.host === HOST)).toHaveLength(3);
    expect(value.sessions.filter((row) => row.host === "")).toHaveLength(1);
    // The shared connection's master runs, and a read through it is timed.
    const control = ["-o", `ControlPath=${A_STATE_DIR}/ssh/${HOST}`, "-O", "check", HOST];
    await waitUntil(async () => (await a.exec(["ssh", ...control])).code === 0, "the shared connection's master on A", {
      explain: async () => JSON.stringify(await a.exec(["ssh", ...control])),
    });
    await timed("list --json on A (second, shared connection)", () => cliJson<Listing>(a, "list", "--json"));
    const plain = await cli(a, "list");
    const piRow = bySession(value.sessions, pi.sessionId) as Row;
    expect(plain.stdout).toContain(`${HOST}:${piRow.short_id}`);
  });

  it("status on A adds B's counts", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "`status --format json` on A counts A's and B's sessions together (4) and reports b ok; the plain form has no unreachable host",
      kind: "live",
      how: "the installed CLI on A; B's counts are its own `status --format json --local` over ssh",
    });
    const { value } = await timed("status --format json on A", () =>
      cliJson<{ total: number; hosts: HostReport[] }>(a, "status", "--format", "json"),
    );
    expect(value.total).toBe(4);
    expect(value.hosts).toEqual([expect.objectContaining({ host: HOST, state: "ok" })]);
    expect((await cli(a, "status")).stdout).not.toContain("unreachable");
  });

  it("focus of B's stand-in on A brings A's ssh pane forward and lands the ssh'd client (not B's other client) on B's exact pane", async ({
    task,
  }) => {
    evidence.prove(task, {
      claim:
        "`tongs-agents focus b:<short id> --client <A's client>` on A: the local leg finds the ssh process (`ssh -t b tmux … attach`), selects its tmux pane on A's client and reads the client port of its TCP connection (/proc/PID/fd → /proc/PID/net/tcp); the remote leg runs `focus --ssh-from PORT` on B, which picks the tmux client whose SSH_CONNECTION came from that port and switches it to the session's exact pane, while B's other client (attached on B itself, most recently active) stays where it was; the result reports both levels: complete (the host's own state is partial: it cannot raise its client's terminal, the ssh session, which is the local leg's part)",
      kind: "live",
      how: "control first: B's own `focus --local` without the port moves the other client (then put back); list-clients on B for the pane each client shows; the ssh'd client's SSH_CONNECTION in /proc/PID/environ on B equals the port A sent; A's list-clients for its client's pane; A's outer pane shows B's agent marker (what the user sees through both hops)",
    });
    const target = remote[1] as Agent;
    const row = bySession((await cliJson<Listing>(a, "list", "--json")).value.sessions, target.sessionId) as Row;
    expect(await labA.paneOf(viewA)).not.toBe(sshPane);
    expect(await paneOnB(sshClientB)).not.toBe(target.pane);
    const otherPane = await paneOnB(otherB.tty);
    // The other client is the most recently active one: a key typed on it (into its own session's shell). The control:
    // B's own focus without the connection's port moves that client, not the ssh'd one. Then it is put back.
    await labB.text(otherB, "#");
    const control = await cli(b, "focus", "--json", "--local", "--", row.id);
    expect(await paneOnB(otherB.tty), control.stdout).toBe(target.pane);
    expect(await paneOnB(sshClientB)).not.toBe(target.pane);
    await labB.inner("switch-client", "-c", otherB.tty, "-t", otherPane ?? "other");
    expect(await paneOnB(otherB.tty)).toBe(otherPane);
    await labB.text(otherB, "#");
    const { code, value } = await timed("focus across the hop", () =>
      cliJson<{
        state: string;
        host: string;
        local: { state: string; ssh_pid: number | null; ssh_port: { ok: boolean; port?: number } };
        remote: { state: string; target: string; client: { state: string; tty: string } };
      }>(a, "focus", `${HOST}:${row.short_id}`, "--json", "--client", viewA.tty),
    );
    expect(value, JSON.stringify(value, null, 2)).toMatchObject({
      state: "complete",
      host: HOST,
      local: { state: "complete" },
      remote: { selected: true, client: { state: "matched", tty: sshClientB } },
    });
    expect(code).toBe(0);
    expect(value.local.ssh_pid).toBe(Number(await labA.inner("display-message", "-p", "-t", sshPane, "#{pane_pid}")));
    // The port A read from its ssh process's socket is the one B's sshd gave the ssh'd client's login.
    const clientPid = (await labB.inner("list-clients", "-F", "#{client_tty} #{client_pid}"))
      .split("\n")
      .find((line) => line.startsWith(`${sshClientB} `))
      ?.split(" ")[1];
    const sshConnection = await b.sh(`tr '\\0' '\\n' < /proc/"$1"/environ | sed -n 's/^SSH_CONNECTION=//p'`, clientPid ?? "");
    expect(sshConnection.split(" ")[1]).toBe(String(value.local.ssh_port.port));
    expect(await paneOnB(sshClientB)).toBe(target.pane);
    expect(await paneOnB(otherB.tty)).toBe(otherPane);
    expect(await labA.paneOf(viewA)).toBe(sshPane);
    await waitUntil(async () => (await labA.seen(viewA)).text.includes(target.marker), "A's terminal to show B's agent", {
      explain: async () => (await labA.seen(viewA)).text,
    });
  });

  it("focus of the real Pi session on B lands the ssh'd client on Pi's pane", async ({ task }) => {
    evidence.prove(task, {
      claim: "`tongs-agents focus b:<pi short id>` on A lands B's ssh'd client on the real Pi's pane (both levels complete)",
      kind: "live",
      how: `Pi ${PINNED_PI.version} in a window of B's tmux; tmux display -p -c <client> on B`,
    });
    const row = bySession((await cliJson<Listing>(a, "list", "--json")).value.sessions, pi.sessionId) as Row;
    const { value } = await cliJson<{ state: string }>(a, "focus", `${HOST}:${row.short_id}`, "--json", "--client", viewA.tty);
    expect(value).toMatchObject({ state: "complete" });
    expect(await paneOnB(sshClientB)).toBe(pi.pane);
  });

  it("the picker on A, in a pane of A's tmux: B's rows join A's own with host b, and Enter on B's stand-in lands A's client on B's exact pane", async ({
    task,
  }) => {
    evidence.prove(task, {
      claim:
        "`tongs-agents pick --client <A's client>` in a pane of A's tmux, shown by that client (as the popup binding passes #{client_tty}): B's rows appear with host b beside A's own row; typing B's stand-in's session id leaves one row; Enter focuses it across the hop (A's ssh pane brought forward, B's ssh'd client on the stand-in's exact pane) and the picker exits 0",
      kind: "live",
      how: "capture-pane of the picker's pane on A, polled; keys typed with send-keys into that pane; tmux display -p -c <client> on B; A's list-clients for its client's pane; A's outer pane shows B's agent marker",
    });
    const target = remote[0] as Agent;
    // Start from elsewhere on both machines: B's client on its plain session, A's client on the picker's pane.
    await labB.inner("switch-client", "-c", sshClientB, "-t", "home");
    expect(await paneOnB(sshClientB)).not.toBe(target.pane);
    const pick = `tongs-agents pick --client ${shellQuote(viewA.tty)}; echo "pick exited $?"; exec sleep 3600`;
    const started = performance.now();
    const pickPane = await labA.inner("new-session", "-d", "-s", "pick", "-x", "120", "-y", "40", "-P", "-F", "#{pane_id}", pick);
    await labA.inner("switch-client", "-c", viewA.tty, "-t", "pick");
    expect(await labA.paneOf(viewA)).toBe(pickPane);

    // The picker's rows (number, selection mark, glyph, label, then the host column): B's carry `b`, A's an empty host.
    const rows = async () => (await labA.capture(pickPane)).split("\n").filter((line) => /^[1-9 ][ >]\S \S+ /.test(line));
    const fromB = /^[1-9 ][ >]\S \S+\s+b\s+(claude|pi)\s/;
    const fromA = /^[1-9 ][ >]\S \S+\s+claude\s/;
    await waitUntil(
      async () => {
        const shown = await rows();
        return shown.filter((line) => fromB.test(line)).length === 3 && shown.filter((line) => fromA.test(line)).length === 1;
      },
      "B's three rows with host b beside A's own row in the picker",
      { explain: () => labA.capture(pickPane) },
    );
    timings["pick on A: B's rows shown"] = Math.round(performance.now() - started);

    await labA.inner("send-keys", "-t", pickPane, "-l", target.sessionId);
    await waitUntil(
      async () => {
        const shown = await rows();
        return shown.length === 1 && fromB.test(shown[0] ?? "");
      },
      "the filter to leave B's stand-in alone",
      { explain: () => labA.capture(pickPane) },
    );
    const entered = performance.now();
    await labA.inner("send-keys", "-t", pickPane, "Enter");
    let screen = "";
    await waitUntil(async () => /pick exited \d+/.test((screen = await labA.capture(pickPane))), "the picker to exit after Enter", {
      explain: async () => screen,
    });
    timings["pick on A: Enter to exit (focus across the hop)"] = Math.round(performance.now() - entered);
    expect(screen.match(/pick exited (\d+)/)?.[1], screen).toBe("0");
    expect(await paneOnB(sshClientB)).toBe(target.pane);
    expect(await labA.paneOf(viewA)).toBe(sshPane);
    await waitUntil(async () => (await labA.seen(viewA)).text.includes(target.marker), "A's terminal to show B's agent", {
      explain: async () => (await labA.seen(viewA)).text,
    });
  });

  it("explain on A for a session on B: B's own explanation, its session tagged with host b", async ({ task }) => {
    evidence.prove(task, {
      claim:
        "`explain --json b:<short id>` on A returns B's explanation of its stand-in (the same open waits and events B's own `explain --json --local` gives) with the session's host b; the text form starts with `host: b (b)`",
      kind: "live",
      how: "the installed CLI on A over real ssh; B answers with its own `explain --json --local -- QUERY`, compared with the same command run on B directly",
    });
    const target = remote[1] as Agent;
    const row = bySession((await cliJson<Listing>(a, "list", "--json")).value.sessions, target.sessionId) as Row;
    interface Explained {
      readonly session: Row;
      readonly pending: unknown[];
      readonly entries: { event: string; source: string }[];
    }
    const across = await timed("explain b:ID --json on A", () => cliJson<Explained>(a, "explain", "--json", `${HOST}:${row.short_id}`));
    expect(across.code).toBe(0);
    expect(across.value.session).toMatchObject({ id: row.id, host: HOST, session_id: target.sessionId, harness: "claude" });
    const own = (await cliJson<Explained>(b, "explain", "--json", "--local", "--", row.id)).value;
    expect(across.value.entries.length).toBeGreaterThan(0);
    expect(across.value.entries).toEqual(own.entries);
    expect(across.value.pending).toEqual(own.pending);
    expect((await cli(a, "explain", `${HOST}:${row.short_id}`)).stdout).toMatch(new RegExp(`^host: ${HOST} \\(${HOST}\\)\n`));
  });

  it("show and wait on A for a session on B: B's own answer, named b; wait times out while it runs and returns once it ended", async ({
    task,
  }) => {
    evidence.prove(task, {
      claim:
        "`show b:<short id> --json` on A prints B's stand-in with host b (text form: `host: b (b)`); `wait b:<id> --until ended --timeout 3` exits 8 while it runs; after its pane is killed on B, the same wait exits 0 with the session ended",
      kind: "live",
      how: "the installed CLI on A over real ssh; B answers with its own `show --json --local -- QUERY` (a liveness check there ends the record of the killed stand-in)",
    });
    const target = remote[0] as Agent;
    const row = bySession((await cliJson<Listing>(a, "list", "--json")).value.sessions, target.sessionId) as Row;
    const shown = await timed("show b:ID --json on A", () => cliJson<Row>(a, "show", "--json", `${HOST}:${row.short_id}`));
    expect(shown.code).toBe(0);
    expect(shown.value).toMatchObject({ id: row.id, host: HOST, session_id: target.sessionId, harness: "claude" });
    expect((await cli(a, "show", `${HOST}:${row.short_id}`)).stdout).toMatch(new RegExp(`^host: ${HOST} \\(${HOST}\\)\n`));
    const running = await timed("wait b:ID --timeout 3 on A (times out)", () =>
      cliJson<{ reason: string; session: Row }>(a, "wait", "--json", `${HOST}:${row.id}`, "--until", "ended", "--timeout", "3"),
    );
    expect(running.code).toBe(8);
    expect(running.value).toMatchObject({ reason: "timeout", session: { host: HOST } });
    await labB.inner("kill-pane", "-t", target.pane);
    const ended = await timed("wait b:ID --until ended on A (after the kill)", () =>
      cliJson<{ outcome: string; session: Row }>(a, "wait", "--json", `${HOST}:${row.id}`, "--until", "ended", "--timeout", "60"),
    );
    expect(ended.code, JSON.stringify(ended.value)).toBe(0);
    expect(ended.value).toMatchObject({ outcome: "reached", session: { host: HOST, status: "ended" } });
  });

  it("notified on A: B's Claude Code starting to wait posts one webhook on A (A's keypress server asking b), never again for that change, not after a restart", async ({
    task,
  }) => {
    evidence.prove(task, {
      claim: `A's keypress server (\`serve --detach\`, \`hosts_poll_seconds: ${POLL_S}\`) asks b for its changes over ssh (\`notify changes --json\` there); the real Claude Code ${AGENTS.claude.version} on B starting to wait on its permission dialog posts exactly one webhook on A ({host: b, session: its id, agent: Claude Code, state: waiting}); reads after it, and a restarted server (its marks kept in A's state dir), post nothing more for that change; B's sessions in states that do not notify (started, idle) post nothing`,
      kind: "live",
      how: `a listener on 127.0.0.1:${WEBHOOK_PORT} inside A records each POST; A's notify.log (mode hosts) shows each read of b that found it reachable and each delivery (webhook delivered, desktop unavailable: no bus in the container)`,
    });
    claudePane = await claudeB.openPane("answer");
    await timed("Claude Code on B: start to its input prompt", () => claudeB.launchClaude(claudePane.id));
    await claudeB.waitForRecord(
      "Claude's record on B",
      inPane(() => true),
      claudePane.id,
    );
    await timed("serve --detach on A until its first read of b", startServerA);
    expect(await posts()).toEqual([]);

    firstWait = await asks();
    const waited = performance.now();
    await waitUntil(async () => (await posts()).length > 0, "the webhook on A for B's waiting Claude", {
      timeoutMs: 30_000,
      explain: async () => JSON.stringify(await watchLog(), null, 1),
    });
    timings["B waiting -> webhook on A"] = Math.round(performance.now() - waited);
    const [post] = await posts();
    expect(post).toMatchObject({ host: HOST, session: firstWait.id, agent: "Claude Code", state: "waiting", directory: PROJECT });
    expect(String(post?.detail)).toContain("Bash");
    const delivered = (await watchLog()).filter((line) => line.outcome === "delivered");
    expect(delivered).toEqual([
      expect.objectContaining({
        host: HOST,
        sessions: [`${HOST}:${firstWait.id}`],
        deliveries: expect.arrayContaining([expect.objectContaining({ channel: "webhook", outcome: "delivered" })]),
      }),
    ]);

    // The same change, read again and again, and by a restarted server: nothing more.
    const readsBefore = await readsOk();
    const stopped = await cli(a, "serve", "--stop");
    expect(stopped.code, stopped.stderr).toBe(0);
    await startServerA();
    expect(await readsOk()).toBe(readsBefore + 1);
    await sleep(3 * POLL_S * 1000);
    expect(await posts()).toHaveLength(1);
    expect((await watchLog()).filter((line) => line.outcome === "delivered")).toHaveLength(1);
    expect((await claudeB.records()).find((record) => record.id === firstWait.id)?.status).toBe("waiting");
  });

  it("answer on A for the real Claude Code on B: show lists its dialog's replies, allow runs the tool, a refusal comes back named b, deny does not run it", async ({
    task,
  }) => {
    evidence.prove(task, {
      claim: `\`tongs-agents answer b:<short id> …\` on A, answered by B's own tongs-agents over ssh, against the real Claude Code ${AGENTS.claude.version} waiting on its Bash permission dialog in B's tmux: \`show --json\` gives the wait (permission, Bash) and the dialog's options with their replies (allow, always, only by number, deny); \`allow --wait <id>\` presses 1 (Yes) in B's pane, the command's file appears on B and B's record goes waiting -> running -> idle; \`allow\` again is refused (exit 10, \`on b: nothing to answer: … is idle\`); after /clear, a new request answered \`deny\` presses 4 (No): Claude says it did not run and the file is not made; \`explain\` names each answer (source answer: B's own for the allow, \`explain b:<id>\` on A for the deny)`,
      kind: "live",
      how: `Claude Code ${AGENTS.claude.version} typed into a bash pane of its own tmux server on B ("default" permission mode, hooks from \`tongs-agents install --agent claude\`), the synthetic Anthropic Messages provider on 127.0.0.1 in B asking to run \`touch ${APPROVED_FILE}\`; the installed CLI on A over real ssh; B's own \`list\` and \`explain --json --local\`; capture-pane of B's pane`,
    });
    interface Shown {
      readonly ok: boolean;
      readonly host: string;
      readonly harness: string;
      readonly target: string;
      readonly wait: { id: string; kind: string; tool: string };
      readonly dialog: { title: string; options: { number: number; label: string; reply?: string | null }[] };
    }
    interface Explained {
      readonly entries: { source: string; event: string; status: string; change: string }[];
    }

    evidence.prove(task, {
      claim:
        "not for the pane being looked at, across the hop: with a tmux client on B showing Claude's pane (its active pane, focus-events off), B's next wait is left out by A's keypress server (notify.log: `b:<id>: %N is the active pane of client /dev/pts/N`, B's own survey) and posts no webhook on A; the allowed turn's running and idle post nothing either",
      kind: "live",
      how: "a client of Claude's tmux server attached on B inside an outer tmux there; A's notify.log (mode hosts) and the listener's requests",
    });
    // Allow: show, then the reply tied to the wait shown (the wait the notify test saw open).
    const first = firstWait;
    const pane = claudePane;
    const query = `${HOST}:${first.short_id}`;
    const shown = await timed("answer b:ID show --json on A", () => cliJson<Shown>(a, "answer", query, "show", "--json"));
    expect(shown.code, JSON.stringify(shown.value)).toBe(0);
    expect(shown.value).toMatchObject({
      ok: true,
      host: HOST,
      harness: "claude",
      wait: { kind: "permission", tool: "Bash" },
      dialog: { title: "Do you want to proceed?" },
    });
    expect(shown.value.dialog.options.map((option) => option.reply ?? null)).toEqual(["allow", "always", null, "deny"]);
    const shownText = await cli(a, "answer", query, "show");
    expect(shownText.stdout).toContain(`channel: keys into ${HOST}: tmux pane ${pane.id}`);
    expect(shownText.stdout).toContain("allow = 1. Yes");
    expect(await fileOnB()).toBe(false);
    const allowed = await timed("answer b:ID allow on A", () => cli(a, "answer", query, "allow", "--wait", shown.value.wait.id));
    expect(allowed.stderr).toBe("");
    expect(allowed.code).toBe(0);
    expect(allowed.stdout.trim()).toMatch(
      new RegExp(`^answered allow: pressed 1 \\(Yes\\) in ${HOST}: tmux pane ${pane.id} .*; the dialog closed$`),
    );
    await waitUntil(fileOnB, "the allowed command's file on B", { explain: () => claudeB.capture(pane.id) });
    await claudeB.waitForRecord(
      "B's record idle after the allowed turn",
      inPane((record) => record.id === first.id && record.status === "idle" && record.last_event === "claude.stop"),
      pane.id,
    );
    const afterAllow = (await cliJson<Explained>(b, "explain", "--json", "--local", "--", first.id)).value.entries;
    // B's own events from the permission request on: waiting, then running (the tool ran), then idle.
    const hookEntries = afterAllow.filter((entry) => entry.source !== "answer");
    const opened = hookEntries.findLastIndex((entry) => entry.event === "claude.permission-request");
    const statuses = hookEntries.slice(opened).map((entry) => entry.status);
    expect(statuses.filter((status, index) => status !== statuses[index - 1])).toEqual(["waiting", "running", "idle"]);
    expect(afterAllow.filter((entry) => entry.source === "answer").map((entry) => entry.change)).toEqual([
      `tongs-agents answer answered wait ${shown.value.wait.id}: allow, option 1 (keys)`,
    ]);

    // Nothing to answer now: B's refusal, named with the host, and nothing typed into the pane.
    const refused = await timed("answer b:ID allow on A, refused", () => cli(a, "answer", query, "allow"));
    expect(refused).toMatchObject({ code: 10, stdout: "" });
    expect(refused.stderr.trim()).toBe(`tongs-agents: on ${HOST}: nothing to answer: ${first.short_id} is idle`);

    // Deny: a new request after /clear (a new session, so a new record), answered without show. This time a tmux client
    // on B shows Claude's pane (its active pane; focus-events off): the user is looking at it there, so A is not told.
    const looking = await claudeB.attachClient();
    expect((await claudeB.clients()).find((client) => client.tty === looking)?.pane).toBe(pane.id);
    await b.sh(`rm -f "$1"`, `${PROJECT}/${APPROVED_FILE}`);
    await claudeB.type(pane.id, "/clear");
    await claudeB.waitForScreen(pane.id, (screen) => !screen.includes("RUNTOOL now"), "a cleared conversation on B");
    const second = await asks();
    const lookedAt = `${HOST}:${second.short_id}: ${pane.id} is the active pane of client ${looking}`;
    await waitUntil(
      async () => (await watchLog()).some((line) => line.outcome === "nothing" && JSON.stringify(line.skipped).includes(lookedAt)),
      "A's server to leave out the wait B's client shows",
      { timeoutMs: 30_000, explain: async () => JSON.stringify(await watchLog(), null, 1) },
    );
    expect(second.id).not.toBe(first.id);
    const denied = await timed("answer b:ID deny on A", () => cli(a, "answer", `${HOST}:${second.short_id}`, "deny"));
    expect(denied.stderr).toBe("");
    expect(denied.code).toBe(0);
    expect(denied.stdout.trim()).toMatch(
      new RegExp(`^answered deny: pressed 4 \\(No\\) in ${HOST}: tmux pane ${pane.id} .*; the dialog closed$`),
    );
    await claudeB.waitForScreen(
      pane.id,
      (screen) => screen.includes("Did not run") || screen.includes("Interrupted"),
      "Claude on B saying the command did not run",
    );
    const afterDeny = (await cliJson<Explained>(a, "explain", "--json", `${HOST}:${second.short_id}`)).value.entries;
    expect(afterDeny.filter((entry) => entry.source === "answer").map((entry) => entry.change)).toEqual([
      expect.stringMatching(/^tongs-agents answer answered wait [0-9a-f]{12}: deny, option 4 \(keys\)$/),
    ]);
    expect(await fileOnB()).toBe(false);

    // On A: still the first wait's one webhook; nothing for the allowed turn's running and idle, nor the looked-at wait.
    await sleep(2 * POLL_S * 1000);
    expect((await posts()).map((post) => [post.session, post.state])).toEqual([[first.id, "waiting"]]);
    expect((await cli(a, "serve", "--stop")).code).toBe(0);
  });

  it("a host that hangs (B's sshd frozen): list on A still lists A's sessions and reports b unreachable within the bound", async ({
    task,
  }) => {
    evidence.prove(task, {
      claim: `with every sshd process on B stopped (SIGSTOP), \`list --json\` on A returns A's own session and b unreachable, its read ending within the documented ${HOST_TIMEOUT_MS} ms bound (+${BOUND_SLACK_MS} ms slack)`,
      kind: "live",
      how: "kill -STOP on B's sshd PIDs (the listener and the session processes of A's shared connection); the host report's elapsed_ms and the command's wall time",
    });
    const pids = (await b.sh("ps -C sshd -o pid=")).trim().split(/\s+/);
    await b.exec(["kill", "-STOP", ...pids]);
    try {
      const started = performance.now();
      const { value } = await cliJson<Listing>(a, "list", "--json");
      timings["list --json on A, b hanging"] = Math.round(performance.now() - started);
      expect(bySession(value.sessions, local[0]?.sessionId ?? "")).toMatchObject({ host: "" });
      expect(value.sessions.filter((row) => row.host === HOST)).toEqual([]);
      const report = value.hosts?.[0];
      expect(report).toMatchObject({ host: HOST, state: "unreachable" });
      timings["b's read, hanging (elapsed_ms)"] = report?.elapsed_ms ?? -1;
      expect(report?.elapsed_ms).toBeLessThanOrEqual(HOST_TIMEOUT_MS + BOUND_SLACK_MS);
    } finally {
      await b.exec(["kill", "-CONT", ...pids]);
    }
  });

  it("a host that is gone (B stopped): list and status on A report b unreachable within the bound", async ({ task }) => {
    evidence.prove(task, {
      claim: `with container B stopped, \`list --json\` on A lists A's own session and b unreachable within ${HOST_TIMEOUT_MS} ms (+${BOUND_SLACK_MS} ms slack); \`status\` names b unreachable`,
      kind: "live",
      how: "B stopped through the container API; the host report (state, detail, elapsed_ms); status plain output",
    });
    await b.stop();
    const { value } = await timed("list --json on A, b gone", () => cliJson<Listing>(a, "list", "--json"));
    expect(bySession(value.sessions, local[0]?.sessionId ?? "")).toMatchObject({ host: "" });
    expect(value.sessions.filter((row) => row.host === HOST)).toEqual([]);
    const report = value.hosts?.[0];
    expect(report).toMatchObject({ host: HOST, state: "unreachable" });
    timings["b's read, gone (elapsed_ms)"] = report?.elapsed_ms ?? -1;
    expect(report?.elapsed_ms).toBeLessThanOrEqual(HOST_TIMEOUT_MS + BOUND_SLACK_MS);
    const status = await cli(a, "status");
    expect(status.stdout).toContain(`unreachable: ${HOST}`);
  });
});
