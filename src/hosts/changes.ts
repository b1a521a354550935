// A host's sessions that may notify, as the keypress server's host watch reads them (src/notify/hosts-watch.ts,
// docs/notifications.md "Agents on SSH hosts"): `tongs-agents notify changes --json` run there through the one remote
// runner, under the host's read bound, each row checked as a listing's row is (rowOf: tagged with the host asked,
// never another) plus the host's own verdict on whether the user looks at it.
import * as z from "zod/mini";
import { lazySchema } from "../core/lazy-schema.ts";
import type { HostEntry } from "./config.ts";
import { hostsOf, type HostsContext } from "./everywhere.ts";
import { readRemoteJson, rowOf, short, type HostedSession, type RemoteContext } from "./remote.ts";

/** What the host runs (src/notify/host-changes.ts answers it there). */
export const CHANGES_WORDS: readonly string[] = ["notify", "changes", "--json"];

const ChangesSchema = lazySchema(() => z.object({ sessions: z.array(z.unknown()).check(z.maxLength(2000)) }));
/** What a host adds to each row of `list --json`. */
const OnScreenSchema = lazySchema(() => z.object({ on_screen: z.boolean(), on_screen_why: short(512), where: short(512) }));

export interface HostChange {
  readonly row: HostedSession;
  /** The host's survey: a focused client shows its pane there. */
  readonly on_screen: boolean;
  readonly on_screen_why: string;
  /** Where it runs there: `tmux %3 (work:1.0)`. */
  readonly where: string;
}

export type HostChanges =
  { readonly ok: true; readonly changes: readonly HostChange[]; readonly invalid: number } | { readonly ok: false; readonly said: string };

export async function readHostChanges(host: HostEntry, context: RemoteContext): Promise<HostChanges> {
  const answer = await readRemoteJson(host, CHANGES_WORDS, context);
  if (!answer.ok) return { ok: false, said: `${answer.report.state}: ${answer.report.detail}` };
  const parsed = ChangesSchema.safeParse(answer.value);
  if (!parsed.success) return { ok: false, said: "failed: the answer is not a list of changes" };
  const changes: HostChange[] = [];
  let invalid = 0;
  for (const item of parsed.data.sessions) {
    const row = rowOf(host, item);
    const extra = OnScreenSchema.safeParse(item);
    if (row === undefined || !extra.success) invalid++;
    else changes.push({ row, ...extra.data });
  }
  return { ok: true, changes, invalid };
}

/** Each configured host with the read of its changes (what the keypress server's host watch asks), read now. */
export function changeReaders(context: HostsContext): { readonly name: string; readonly read: () => Promise<HostChanges> }[] {
  const { hosts, remote } = hostsOf(context);
  return hosts.map((host) => ({ name: host.name, read: () => readHostChanges(host, remote) }));
}
