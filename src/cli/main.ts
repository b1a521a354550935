// Entry point of `tongs-agents` (bundled to dist/cli/main.cjs, loaded by bin/tongs-agents.js when no keypress server
// takes the verb: dist/cli/client.cjs decides).
import { stdoutShape } from "../server/protocol.ts";
import { defaultContext } from "./context.ts";
import { runCli } from "./run.ts";

const stdout = process.stdout;
// Output piped into `head` (or a closed MCP client): the reader is gone, so stop quietly rather than with a stack.
stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
  process.exit(0);
});
void runCli(process.argv.slice(2), defaultContext(), {
  stdout: (text) => stdout.write(`${text}\n`),
  stderr: (text) => process.stderr.write(`${text}\n`),
  ...stdoutShape(stdout, process.env),
}).then((code) => {
  process.exitCode = code;
});
