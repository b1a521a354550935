// The SSH hosts whose agents join this machine's view (docs/hosts.md): the `hosts` object of the tool's config file
// ($XDG_CONFIG_HOME/tongs-agents/config.json, shared with the notification settings), name → ssh destination.
// Everything else about reaching a host (user, port, keys, jump hosts) stays in the user's own ssh config.
import * as z from "zod/mini";
import { lazySchema } from "../core/lazy-schema.ts";
import { describeIssue } from "../core/schema.ts";
import { CONFIG_FILE_BYTES, readConfigFile } from "../core/config-file.ts";

/** A host's name: what rows show in their `host` field and what `NAME:query` selects. */
export const HOST_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,31}$/;
/**
 * An ssh destination (`box`, `me@box.example`, `ssh://me@box:2222`): never starting with `-` (ssh would read it as an
 * option), and no character a shell or ssh_config token expansion would treat specially.
 */
export const DESTINATION_PATTERN = /^(?!-)[A-Za-z0-9_.@:/[\]-]{1,255}$/;
/** The remote program: a command name or an absolute path, as plain words (it is quoted before it reaches a shell). */
export const COMMAND_PATTERN = /^[A-Za-z0-9_./-]{1,255}$/;
/**
 * A host's own bound in seconds (`timeout_s`), connection included: long enough for a cold connection to a far host,
 * short enough that a status line refreshing every few seconds is never held up for long.
 */
export const TIMEOUT_RANGE_S = { min: 0.5, max: 30 } as const;

/** Whether `seconds` is a usable host bound: a finite number within TIMEOUT_RANGE_S. */
export const isHostTimeout = (seconds: number): boolean =>
  Number.isFinite(seconds) && seconds >= TIMEOUT_RANGE_S.min && seconds <= TIMEOUT_RANGE_S.max;

const HostSchema = lazySchema(() =>
  z.strictObject({
    destination: z
      .string()
      .check(z.regex(DESTINATION_PATTERN, "not an ssh destination (letters, digits and _ . @ : / [ ] -, not starting with -)")),
    command: z.optional(z.string().check(z.regex(COMMAND_PATTERN, "not a command name or path (letters, digits and _ . / -)"))),
    timeout_s: z.optional(
      z.number().check(z.refine(isHostTimeout, `not a number of seconds from ${TIMEOUT_RANGE_S.min} to ${TIMEOUT_RANGE_S.max}`)),
    ),
  }),
);

const HostsSchema = lazySchema(() =>
  z
    .record(z.string().check(z.regex(HOST_NAME_PATTERN, "host names are [a-z0-9][a-z0-9_-]{0,31}")), HostSchema)
    .check(z.refine((hosts) => Object.keys(hosts).length <= 32, "more than 32 hosts (at most 32)")),
);

export interface HostEntry {
  readonly name: string;
  readonly destination: string;
  /** The tongs-agents command on the host (default: `tongs-agents`, found on the remote login PATH). */
  readonly command: string;
  /** This host's read bound (`timeout_s`), when set; otherwise the default (src/hosts/everywhere.ts HOST_TIMEOUT_MS). */
  readonly timeoutMs?: number;
}

export type HostsLoad = { readonly hosts: readonly HostEntry[]; readonly path: string; readonly problem?: string };

export const MAX_CONFIG_BYTES = CONFIG_FILE_BYTES;

/** The configured hosts, in file order. A file that is unreadable or does not fit yields no hosts and a problem. */
export function loadHosts(env: NodeJS.ProcessEnv): HostsLoad {
  // The shared bounded reader, without the config-text editor (jsonc-parser): `status` reads this every few seconds.
  const file = readConfigFile(env);
  const path = file.path;
  if (file.kind === "absent") return { hosts: [], path };
  if (file.kind === "invalid") return { hosts: [], path, problem: file.detail };
  const parsed = HostsSchema.safeParse(file.sections.hosts ?? {});
  if (!parsed.success)
    return { hosts: [], path, problem: `${path}: hosts: ${describeIssue(parsed.error, file.sections.hosts, HostsSchema)}` };
  return {
    hosts: Object.entries(parsed.data).map(([name, entry]) => ({
      name,
      destination: entry.destination,
      command: entry.command ?? "tongs-agents",
      ...(entry.timeout_s === undefined ? {} : { timeoutMs: Math.round(entry.timeout_s * 1000) }),
    })),
    path,
  };
}
