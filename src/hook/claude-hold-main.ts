// Entry point of Claude Code's held PermissionRequest hook (`tongs-agents-hook.cjs permission-hold --agent claude`,
// claude-hold.ts): its own bundle (dist/claude-hold.cjs), required by the hook's bin only for that alias, so the fast
// hook's start-up is untouched. Fail-open like the hook: whatever happens, exit 0; print only a decision.
import { writeSync } from "node:fs";
import { homedir } from "node:os";
import { LIMITS } from "../core/bounds.ts";
import { defaultProcessSource } from "../core/proc.ts";
import { resolveStateDir } from "../store/paths.ts";
import { holdPermission, parseHoldInput } from "./claude-hold.ts";
import { appendDebugLog, debugEnabled } from "./debug-log.ts";
import { readStdin } from "./read-stdin.ts";

const quit = () => process.exit(0);
process.removeAllListeners("warning");
process.on("uncaughtException", quit);
process.on("unhandledRejection", quit);
// Claude Code ends a hook at its timeout with SIGTERM: unregister (holdPermission's finally), print nothing.
const stop = { stopped: false };
for (const signal of ["SIGTERM", "SIGHUP", "SIGINT"] as const) process.on(signal, () => void (stop.stopped = true));

async function main(): Promise<void> {
  const started = Date.now();
  const stateDir = resolveStateDir(process.env);
  const read = await readStdin({ maxBytes: LIMITS.stdinBytes, deadline: started + 2000 });
  let value: unknown;
  try {
    value = JSON.parse(read.bytes.toString("utf8"));
  } catch {
    value = undefined;
  }
  const input = parseHoldInput(value);
  if (!input) return;
  const end = await holdPermission(
    input,
    {
      env: process.env,
      home: process.env.HOME?.startsWith("/") ? process.env.HOME : homedir(),
      stateDir,
      ppid: process.ppid,
      pid: process.pid,
      processes: defaultProcessSource(),
      now: Date.now,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    },
    stop,
  );
  if (end.answered) writeSync(1, end.stdout);
  if (debugEnabled(process.env))
    appendDebugLog(stateDir, {
      argv: process.argv.slice(2),
      outcome: end.answered ? "answered" : "held-no-answer",
      detail: end.answered ? "answered through the held hook" : end.why,
      elapsed_ms: Date.now() - started,
    });
}

main().then(quit, quit);
