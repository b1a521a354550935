// Focus across the hop: a session on a host is shown by (1) bringing forward the local terminal that runs the user's
// ssh connection to that host, and (2) running `tongs-agents focus` on the host, which lands the tmux client there
// on the session's exact pane. Both levels are reported; without a connection, the ssh command that would attach.
import * as z from "zod/mini";
import { linuxEnvironOf } from "../core/environ.ts";
import { processTable } from "../core/process-table.ts";
import { run as defaultRun } from "../core/exec.ts";
import { captureTerminal } from "../core/terminal.ts";
import type { FocusResult, FocusState } from "../focus/result.ts";
import { focusTerminal, type FocusServiceContext } from "../focus/service.ts";
import type { HostEntry } from "./config.ts";
import { attachCommand, findConnections, type Connection } from "./connection.ts";
import type { HostsContext } from "./everywhere.ts";
import { hostsOf } from "./everywhere.ts";
import { readRemoteJson, type HostReport, type HostedSession } from "./remote.ts";
import { sshClientPort, type SshPort } from "./ssh-port.ts";

export interface LocalLeg {
  readonly state: FocusState | "no-connection";
  readonly detail: string;
  /** The local ssh process whose terminal was brought forward. */
  readonly ssh_pid: number | null;
  /**
   * The client port the host sees for that connection (sent as `--ssh-from`, so the host moves the tmux client that
   * came in over it), or why it could not be told exactly.
   */
  readonly ssh_port: SshPort | null;
  readonly focus: FocusResult | null;
  /** With no connection: the command that would open one. */
  readonly attach: string;
}

export interface RemoteLeg {
  /** The host's own focus state, as it reported it. */
  readonly state: FocusState | "unreachable";
  /**
   * The host selected the pane on its tmux client. Across the hop that client's terminal is the ssh session, so the
   * host cannot raise it (it reports `partial` for that alone): raising it is the local leg's part.
   */
  readonly selected: boolean;
  readonly detail: string;
  readonly target: string;
  /** Which tmux client the host moved, when it was sent the connection's port: its own words. */
  readonly client: { readonly state: string; readonly tty: string; readonly detail: string } | null;
  readonly report: HostReport;
}

export interface HostFocusResult {
  readonly state: FocusState;
  readonly host: string;
  readonly session: { readonly id: string; readonly short_id: string; readonly harness: string; readonly cwd: string };
  readonly local: LocalLeg;
  readonly remote: RemoteLeg;
  readonly detail: string;
}

const RemoteFocusSchema = z.object({
  state: z.enum(["complete", "partial", "failed", "unavailable", "ambiguous", "not-found"]),
  target: z.string().check(z.maxLength(1024)),
  detail: z.string().check(z.maxLength(4096)),
  selection: z.optional(z.object({ succeeded: z.optional(z.boolean()) })),
  ssh_client: z.optional(
    z.object({
      state: z.enum(["matched", "none", "several", "unknown"]),
      tty: z.string().check(z.maxLength(256)),
      detail: z.string().check(z.maxLength(4096)),
    }),
  ),
});

export type FocusAcrossContext = HostsContext &
  Omit<FocusServiceContext, keyof HostsContext> & {
    /** Where the ssh process's sockets are read (tests pass a fake /proc). */
    readonly procRoot?: string;
  };

