// The keypress server's wire (docs/server.md): where its socket is, which verbs it answers, and the messages, one JSON
// object per line each way. The client side of this file is loaded by every served keypress, so it imports nothing
// heavy.
import { join } from "node:path";

/** Short verbs that print and return: what a key, a status line or a script runs. Nothing interactive or long. */
export const SERVED_VERBS: ReadonlySet<string> = new Set(["list", "status", "next", "focus", "show", "explain"]);

/**
 * Verbs that draw on the caller's terminal (the picker): served only when the caller's stdin and stdout are a
 * terminal, whose keys and size the client forwards. They run beside the short verbs, not after them, for as long as
 * the user keeps them open.
 */
export const TERMINAL_VERBS: ReadonlySet<string> = new Set(["pick"]);

/** `TONGS_AGENTS_SERVER=off`: never ask a server; every verb runs in its own process. */
export const SERVER_ENV = "TONGS_AGENTS_SERVER";

/**
 * Set by the shell client (bin/tongs-agents-key.sh) for the Node client it hands a verb to when the server did not
 * answer (busy past the bound, stopped, gone): run the verb here at once, not wait for the server a second time. The
 * Node client removes it before the verb runs: it is not the caller's.
 */
export const UNANSWERED_ENV = "TONGS_AGENTS_SERVER_UNANSWERED";

/** Linux's limit for a socket's path (sun_path, 108 bytes with the terminating NUL). */
export const SOCKET_PATH_MAX = 107;

export function serverDirOf(stateDir: string): string {
  return join(stateDir, "server");
}

export function socketPathOf(stateDir: string): string {
  return join(serverDirOf(stateDir), "socket");
}

/** A verb run for a client, with the client's world: its environment, directory, and what its stdout is. */
export interface VerbRequest {
  readonly build: string;
  /** The real path of the client's bin/tongs-agents.js: another build there is an upgrade of the server's install. */
  readonly install: string;
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly color: boolean;
  readonly columns: number;
  /** For a terminal verb: the caller's terminal size. */
  readonly terminal?: TerminalSize;
}

export interface TerminalSize {
  readonly columns: number;
  readonly rows: number;
}

/**
 * What the client sends after its request: `go` once the server says `ready` (unless it gave up waiting and runs the
 * verb itself: then the server never runs it); for a terminal verb, then its keys as they come (base64 bytes) and
 * each resize.
 */
export type ClientMessage = { readonly kind: "go" } | TerminalInput;
export type TerminalInput = { readonly kind: "keys"; readonly base64: string } | ({ readonly kind: "resize" } & TerminalSize);

export interface ControlRequest {
  readonly build: string;
  readonly control: "status" | "stop";
}

export type Request = VerbRequest | ControlRequest;

export interface ServerStatus {
  readonly pid: number;
  readonly build: string;
  readonly started_at: string;
  readonly served: number;
  /** Of those, how many came from the shell client (bin/tongs-agents-key.sh). */
  readonly served_shell: number;
  /** Terminal verbs open now (pickers). */
  readonly terminals: number;
  readonly rss_bytes: number;
}

/**
 * What the server says. `refused` comes before anything runs (the client runs the verb itself; `replaced`: the server
 * was of an older build of the client's own install and has stopped). `ready` says it is the verb's turn: the verb runs
 * only after the client's `go`, so a client that gave up waiting never sees it run, and a connection lost after `go`
 * is an error, never a second run.
 */
export type Reply =
  | {
      readonly kind: "refused";
      readonly reason: "build" | "verb" | "request" | "cwd";
      readonly detail: string;
      readonly replaced?: boolean;
    }
  | { readonly kind: "ready" }
  | { readonly kind: "out"; readonly text: string }
  | { readonly kind: "err"; readonly text: string }
  /** A terminal verb asks for the caller's terminal in raw mode, or back. */
  | { readonly kind: "raw"; readonly on: boolean }
  | { readonly kind: "exit"; readonly code: number }
  | { readonly kind: "status"; readonly status: ServerStatus }
  | { readonly kind: "stopping"; readonly status: ServerStatus };

/** The longest line either side accepts (a request carries the client's environment). */
export const LINE_MAX = 1 << 20;
/** Output is sent in pieces of at most this many characters: escaped as JSON (6 bytes at most each), within LINE_MAX. */
export const OUTPUT_PIECE = 64 * 1024;

/**
 * Split a stream into lines and hand each, parsed, to `onMessage`. A line that is not JSON, or longer than LINE_MAX,
 * ends the reading with `onBad`.
 */
export function readLines(stream: NodeJS.ReadableStream, onMessage: (message: unknown) => void, onBad: (detail: string) => void): void {
  let pending = "";
  let bad = false;
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    if (bad) return;
    pending += chunk;
    let newline = pending.indexOf("\n");
    while (newline >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        bad = true;
        return onBad("a line that is not JSON");
      }
      onMessage(message);
      newline = pending.indexOf("\n");
    }
    if (pending.length > LINE_MAX) {
      bad = true;
      onBad(`a line longer than ${LINE_MAX} bytes`);
    }
  });
}

/** How the CLI prints to `stdout`: colour for a terminal unless NO_COLOR, and its width. The client sends these. */
export function stdoutShape(stdout: NodeJS.WriteStream, env: NodeJS.ProcessEnv): { color: boolean; columns: number } {
  return { color: stdout.isTTY === true && !env.NO_COLOR, columns: stdout.columns ?? 120 };
}
