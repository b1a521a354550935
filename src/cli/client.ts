// What bin/tongs-agents.js runs first (bundled to dist/cli/client.cjs, kept small): a verb the keypress server answers
// goes to it when one is running (src/server/, docs/server.md); anything else, or any server that does not take the
// verb, and the CLI runs in this process as it always did (`runHere`).
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { checkPrivateDir, resolveStateDir } from "../store/paths.ts";
import { BUILD } from "../core/version.ts";
import { askServer, CLIENT_BOUNDS, type ClientTerminal } from "../server/client.ts";
import { SERVED_VERBS, SERVER_ENV, serverDirOf, socketPathOf, stdoutShape, TERMINAL_VERBS, UNANSWERED_ENV } from "../server/protocol.ts";

export function main(runHere: () => void): void {
  const argv = process.argv.slice(2);
  const env = process.env;
  if (env[UNANSWERED_ENV] !== undefined) {
    delete env[UNANSWERED_ENV];
    return runHere();
  }
  const verb = argv[0] ?? "";
  // A terminal verb (the picker) is served only on a terminal: elsewhere it says it needs one, in this process.
  const onTerminal = TERMINAL_VERBS.has(verb) && process.stdin.isTTY && process.stdout.isTTY;
  // `list --watch` stays on the terminal it draws on for as long as the user keeps it: it is not a short verb.
  const watching = argv.includes("--watch");
  if (!(SERVED_VERBS.has(verb) || onTerminal) || watching || env[SERVER_ENV] === "off") return runHere();
  const stateDir = resolveStateDir(env);
  // A socket is only trusted in private directories of ours: the request carries this process's environment.
  if (!checkPrivateDir(stateDir).ok || !checkPrivateDir(serverDirOf(stateDir)).ok) return runHere();
  let cwd: string;
  let install: string;
  try {
    cwd = process.cwd();
    install = realpathSync(installedBin());
  } catch {
    return runHere();
  }
  const stdout = process.stdout;
  // A reader that went away (`| head`): stop quietly, as the CLI does.
  stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(0);
  });
  const request = {
    build: BUILD,
    install,
    argv,
    cwd,
    env: env as Record<string, string>,
    ...stdoutShape(stdout, env),
    ...(onTerminal ? { terminal: { columns: stdout.columns, rows: stdout.rows } } : {}),
  };
  const print = { stdout: (text: string) => stdout.write(text), stderr: (text: string) => process.stderr.write(text) };
  void askServer(request, socketPathOf(stateDir), print, CLIENT_BOUNDS, onTerminal ? callersTerminal(stdout) : undefined).then(
    (outcome) => {
      if (outcome.kind === "done") {
        process.exitCode = outcome.code;
        return;
      }
      // The server was an older build of this install and has stopped: start this build's for the next key
      // (`serve --detach` is a no-op when one is already up). From `/`, which nobody deletes.
      if (outcome.replaced)
        void import("node:child_process").then(({ spawn }) =>
          spawn(process.execPath, [install, "serve", "--detach"], { detached: true, stdio: "ignore", env, cwd: "/" }).unref(),
        );
      runHere();
    },
  );
}

/** This process's terminal, lent to a terminal verb the server runs: raw mode as it asks, keys and sizes forwarded. */
function callersTerminal(stdout: NodeJS.WriteStream): ClientTerminal {
  const stdin = process.stdin;
  return {
    setRaw: (on) => stdin.setRawMode(on),
    forward(send) {
      const onKeys = (data: Buffer) => send({ kind: "keys", base64: data.toString("base64") });
      const onResize = () => send({ kind: "resize", columns: stdout.columns, rows: stdout.rows });
      stdin.on("data", onKeys);
      stdin.resume();
      stdout.on("resize", onResize);
      return () => {
        stdin.off("data", onKeys);
        stdin.pause();
        stdout.off("resize", onResize);
      };
    },
  };
}

/** This install's bin/tongs-agents.js (this bundle is dist/cli/client.cjs). */
export function installedBin(): string {
  return join(import.meta.dirname, "..", "..", "bin", "tongs-agents.js");
}
