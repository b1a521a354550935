// Which Codex UI shows a session whose hooks ran under the shared app-server daemon? The daemon's environment is the
// first UI's, so the record holds no terminal; this finds the UI from exact evidence read at focus time, or says why
// not. Observed on Codex 0.171.0 (docs/harness-facts.md, "Codex: which UI shows a daemon-backed session"):
// - a UI started as `codex resume <SESSION_ID>` names the session in its own arguments, and under the daemon it
//   continues that very thread (same session id in the hooks, same rollout file);
// - a fresh UI exposes nothing that names its session: it holds no rollout or lock file (the daemon writes them), its
//   arguments and environment carry no session id, the daemon's JSON-RPC lists loaded threads but not which connection
//   shows which, and its log rows name connections, never the peer process. Such a session stays unavailable.
import { matchesProcessName, withDeadline, type ProcessInfo } from "../../core/proc.ts";
import { captureTerminal } from "../../core/terminal.ts";
import type { UiLocation, UiQuery, UiWorld } from "../contract.ts";

const NAMES = ["codex"];
/** Reading arguments may wait on the target; focus is interactive, so the whole search is bounded. */
const SEARCH_BOUND_MS = 2000;

export const NO_EVIDENCE =
  "no running Codex UI names this session in its arguments; only a UI started as `codex resume <session id>` can be tied to a session under the shared daemon (start codex with --no-daemon, or resume the session, to focus it)";

/** `codex [options] resume [options] <SESSION_ID>`: the session id as its own argument after the `resume` subcommand. */
export function namesSession(argv: readonly string[], sessionId: string): boolean {
  const resume = argv.indexOf("resume", 1);
  return sessionId !== "" && resume > 0 && argv.indexOf(sessionId, resume + 1) > resume;
}

export async function locateCodexUi(session: UiQuery, world: UiWorld, isDaemon: (argv: readonly string[]) => boolean): Promise<UiLocation> {
  const search = async (): Promise<UiLocation> => {
    const listed = await world.list().catch(() => []);
    const showing: ProcessInfo[] = [];
    for (const { pid, name } of listed) {
      if (pid === session.pid || !NAMES.includes(name)) continue;
      const [basics, argv] = await Promise.all([world.processes.basics(pid), world.processes.argv(pid)]);
      if (!basics || !argv) continue;
      const info: ProcessInfo = { ...basics, argv };
      if (matchesProcessName(info, NAMES) && !isDaemon(argv) && namesSession(argv, session.session_id)) showing.push(info);
    }
    if (showing.length === 0) return { ok: false, reason: NO_EVIDENCE };
    if (showing.length > 1)
      return {
        ok: false,
        reason: `${showing.length} running Codex UIs (PIDs ${showing.map((ui) => ui.pid).join(", ")}) name this session in their arguments`,
      };
    const ui = showing[0] as ProcessInfo;
    const env = await world.environOf(ui.pid);
    if (!env)
      return { ok: false, reason: `the environment of Codex UI process ${ui.pid} (codex resume ${session.session_id}) cannot be read` };
    return {
      ok: true,
      pid: ui.pid,
      terminal: captureTerminal(env, { tty: ui.tty }),
      evidence: `Codex UI process ${ui.pid} runs \`codex resume ${session.session_id}\``,
    };
  };
  const found = await withDeadline(search(), SEARCH_BOUND_MS);
  return found === "timeout"
    ? { ok: false, reason: `looking for the Codex UI that shows this session took longer than ${SEARCH_BOUND_MS / 1000} s` }
    : found;
}
