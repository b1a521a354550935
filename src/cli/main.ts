// Entry point of `tongs-agents` (bundled to dist/cli/main.cjs, loaded by bin/tongs-agents.js when no keypress server
// takes the verb: dist/cli/client.cjs decides). It gives the one writer (io.ts) this process's streams.
import { visibleText } from "../core/terminal-text.ts";
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
}).then(
  (code) => {
    process.exitCode = code;
  },
  // A bug: its message may quote a path or a record's text, so it is made safe like everything else printed.
  (error: unknown) => {
    process.stderr.write(
      `tongs-agents: unexpected error: ${visibleText(error instanceof Error ? (error.stack ?? error.message) : String(error))}\n`,
    );
    process.exitCode = 1;
  },
);
