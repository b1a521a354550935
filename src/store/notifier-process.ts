// Starting the notifier (dist/notify.cjs), detached and at low priority, for whoever found something to tell: the hook
// and the drainer after a state change (hook/notify-trigger.ts), a reader that applied what a harness stated, a quota
// crossing (quota-crossing.ts). Nobody waits for it; what it does is its own (docs/notifications.md, "Cost").
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";

export type StartNotifier = (bundle: string, args: readonly string[], env: NodeJS.ProcessEnv) => void;

/**
 * dist/notify.cjs, found from this file wherever it was bundled to (dist/, dist/cli/verbs/); none from source (a test
 * runner defines __dirname for source files too: only a bundle, a .cjs file, looks).
 */
export function notifierBundle(): string | undefined {
  if (typeof __filename !== "string" || !__filename.endsWith(".cjs")) return undefined;
  let dir = __dirname;
  for (let up = 0; up < 4; up++) {
    for (const candidate of [join(dir, "notify.cjs"), join(dir, "dist", "notify.cjs")]) if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  return undefined;
}

export const startDetached: StartNotifier = (bundle, args, env) => {
  // Loaded here, not at the top: only a state change pays for child_process.
  const { spawn } = process.getBuiltinModule("node:child_process");
  // Its own session (detached): the agent's terminal closing does not stop it; no pipe of the agent's is inherited.
  const child = spawn(process.execPath, [bundle, ...args], { detached: true, stdio: "ignore", env, cwd: "/" });
  child.on("error", () => undefined);
  child.unref();
  // At low priority from (nearly) its first instruction: its start-up must not take the CPU from the hook and the agent.
  try {
    if (child.pid !== undefined) process.getBuiltinModule("node:os").setPriority(child.pid, 10);
  } catch {
    // it already exited, or the system refuses: it runs at normal priority
  }
};
