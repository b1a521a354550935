// A new tmux window running one program (`new-window`), in the tmux the caller is in: how `launch` starts an agent.
import { tmuxSync } from "./runner.ts";

/**
 * Start `argv` (no shell) in a new window of the caller's tmux (its TMUX in `callerEnv`), in `cwd`, with `vars` added
 * to its environment. The new pane's id, or why tmux refused.
 */
export function newWindow({
  argv,
  cwd,
  vars,
  callerEnv,
}: {
  argv: readonly string[];
  cwd: string;
  vars: Readonly<Record<string, string>>;
  callerEnv: NodeJS.ProcessEnv;
}): { readonly ok: true; readonly pane: string } | { readonly ok: false; readonly detail: string } {
  const created = tmuxSync(
    [
      "new-window",
      "-P",
      "-F",
      "#{pane_id}",
      "-c",
      cwd,
      ...Object.entries(vars).flatMap(([key, value]) => ["-e", `${key}=${value}`]),
      "--",
      ...argv,
    ],
    { env: callerEnv },
  );
  return created.ok
    ? { ok: true, pane: created.stdout.trim() }
    : { ok: false, detail: `tmux new-window failed: ${created.stderr.trim() || created.detail || `exit ${created.code}`}` };
}
