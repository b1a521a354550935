// What bin/tongs-agents.js runs first (bundled to dist/cli/client.cjs, kept small): a verb the keypress server answers
// goes to it when one is running (src/server/, docs/server.md); anything else, or any server that does not take the
// verb, and the CLI runs in this process as it always did (`runHere`).
import { checkPrivateDir, resolveStateDir } from "../store/paths.ts";
import { BUILD } from "../core/version.ts";
import { askServer } from "../server/client.ts";
import { SERVED_VERBS, SERVER_ENV, serverDirOf, socketPathOf, stdoutShape } from "../server/protocol.ts";

export function main(runHere: () => void): void {
  const argv = process.argv.slice(2);
  const env = process.env;
  if (!SERVED_VERBS.has(argv[0] ?? "") || env[SERVER_ENV] === "off") return runHere();
  const stateDir = resolveStateDir(env);
  // A socket is only trusted in a private directory of ours: the request carries this process's environment.
  if (!checkPrivateDir(serverDirOf(stateDir)).ok) return runHere();
  let cwd: string;
  try {
    cwd = process.cwd();
  } catch {
    return runHere();
  }
  const stdout = process.stdout;
  // A reader that went away (`| head`): stop quietly, as the CLI does.
  stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(0);
  });
  const request = { build: BUILD, argv, cwd, env: env as Record<string, string>, ...stdoutShape(stdout, env) };
  void askServer(request, socketPathOf(stateDir), {
    stdout: (text) => stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  }).then((outcome) => {
    if (outcome.kind === "done") {
      process.exitCode = outcome.code;
      return;
    }
    // The server was of another build and has stopped: start one of ours for the next key (`serve --detach` stops
    // the other first, and is a no-op when one of ours is already up).
    const cli = process.argv[1];
    if (outcome.otherBuild && cli)
      void import("node:child_process").then(({ spawn }) =>
        spawn(process.execPath, [cli, "serve", "--detach"], { detached: true, stdio: "ignore", env }).unref(),
      );
    runHere();
  });
}
