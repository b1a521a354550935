// The picker's preview: what a session's terminal shows now, read by the backend that owns that terminal (its
// `capture`, backends/contract.ts). A terminal whose backend cannot read it says so; nothing is guessed.
import type { Capture } from "../../backends/contract.ts";
import { BACKENDS } from "../../backends/registry.ts";
import { run as defaultRun, type Runner } from "../core/exec.ts";
import type { SessionView } from "../fleet/view.ts";

export async function previewSession(
  session: SessionView,
  lines: number,
  {
    run = defaultRun,
    env = process.env,
    backends = BACKENDS,
  }: { run?: Runner | undefined; env?: NodeJS.ProcessEnv; backends?: typeof BACKENDS } = {},
): Promise<Capture> {
  if (session.stale || session.status === "ended") return { note: "the session has ended" };
  for (const backend of backends) {
    const located = backend.locate(session.terminal);
    if (!located) continue;
    return located.capture ? located.capture(lines, { run, env }) : { note: `no preview of ${located.describe()}` };
  }
  return { note: "no terminal to preview" };
}
