// Entry point of `tongs-agents` (bundled to dist/cli.js).
import { defaultContext, runCli } from "./run.ts";

const stdout = process.stdout;
process.exitCode = await runCli(process.argv.slice(2), defaultContext(), {
  stdout: (text) => stdout.write(`${text}\n`),
  stderr: (text) => process.stderr.write(`${text}\n`),
  color: stdout.isTTY === true && !process.env.NO_COLOR,
  columns: stdout.columns ?? 120,
});
