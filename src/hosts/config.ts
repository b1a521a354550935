// The SSH hosts whose agents join this machine's view (docs/hosts.md): the `hosts` object of the tool's config file
// ($XDG_CONFIG_HOME/tongs-agents/config.json, shared with the notification settings), name → ssh destination.
// Everything else about reaching a host (user, port, keys, jump hosts) stays in the user's own ssh config.
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import * as z from "zod/mini";
import en from "zod/v4/locales/en.js";
import { describeIssue } from "../core/schema.ts";
import { parseJsonDocument, removeJsonValue, setJsonValue } from "../install/json-text.ts";
import { configPath } from "../notify/config.ts";
import { readTextFile, writeFileAtomic } from "../store/records.ts";

z.config(en());

/** A host's name: what rows show in their `host` field and what `NAME:query` selects. */
export const HOST_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,31}$/;
/**
 * An ssh destination (`box`, `me@box.example`, `ssh://me@box:2222`): never starting with `-` (ssh would read it as an
 * option), and no character a shell or ssh_config token expansion would treat specially.
 */
export const DESTINATION_PATTERN = /^(?!-)[A-Za-z0-9_.@:/[\]-]{1,255}$/;
/** The remote program: a command name or an absolute path, as plain words (it is quoted before it reaches a shell). */
const COMMAND_PATTERN = /^[A-Za-z0-9_./-]{1,255}$/;

const HostSchema = z.strictObject({
  destination: z.string().check(z.regex(DESTINATION_PATTERN, "not an ssh destination")),
  command: z.optional(z.string().check(z.regex(COMMAND_PATTERN, "not a command name or path"))),
});

const HostsSchema = z
  .record(z.string().check(z.regex(HOST_NAME_PATTERN, "host names are [a-z0-9][a-z0-9_-]{0,31}")), HostSchema)
  .check(z.refine((hosts) => Object.keys(hosts).length <= 32, "at most 32 hosts"));

export interface HostEntry {
  readonly name: string;
  readonly destination: string;
  /** The tongs-agents command on the host (default: `tongs-agents`, found on the remote login PATH). */
  readonly command: string;
}

export type HostsLoad = { readonly hosts: readonly HostEntry[]; readonly path: string; readonly problem?: string };

const MAX_CONFIG_BYTES = 64 * 1024;

/** The configured hosts, in file order. A file that is unreadable or does not fit yields no hosts and a problem. */
export function loadHosts(env: NodeJS.ProcessEnv): HostsLoad {
  const path = configPath(env);
  const file = readTextFile(path, MAX_CONFIG_BYTES);
  if (file.kind === "absent") return { hosts: [], path };
  if (file.kind !== "text") return { hosts: [], path, problem: `${path}: ${file.detail}` };
  const document = parseJsonDocument(file.text);
  if (!document.ok) return { hosts: [], path, problem: `${path}: ${document.detail}` };
  const parsed = HostsSchema.safeParse(document.data.hosts ?? {});
  if (!parsed.success) return { hosts: [], path, problem: `${path}: hosts: ${describeIssue(parsed.error)}` };
  return {
    hosts: Object.entries(parsed.data).map(([name, entry]) => ({
      name,
      destination: entry.destination,
      command: entry.command ?? "tongs-agents",
    })),
    path,
  };
}

export type HostsEdit = { ok: true; path: string; changed: boolean } | { ok: false; reason: "usage" | "config" | "io"; detail: string };

/** Add or replace a host (the destination defaults to the name, which then must be one ssh can resolve). */
export function addHost(env: NodeJS.ProcessEnv, name: string, destination: string = name, command?: string): HostsEdit {
  if (!HOST_NAME_PATTERN.test(name))
    return { ok: false, reason: "usage", detail: `not a host name: ${JSON.stringify(name)} (use [a-z0-9][a-z0-9_-]{0,31})` };
  if (!DESTINATION_PATTERN.test(destination))
    return {
      ok: false,
      reason: "usage",
      detail: `not an ssh destination: ${JSON.stringify(destination)} (user@host, host or ssh://user@host:port)`,
    };
  if (command !== undefined && !COMMAND_PATTERN.test(command))
    return { ok: false, reason: "usage", detail: `not a command name or path: ${JSON.stringify(command)}` };
  return edit(env, (text, style, hosts) => {
    if (!(name in hosts) && Object.keys(hosts).length >= 32) return { ok: false, reason: "config", detail: "at most 32 hosts" };
    const entry = command === undefined ? { destination } : { destination, command };
    return { ok: true, text: setJsonValue(text, ["hosts", name], entry, style) };
  });
}

export function removeHost(env: NodeJS.ProcessEnv, name: string): HostsEdit {
  return edit(env, (text, _style, hosts) =>
    name in hosts
      ? { ok: true, text: removeJsonValue(text, ["hosts", name]) }
      : { ok: false, reason: "usage", detail: `no host ${JSON.stringify(name)}` },
  );
}

type Change = { ok: true; text: string } | { ok: false; reason: "usage" | "config"; detail: string };

function edit(
  env: NodeJS.ProcessEnv,
  change: (text: string, style: { indent: string; eol: string }, hosts: Record<string, unknown>) => Change,
): HostsEdit {
  const path = configPath(env);
  const file = readTextFile(path, MAX_CONFIG_BYTES);
  if (file.kind !== "text" && file.kind !== "absent") return { ok: false, reason: "config", detail: `${path}: ${file.detail}` };
  const before = file.kind === "text" ? file.text : "";
  const document = parseJsonDocument(before);
  if (!document.ok) return { ok: false, reason: "config", detail: `${path}: ${document.detail}` };
  const hosts = document.data.hosts ?? {};
  if (typeof hosts !== "object" || hosts === null || Array.isArray(hosts))
    return { ok: false, reason: "config", detail: `${path}: hosts is not an object` };
  const changed = change(before, document.style, hosts as Record<string, unknown>);
  if (!changed.ok) return changed;
  if (changed.text === before) return { ok: true, path, changed: false };
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  } catch (error) {
    return { ok: false, reason: "io", detail: `${dirname(path)}: ${(error as NodeJS.ErrnoException).code ?? String(error)}` };
  }
  const written = writeFileAtomic(path, changed.text, { maxBytes: MAX_CONFIG_BYTES, sync: true });
  return written.ok ? { ok: true, path, changed: true } : { ok: false, reason: "io", detail: written.detail };
}