/** Focus one remote row: both levels, in that order (the window first, so the user sees the pane land). */
export async function focusOnHost(host: HostEntry, session: HostedSession, context: FocusAcrossContext): Promise<HostFocusResult> {
  const local = await focusConnection(host, context);
  const { remote: remoteContext } = hostsOf(context);
  // The id is checked by the row schema and quoted anyway; `--` ends the options whatever it holds.
  const focusThere = (options: readonly string[]) =>
    readRemoteJson(host, ["focus", "--json", "--local", ...options, "--", session.id], remoteContext);
  const from = local.ssh_port?.ok ? ["--ssh-from", String(local.ssh_port.port)] : [];
  let read = await focusThere(from);
  // A host with an older tongs-agents refuses the option (a usage error, before it does anything): ask it as before.
  const older = from.length > 0 && read.value === undefined && read.report.detail.includes("Unknown option '--ssh-from'");
  if (older) read = await focusThere([]);
  let remote: RemoteLeg;
  if (read.value !== undefined) {
    // A focus that did not complete exits non-zero with its JSON result: read it either way.
    const parsed = RemoteFocusSchema.safeParse(read.value);
    remote = parsed.success
      ? {
          state: parsed.data.state,
          selected: parsed.data.state === "complete" || parsed.data.selection?.succeeded === true,
          detail: parsed.data.detail,
          target: parsed.data.target,
          client:
            parsed.data.ssh_client ??
            (older ? { state: "unknown", tty: "", detail: `the tongs-agents on ${host.name} does not take --ssh-from (older)` } : null),
          report: read.report,
        }
      : {
          state: "failed",
          selected: false,
          detail: read.report.detail || "answer is not a focus result",
          target: "",
          client: null,
          report: read.report,
        };
  } else
    remote = {
      state: read.report.state === "unreachable" ? "unreachable" : "failed",
      selected: false,
      detail: read.report.detail,
      target: "",
      client: null,
      report: read.report,
    };
  // Complete: this machine raised the terminal running ssh, and the host put its client on the pane.
  const state: FocusState =
    remote.selected && local.state === "complete"
      ? "complete"
      : remote.selected || remote.state === "partial" || local.state === "complete" || local.state === "partial"
        ? "partial"
        : remote.state === "unreachable"
          ? "unavailable"
          : remote.state;
  const client = remote.client ? `; client: ${remote.client.detail}` : "";
  const detail = [`on ${host.name}: ${remote.state}${remote.detail ? ` (${remote.detail})` : ""}${client}`, `here: ${local.detail}`].join(
    "; ",
  );
  return {
    state,
    host: host.name,
    session: { id: session.id, short_id: session.short_id, harness: session.harness, cwd: session.cwd },
    local,
    remote,
    detail,
  };
}

async function focusConnection(host: HostEntry, context: FocusAcrossContext): Promise<LocalLeg> {
  const attach = attachCommand(host);
  const listProcesses = context.listProcesses ?? processTable();
  const connections = await findConnections(host, { processes: context.processes, listProcesses });
  const connection: Connection | undefined = connections[0];
  if (!connection)
    return {
      state: "no-connection",
      detail: `no ssh connection to ${host.destination} runs in a local terminal; attach with: ${attach}`,
      ssh_pid: null,
      ssh_port: null,
      focus: null,
      attach,
    };
  const environ = await (context.environOf ?? linuxEnvironOf)(connection.pid);
  const terminal = captureTerminal(environ ?? {}, { tty: connection.tty });
  const [focused, port] = await Promise.all([
    focusTerminal(terminal, context),
    sshClientPort(connection.pid, connection.argv, { run: context.sshRun ?? defaultRun, listProcesses, procRoot: context.procRoot }),
  ]);
  const several = connections.length > 1 ? ` (the oldest of ${connections.length} connections)` : "";
  const from = port.ok ? `, client port ${port.port}` : `; which client there is ours is not known exactly: ${port.reason}`;
  if (!focused)
    return {
      state: "unavailable",
      detail: `ssh (pid ${connection.pid}, ${connection.tty}) runs in a terminal tongs-agents cannot focus${several}${from}`,
      ssh_pid: connection.pid,
      ssh_port: port,
      focus: null,
      attach,
    };
  return {
    state: focused.state,
    detail: `ssh (pid ${connection.pid}) in ${focused.target || focused.backend}${several}: ${focused.state}${focused.detail ? ` (${focused.detail})` : ""}${from}`,
    ssh_pid: connection.pid,
    ssh_port: port,
    focus: focused,
    attach,
  };
}
