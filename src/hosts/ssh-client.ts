// The host's half of focus across the hop: which of the tmux clients here is the user's. The user's machine sends the
// client port of its ssh connection (`focus --ssh-from PORT`, src/hosts/ssh-port.ts); sshd put that port in
// SSH_CONNECTION of every process of that login, so the tmux client whose process (or, failing that, an ancestor up
// to sshd) carries it is the one to move. Exactly one match pins the focus to that client; none or several are
// reported and the focus picks its client as it would without the option.
import { linuxEnvironOf } from "../core/environ.ts";
import type { FocusResult } from "../focus/result.ts";
import { focusView, unfound, type FocusServiceContext } from "../focus/service.ts";
import { findSession } from "../fleet/queries.ts";

export interface SshClientMatch {
  /** matched: exactly one client came from that port; none/several: not told apart (the usual choice was made). */
  readonly state: "matched" | "none" | "several" | "unknown";
  readonly port: number;
  readonly tty: string;
  readonly detail: string;
}

export type SshFocusResult = FocusResult & { readonly ssh_client: SshClientMatch };

/** The client port of `SSH_CONNECTION` (`client-ip client-port server-ip server-port`); undefined when malformed. */
export function sshConnectionPort(value: string | undefined): number | undefined {
  const fields = value?.trim().split(" ");
  if (fields?.length !== 4 || !/^\d{1,5}$/.test(fields[1] ?? "")) return undefined;
  const port = Number(fields[1]);
  return port >= 1 && port <= 65535 ? port : undefined;
}

/** A port as the CLI takes it: digits only, 1-65535; undefined otherwise. */
export function parsePort(text: string): number | undefined {
  return sshConnectionPort(`x ${text} x x`);
}

type World = Required<Pick<FocusServiceContext, "environOf">> & Pick<FocusServiceContext, "processes">;

/** How many processes up from a tmux client to look for SSH_CONNECTION (client, shell, sshd's session child). */
const MAX_ANCESTORS = 8;

/** The port in SSH_CONNECTION of `pid`, or of its nearest ancestor below sshd that has one. */
async function portOfClient(pid: number, world: World): Promise<number | undefined> {
  let current = pid;
  for (let step = 0; step < MAX_ANCESTORS && current > 1; step++) {
    const env = await world.environOf(current);
    if (env?.SSH_CONNECTION !== undefined) return sshConnectionPort(env.SSH_CONNECTION);
    const basics = await world.processes.basics(current);
    if (!basics || basics.comm === "sshd") return undefined;
    current = basics.ppid;
  }
  return undefined;
}

/** Which of `clients` (tty, pid) came in over the ssh connection from `port`. */
export async function matchSshClient(
  clients: readonly { tty: string; pid: number }[],
  port: number,
  world: World,
): Promise<Omit<SshClientMatch, "port">> {
  const ports = await Promise.all(clients.map((client) => portOfClient(client.pid, world)));
  const matched = clients.filter((_, index) => ports[index] === port);
  const first = matched[0];
  if (matched.length === 1 && first) return { state: "matched", tty: first.tty, detail: `${first.tty} came in over ssh from port ${port}` };
  if (matched.length > 1)
    return {
      state: "several",
      tty: "",
      detail: `${matched.length} clients came in over the ssh connection from port ${port} (${matched.map((client) => client.tty).join(", ")}): one connection's sessions cannot be told apart`,
    };
  return { state: "none", tty: "", detail: `no client of ${clients.length} came in over ssh from port ${port}` };
}

/**
 * The clients of the tmux server a session's captured `TMUX` names (backends/tmux/clients.ts; the CLI passes it in: the
 * hosts layer does not run tmux itself).
 */
export type ListClients = (
  tmuxEnv: string | undefined,
) => Promise<
  { readonly ok: true; readonly clients: readonly { tty: string; pid: number }[] } | { readonly ok: false; readonly detail: string }
>;

/** `focus --ssh-from PORT`: focus the session on the tmux client that came in over that ssh connection. */
export async function focusForSshClient(
  query: string,
  port: number,
  context: FocusServiceContext & { readonly listClients: ListClients },
): Promise<SshFocusResult> {
  const found = await findSession(context, query);
  if (!found.ok) return { ...unfound(found), ssh_client: { state: "unknown", port, tty: "", detail: found.detail } };
  const listed = await context.listClients(found.session.terminal.env.TMUX);
  const match: Omit<SshClientMatch, "port"> = listed.ok
    ? await matchSshClient(listed.clients, port, { environOf: context.environOf ?? linuxEnvironOf, processes: context.processes })
    : { state: "unknown", tty: "", detail: listed.detail };
  const client = match.state === "matched" ? match.tty : context.client;
  const focused = await focusView(found.session, { ...context, client });
  const fallback = match.state === "matched" ? "" : "; the client was chosen as without --ssh-from";
  return { ...focused, ssh_client: { ...match, port, detail: `${match.detail}${fallback}` } };
}
