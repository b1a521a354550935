// Adding and removing hosts: a minimal edit of the config file (src/install/json-text.ts) that keeps its layout, the
// notification settings and everything else in it; written atomically. Only `tongs-agents hosts` loads this.
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { parseJsonDocument, removeJsonValue, setJsonValue } from "../install/json-text.ts";
import { configFilePath } from "../core/config-file.ts";
import { readTextFile, writeFileAtomic } from "../store/records.ts";
import { COMMAND_PATTERN, DESTINATION_PATTERN, HOST_NAME_PATTERN, isHostTimeout, MAX_CONFIG_BYTES, TIMEOUT_RANGE_S } from "./config.ts";
import { quoted } from "../core/terminal-text.ts";

export type HostsEdit = { ok: true; path: string; changed: boolean } | { ok: false; reason: "usage" | "config" | "io"; detail: string };

/**
 * Add or replace a host (the destination defaults to the name, which then must be one ssh can resolve); `timeoutS` is
 * its own read bound in seconds (default: none, the tool's default bound).
 */
export function addHost(env: NodeJS.ProcessEnv, name: string, destination: string = name, command?: string, timeoutS?: number): HostsEdit {
  if (!HOST_NAME_PATTERN.test(name))
    return { ok: false, reason: "usage", detail: `not a host name: ${quoted(name)} (use [a-z0-9][a-z0-9_-]{0,31})` };
  if (!DESTINATION_PATTERN.test(destination))
    return {
      ok: false,
      reason: "usage",
      detail: `not an ssh destination: ${quoted(destination)} (user@host, host or ssh://user@host:port)`,
    };
  if (command !== undefined && !COMMAND_PATTERN.test(command))
    return { ok: false, reason: "usage", detail: `not a command name or path: ${quoted(command)} (letters, digits and _ . / -)` };
  if (timeoutS !== undefined && !isHostTimeout(timeoutS))
    return {
      ok: false,
      reason: "usage",
      detail: `--timeout takes seconds from ${TIMEOUT_RANGE_S.min} to ${TIMEOUT_RANGE_S.max}, not ${timeoutS}`,
    };
  return edit(env, (text, style, hosts) => {
    if (!(name in hosts) && Object.keys(hosts).length >= 32) return { ok: false, reason: "config", detail: "at most 32 hosts" };
    const entry = {
      destination,
      ...(command === undefined ? {} : { command }),
      ...(timeoutS === undefined ? {} : { timeout_s: timeoutS }),
    };
    return { ok: true, text: setJsonValue(text, ["hosts", name], entry, style) };
  });
}

export function removeHost(env: NodeJS.ProcessEnv, name: string): HostsEdit {
  return edit(env, (text, _style, hosts) =>
    name in hosts
      ? { ok: true, text: removeJsonValue(text, ["hosts", name]) }
      : { ok: false, reason: "usage", detail: `no host ${quoted(name)}` },
  );
}

type Change = { ok: true; text: string } | { ok: false; reason: "usage" | "config"; detail: string };

function edit(
  env: NodeJS.ProcessEnv,
  change: (text: string, style: { indent: string; eol: string }, hosts: Record<string, unknown>) => Change,
): HostsEdit {
  const path = configFilePath(env);
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
