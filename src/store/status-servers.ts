// The tmux servers that show our status segment: `status --format tmux` (what the segment runs) notes the socket of the
// server it runs for, from the TMUX variable tmux gives its status jobs, as one small file per server in
// `<state>/tmux-status/`. When an agent's state changes, the drainer asks exactly these servers to redraw their status
// lines at once (src/hook/status-refresh.ts): no faster status-interval, no guess at which servers look.
import { existsSync, lstatSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sha256Hex } from "../core/sha256.ts";
import { ensurePrivateDir } from "./paths.ts";

export const STATUS_SERVERS_DIR = "tmux-status";
/** More servers than anyone runs; past it, no more are noted (each costs a redraw per state change). */
const MAX_SERVERS = 64;
/** A socket path fits in sun_path (108 bytes). */
const MAX_SOCKET_BYTES = 107;

const fileOf = (stateDir: string, socket: string) => join(stateDir, STATUS_SERVERS_DIR, sha256Hex(socket).slice(0, 16));

/**
 * Note that the server on `socket` shows the segment. Cheap when already noted (one stat); never creates the state
 * dir (a reader must not bring back a removed one); never throws.
 */
export function noteStatusServer(stateDir: string, socket: string): void {
  try {
    if (!socket.startsWith("/") || Buffer.byteLength(socket) > MAX_SOCKET_BYTES || socket.includes("\n")) return;
    const file = fileOf(stateDir, socket);
    if (existsSync(file) || lstatSync(stateDir, { throwIfNoEntry: false }) === undefined) return;
    const dir = join(stateDir, STATUS_SERVERS_DIR);
    if (!ensurePrivateDir(dir).ok || readdirSync(dir).length >= MAX_SERVERS) return;
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, `${socket}\n`, { mode: 0o600 });
    renameSync(temp, file);
  } catch {
    // not noted: the segment still redraws at tmux's own interval
  }
}

/** The sockets noted, each once. */
export function statusServers(stateDir: string): string[] {
  const dir = join(stateDir, STATUS_SERVERS_DIR);
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => /^[0-9a-f]{16}$/.test(name));
  } catch {
    return [];
  }
  const sockets: string[] = [];
  for (const name of names) {
    try {
      const socket = readFileSync(join(dir, name), "utf8").trim();
      if (socket.startsWith("/") && fileOf(stateDir, socket).endsWith(name)) sockets.push(socket);
    } catch {
      // removed meanwhile
    }
  }
  return sockets;
}

/** The server on `socket` is gone: forget it (the segment notes it again if it comes back). */
export function forgetStatusServer(stateDir: string, socket: string): void {
  try {
    unlinkSync(fileOf(stateDir, socket));
  } catch {
    // gone already
  }
}
