// What the host sees of the user's ssh connection: its client port. The host's sshd puts it in SSH_CONNECTION of every
// process of that login (`client-ip client-port server-ip server-port`), so it tells which tmux client on the host is
// the user's (src/hosts/ssh-client.ts). Read from exact evidence only: the TCP socket the ssh process holds (its
// socket inode in /proc/PID/fd, looked up in /proc/PID/net/tcp{,6}); for a multiplexed session (the pane's ssh is a
// ControlMaster client with no TCP socket of its own), the master's, found from the control socket's path that
// `ssh -G` gives for the same arguments. Anything else (a ProxyJump, several connections) is not exact: no port.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import type { Runner } from "../core/exec.ts";
import type { ListProcesses } from "../core/process-table.ts";

export type SshPort = { readonly ok: true; readonly port: number; readonly via: string } | { readonly ok: false; readonly reason: string };

interface TcpRow {
  readonly inode: string;
  readonly localPort: number;
  readonly established: boolean;
}

/** The rows of /proc/net/tcp or tcp6: local port, state (01 = established) and socket inode, by column position. */
export function parseProcNetTcp(text: string): TcpRow[] {
  const rows: TcpRow[] = [];
  for (const line of text.split("\n").slice(1)) {
    const fields = line.trim().split(/\s+/);
    const local = fields[1];
    const inode = fields[9];
    if (local === undefined || inode === undefined || !/^\d+$/.test(inode)) continue;
    const port = Number.parseInt(local.slice(local.lastIndexOf(":") + 1), 16);
    if (Number.isInteger(port) && port > 0) rows.push({ inode, localPort: port, established: fields[3] === "01" });
  }
  return rows;
}

/** The inodes of the listening unix sockets bound to `path`, from /proc/net/unix (the path is the last column). */
export function listeningUnixInodes(text: string, path: string): Set<string> {
  const found = new Set<string>();
  for (const line of text.split("\n").slice(1)) {
    const fields = line.trim().split(/\s+/);
    // Num RefCount Protocol Flags Type St Inode Path; the path may hold spaces, so it is the rest of the line.
    if (fields.length < 8 || fields[3] !== "00010000") continue;
    if (fields.slice(7).join(" ") === path && fields[6] !== undefined) found.add(fields[6]);
  }
  return found;
}

const read = (path: string): string | undefined => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
};

/** The socket inodes among a process's open files (`socket:[INODE]` links). */
export function socketInodes(pid: number, procRoot = "/proc"): Set<string> {
  const inodes = new Set<string>();
  let fds: string[];
  try {
    fds = readdirSync(`${procRoot}/${pid}/fd`);
  } catch {
    return inodes;
  }
  for (const fd of fds) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`${procRoot}/${pid}/fd/${fd}`));
      if (match?.[1]) inodes.add(match[1]);
    } catch {
      // closed meanwhile
    }
  }
  return inodes;
}

/** The local ports of the established TCP connections this process holds (in its own network namespace). */
export function tcpPortsOf(pid: number, procRoot = "/proc"): number[] {
  const inodes = socketInodes(pid, procRoot);
  if (inodes.size === 0) return [];
  const rows = ["tcp", "tcp6"].flatMap((file) => parseProcNetTcp(read(`${procRoot}/${pid}/net/${file}`) ?? ""));
  return rows.filter((row) => row.established && inodes.has(row.inode)).map((row) => row.localPort);
}

/** `controlpath` from `ssh -G` output; undefined for `none` or when absent. */
export function controlPathOf(config: string): string | undefined {
  const line = config.split("\n").find((entry) => entry.startsWith("controlpath "));
  const path = line?.slice("controlpath ".length).trim();
  return path && path !== "none" ? path : undefined;
}

export interface SshPortWorld {
  readonly run: Runner;
  readonly listProcesses: ListProcesses;
  readonly procRoot?: string;
}

/** The client port the host sees for the ssh process `pid` running `argv`, or why it cannot be told exactly. */
export async function sshClientPort(pid: number, argv: readonly string[], world: SshPortWorld): Promise<SshPort> {
  const { procRoot = "/proc" } = world;
  const own = tcpPortsOf(pid, procRoot);
  if (own.length === 1) return { ok: true, port: own[0] as number, via: `ssh (pid ${pid})'s TCP connection` };
  if (own.length > 1) return { ok: false, reason: `ssh (pid ${pid}) holds ${own.length} TCP connections` };
  // No TCP socket: a ControlMaster client (or a proxied connection). ssh itself says where its control socket is.
  const config = await world.run("ssh", ["-G", ...argv.slice(1)], { timeoutMs: 1000 });
  const path = config.ok ? controlPathOf(config.stdout) : undefined;
  if (path === undefined)
    return { ok: false, reason: `ssh (pid ${pid}) holds no TCP connection and uses no control socket (a proxy or jump host?)` };
  const listening = listeningUnixInodes(read(`${procRoot}/${pid}/net/unix`) ?? "", path);
  if (listening.size === 0) return { ok: false, reason: `no ssh master listens on ${path}` };
  const masters: number[] = [];
  for (const listed of await world.listProcesses()) {
    if (listed.name !== "ssh" || listed.pid === pid) continue;
    if ([...socketInodes(listed.pid, procRoot)].some((inode) => listening.has(inode))) masters.push(listed.pid);
  }
  if (masters.length !== 1) return { ok: false, reason: `${masters.length} ssh processes hold the control socket ${path}` };
  const master = masters[0] as number;
  const ports = tcpPortsOf(master, procRoot);
  if (ports.length !== 1) return { ok: false, reason: `the ssh master (pid ${master}) holds ${ports.length} TCP connections` };
  return { ok: true, port: ports[0] as number, via: `the TCP connection of its ssh master (pid ${master}, ${path})` };
}
