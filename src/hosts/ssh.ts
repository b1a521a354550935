// How a host is reached: one `ssh` argv, built in one place. Options the user already has (user, port, keys, jump
// hosts) come from their ssh config; we add only what a background reader needs: no prompts (BatchMode), a short
// connect timeout, and a shared connection (ControlMaster) in a private directory of ours, kept open briefly so a
// status line refreshing every few seconds reuses one connection instead of opening one each time.
import { lstatSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { shellCommand } from "../core/shell-quote.ts";
import type { HostEntry } from "./config.ts";

/** How long an idle shared connection stays open after its last use. */
export const CONTROL_PERSIST_SECONDS = 60;
export const CONNECT_TIMEOUT_SECONDS = 2;

/**
 * The remote command line: every word quoted, joined by spaces. The remote sshd runs it through the user's login
 * shell, so every word we send (ids, queries, the program name) is quoted.
 */
export function remoteCommand(words: readonly string[]): string {
  return shellCommand(words);
}

/** Unix socket paths are limited to ~104 bytes; ssh adds the host name (up to 32) and a temporary suffix while it binds. */
const MAX_CONTROL_DIR_LENGTH = 104 - 1 - 32 - 24;

/**
 * The directory for shared-connection sockets: ours, private (0700, owned by us, not a symlink), short enough for a
 * socket path. Undefined when none qualifies: ssh then opens a connection per call (slower, still correct).
 */
export function controlDir(env: NodeJS.ProcessEnv, stateDir: string, uid: number = process.getuid?.() ?? -1): string | undefined {
  const candidates = [
    env.XDG_RUNTIME_DIR?.startsWith("/") ? join(env.XDG_RUNTIME_DIR, "tongs-agents-ssh") : undefined,
    join(stateDir, "ssh"),
    join(tmpdir(), `tongs-agents-ssh-${uid}`),
  ];
  for (const dir of candidates) {
    if (dir === undefined || dir.length > MAX_CONTROL_DIR_LENGTH) continue;
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const stats = lstatSync(dir);
      if (stats.isDirectory() && stats.uid === uid && (stats.mode & 0o077) === 0) return dir;
    } catch {
      // not creatable here: try the next place
    }
  }
  return undefined;
}

export interface SshOptions {
  readonly controlDir: string | undefined;
  /** Allocate a terminal (for an interactive attach), else none. */
  readonly tty?: boolean;
}

/** The shared connection's socket for a host: named after the host entry (a safe name), so we can see if it exists. */
export function controlPath(dir: string, host: HostEntry): string {
  return join(dir, host.name);
}

const BASE = ["-o", "BatchMode=yes", "-o", `ConnectTimeout=${CONNECT_TIMEOUT_SECONDS}`];

/**
 * `ssh` arguments that run `words` (quoted) on the host. The destination comes after `--`, never read as an option.
 * The call only uses a shared connection (ControlMaster=no): a master started by a call whose output we read would
 * keep our pipes open for ControlPersist seconds after the command ended. `masterArgs` starts one apart.
 */
export function sshArgs(host: HostEntry, words: readonly string[], { controlDir: dir, tty = false }: SshOptions): string[] {
  const control = dir === undefined ? [] : ["-o", "ControlMaster=no", "-o", `ControlPath=${controlPath(dir, host)}`];
  return [...(tty ? ["-t"] : ["-T"]), ...BASE, ...control, "--", host.destination, remoteCommand([host.command, ...words])];
}

/** A background shared connection (no command, no terminal), kept ControlPersist seconds after its last use. */
export function masterArgs(host: HostEntry, dir: string): string[] {
  return [
    "-T",
    "-N",
    "-f",
    ...BASE,
    "-o",
    "ControlMaster=yes",
    "-o",
    `ControlPath=${controlPath(dir, host)}`,
    "-o",
    `ControlPersist=${CONTROL_PERSIST_SECONDS}`,
    "--",
    host.destination,
  ];
}
