// Entry point of the status-line wrapper (dist/statusline.cjs, statusline.ts): `node statusline.cjs [--then <command>]`.
// The user's own status line command (`--then`, run by /bin/sh as Claude Code runs it) gets the same stdin, and its
// output and exit code are this program's. Without one, it prints nothing.
import { resolveStateDir } from "../store/paths.ts";
import { readStdin } from "./read-stdin.ts";
import { keepStatuslineFacts } from "./statusline.ts";

/** The status-line input is a few KB; more is not a status-line input. */
const INPUT_BYTES = 1024 * 1024;
const INPUT_BOUND_MS = 2000;

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const command = argv[0] === "--then" && typeof argv[1] === "string" && argv[1] !== "" ? argv[1] : undefined;
  const input = await readStdin({ maxBytes: INPUT_BYTES, deadline: Date.now() + INPUT_BOUND_MS }).catch(() => undefined);
  const bytes = input?.bytes ?? Buffer.alloc(0);
  const exited = command === undefined ? Promise.resolve(0) : runUserCommand(command, bytes);
  keepStatuslineFacts(bytes, { stateDir: resolveStateDir(process.env), env: process.env, now: Date.now() });
  // Nothing of ours was written to stdout (the child wrote its own): exit now, whatever still holds the event loop.
  process.exit(await exited);
}

/** The user's command, as Claude Code would have run it: by /bin/sh, with the input on stdin, our stdout and stderr. */
function runUserCommand(command: string, input: Buffer): Promise<number> {
  const { spawn } = process.getBuiltinModule("node:child_process");
  return new Promise((resolve) => {
    const child = spawn("/bin/sh", ["-c", command], { stdio: ["pipe", "inherit", "inherit"] });
    child.on("error", () => resolve(127));
    child.on("close", (code) => resolve(code ?? 1));
    child.stdin.on("error", () => undefined); // a command that does not read its input
    child.stdin.end(input);
  });
}

void main().catch(() => process.exit(0));
