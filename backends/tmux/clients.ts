// The clients attached to one tmux server, with their processes: what a host's focus needs to tell which client came
// in over the user's ssh connection (src/hosts/ssh-client.ts reads each client process's SSH_CONNECTION).
import type { Runner } from "../../src/core/exec.ts";
import { parseTmuxEnv, tmux } from "./runner.ts";

export interface TmuxClient {
  readonly tty: string;
  readonly pid: number;
}

export type TmuxClients = { readonly ok: true; readonly clients: TmuxClient[] } | { readonly ok: false; readonly detail: string };

/** `list-clients` of the server a session's captured `TMUX` names: each client's tty and process. */
export async function listTmuxClients(tmuxEnv: string | undefined, { run }: { run?: Runner | undefined } = {}): Promise<TmuxClients> {
  const socket = parseTmuxEnv(tmuxEnv)?.socket;
  if (socket === undefined) return { ok: false, detail: "the session's tmux server is not recorded" };
  const listed = await tmux(["list-clients", "-F", "#{client_tty}\t#{client_pid}"], { socket, ...(run ? { run } : {}) });
  if (!listed.ok)
    return { ok: false, detail: `tmux list-clients failed: ${listed.stderr.trim() || listed.detail || `exit ${listed.code}`}` };
  const clients = listed.stdout
    .split("\n")
    .map((line) => line.split("\t"))
    .filter((fields) => fields.length === 2 && fields[0]?.startsWith("/") && /^\d+$/.test(fields[1] ?? ""))
    .map(([tty, pid]) => ({ tty: tty as string, pid: Number(pid) }));
  return { ok: true, clients };
}
