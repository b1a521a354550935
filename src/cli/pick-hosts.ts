// The picker's view of the configured SSH hosts: each host read as `list` reads it (bounded, validated, every row
// tagged with the host that was asked), and Enter on a host's row focused as `focus HOST:ID` does, both levels.
// Loaded by the picker after its first screen, so the hosts' modules cost that screen nothing.
import type { FocusAcrossContext, HostFocusResult } from "../hosts/focus.ts";
import { focusOnHost } from "../hosts/focus.ts";
import { hostsOf, type HostsContext } from "../hosts/everywhere.ts";
import { readRemoteSessions } from "../hosts/remote.ts";
import { hostRows, type Row } from "../picker/model.ts";
import type { HostSource } from "../picker/tui.ts";
import { formatHostReports } from "./format-hosts.ts";

/** The hosts the picker reads; none when the config has none (or cannot be read: `list` says why). */
export function pickerHosts(context: HostsContext): HostSource[] {
  const { hosts, remote } = hostsOf(context);
  return hosts.map((host) => ({
    name: host.name,
    read: async () => {
      const { sessions, report } = await readRemoteSessions(host, { all: false }, remote);
      const note = formatHostReports([report]);
      return { rows: hostRows(host.name, sessions), ...(note ? { note } : {}) };
    },
  }));
}

/** Enter on a host's row: what `tongs-agents focus HOST:ID` does once the row is found. */
export async function focusHostRow(row: Row, context: FocusAcrossContext): Promise<HostFocusResult | undefined> {
  const host = hostsOf(context).hosts.find((entry) => entry.name === row.host);
  if (!host) return undefined;
  return focusOnHost(host, { ...row.session, host: row.host, attention: row.rank }, context);
}
