import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Runner } from "../core/exec.ts";
import { controlPathOf, listeningUnixInodes, parseProcNetTcp, sshClientPort } from "./ssh-port.ts";

const TCP_HEAD = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode";
const tcpRow = (local: string, remote: string, state: string, inode: number) =>
  `   0: ${local} ${remote} ${state} 00000000:00000000 00:00000000 00000000     0        0 ${inode} 1 0000000000000000 20 4 30 10 -1`;
const UNIX_HEAD = "Num       RefCount Protocol Flags    Type St Inode Path";
const unixRow = (flags: string, inode: number, path: string) => `0000000000000000: 00000002 00000000 ${flags} 0001 01 ${inode} ${path}`;

describe("parseProcNetTcp", () => {
  it("reads the local port (hex), the state and the inode of IPv4 and IPv6 rows", () => {
    const text = [
      TCP_HEAD,
      tcpRow("0A590002:C350", "0A590003:0016", "01", 111),
      tcpRow("00000000:0016", "00000000:0000", "0A", 112),
      tcpRow("0000000000000000FFFF00000A590002:D431", "0000000000000000FFFF00000A590003:0016", "01", 113),
      "garbage",
    ].join("\n");
    expect(parseProcNetTcp(text)).toEqual([
      { inode: "111", localPort: 50000, established: true },
      { inode: "112", localPort: 22, established: false },
      { inode: "113", localPort: 54321, established: true },
    ]);
  });
});

describe("listeningUnixInodes", () => {
  it("keeps listening sockets bound to exactly that path, spaces included", () => {
    const text = [
      UNIX_HEAD,
      unixRow("00010000", 7, "/home/me/.ssh/cm a"),
      unixRow("00000000", 8, "/home/me/.ssh/cm a"),
      unixRow("00010000", 9, "/home/me/.ssh/cm ab"),
      unixRow("00010000", 10, "/home/me/.ssh/cm"),
    ].join("\n");
    expect([...listeningUnixInodes(text, "/home/me/.ssh/cm a")]).toEqual(["7"]);
  });
});

describe("controlPathOf", () => {
  it.each([
    ["user me\ncontrolpath /tmp/cm/25891b0e\ncontrolmaster auto\n", "/tmp/cm/25891b0e"],
    ["controlpath none\n", undefined],
    ["user me\n", undefined],
  ])("%j", (config, path) => expect(controlPathOf(config)).toBe(path));
});

describe("sshClientPort (a fake /proc)", () => {
  let root = "";
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** A process in the fake /proc with the given socket inodes open and its namespace's tcp and unix tables. */
  function proc(pid: number, inodes: number[], tcp: string[], unix: string[] = []): void {
    mkdirSync(join(root, String(pid), "fd"), { recursive: true });
    mkdirSync(join(root, String(pid), "net"), { recursive: true });
    symlinkSync("/dev/pts/1", join(root, String(pid), "fd", "0"));
    inodes.forEach((inode, index) => symlinkSync(`socket:[${inode}]`, join(root, String(pid), "fd", String(index + 3))));
    writeFileSync(join(root, String(pid), "net", "tcp"), [TCP_HEAD, ...tcp].join("\n"));
    writeFileSync(join(root, String(pid), "net", "tcp6"), TCP_HEAD);
    writeFileSync(join(root, String(pid), "net", "unix"), [UNIX_HEAD, ...unix].join("\n"));
  }
  const setup = () => (root = mkdtempSync(join(tmpdir(), "ssh-port-")));
  const noSsh: Runner = async () => ({ ok: false, code: 255, stdout: "", stderr: "not called" });
  const sshG =
    (config: string, calls: (readonly string[])[] = []): Runner =>
    async (_file, args) => {
      calls.push(args);
      return { ok: true, code: 0, stdout: config, stderr: "" };
    };
  const CONNECTION = tcpRow("0A590002:C350", "0A590003:0016", "01", 500);
  const LISTENER = tcpRow("00000000:0016", "00000000:0000", "0A", 501);

  it("a direct connection: the one established TCP socket the ssh process holds", async () => {
    setup();
    proc(900, [500, 777], [LISTENER, CONNECTION, tcpRow("0A590002:C351", "0A590004:0016", "01", 502)]);
    const port = await sshClientPort(900, ["ssh", "-t", "b"], { run: noSsh, listProcesses: async () => [], procRoot: root });
    expect(port).toEqual({ ok: true, port: 50000, via: "ssh (pid 900)'s TCP connection" });
  });

  it("several TCP connections are not exact", async () => {
    setup();
    proc(900, [500, 502], [CONNECTION, tcpRow("0A590002:C351", "0A590004:0016", "01", 502)]);
    const port = await sshClientPort(900, ["ssh", "b"], { run: noSsh, listProcesses: async () => [], procRoot: root });
    expect(port).toEqual({ ok: false, reason: "ssh (pid 900) holds 2 TCP connections" });
  });

  it("a ControlMaster client: the master found from the control path that ssh -G gives, and its connection", async () => {
    setup();
    const path = "/tmp/cm/25891b0e";
    const unix = [unixRow("00010000", 600, path), unixRow("00000000", 601, "")];
    proc(900, [601], [CONNECTION], unix); // the pane's ssh: a mux client, its unix socket connected to the master
    proc(950, [600, 500], [CONNECTION], unix); // the master: the listener and the TCP connection
    proc(960, [602], [], unix); // another ssh
    const calls: (readonly string[])[] = [];
    const port = await sshClientPort(900, ["ssh", "-t", "b", "tmux", "attach"], {
      run: sshG(`controlpath ${path}\ncontrolmaster auto\n`, calls),
      listProcesses: async () => [
        { pid: 900, name: "ssh" },
        { pid: 950, name: "ssh" },
        { pid: 960, name: "ssh" },
      ],
      procRoot: root,
    });
    expect(calls).toEqual([["-G", "-t", "b", "tmux", "attach"]]);
    expect(port).toEqual({ ok: true, port: 50000, via: `the TCP connection of its ssh master (pid 950, ${path})` });
  });

  it("no TCP socket and no control path (a proxy or a jump host): not exact", async () => {
    setup();
    proc(900, [], []);
    const port = await sshClientPort(900, ["ssh", "-J", "jump", "b"], {
      run: sshG("controlpath none\n"),
      listProcesses: async () => [],
      procRoot: root,
    });
    expect(port).toMatchObject({ ok: false, reason: expect.stringContaining("no TCP connection and uses no control socket") });
  });

  it("a control path nobody listens on: not exact", async () => {
    setup();
    proc(900, [601], [], [unixRow("00000000", 601, "")]);
    const port = await sshClientPort(900, ["ssh", "b"], {
      run: sshG("controlpath /tmp/cm/x\n"),
      listProcesses: async () => [],
      procRoot: root,
    });
    expect(port).toEqual({ ok: false, reason: "no ssh master listens on /tmp/cm/x" });
  });
});
