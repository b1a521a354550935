// The user's settings file, $XDG_CONFIG_HOME/tongs-agents/config.json: one JSON object with one key per concern
// ("notifications": src/notify/config.ts; "agents": src/harnesses/declared.ts; "hosts": src/hosts/config.ts). This module only finds and reads it,
// bounded, and splits it into sections; each concern validates its own section, so a mistake in one never disables
// another. The hook reads it only for an agent id that is not built in (docs/declared-agents.md).
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** Top-level keys of config.json and who reads them. */
export const CONFIG_SECTIONS = ["notifications", "agents", "hosts"] as const;
export type ConfigSection = (typeof CONFIG_SECTIONS)[number];

/** Larger than any hand-written settings file; a bigger one is refused rather than read. */
export const CONFIG_FILE_BYTES = 64 * 1024;

export type ConfigFileRead =
  | { readonly kind: "absent"; readonly path: string }
  | { readonly kind: "invalid"; readonly path: string; readonly detail: string }
  | {
      readonly kind: "ok";
      readonly path: string;
      readonly sections: Readonly<Partial<Record<ConfigSection, unknown>>>;
      /** Top-level keys that are no section's (a typo, most likely). */
      readonly unknownKeys: readonly string[];
    };

/** The directory of the tool's own settings: $XDG_CONFIG_HOME/tongs-agents, or ~/.config/tongs-agents. */
export function configDir(env: NodeJS.ProcessEnv, home: string = env.HOME ?? homedir()): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith("/") ? env.XDG_CONFIG_HOME : join(home, ".config");
  return join(base, "tongs-agents");
}

export function configFilePath(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), "config.json");
}

/**
 * Read config.json: absent, invalid (not a regular file, too large, not JSON, not an object), or its sections.
 * Synchronous and bounded: the file is small, and the hook must not wait on anything it cannot bound (a FIFO put in
 * its place is opened non-blocking and refused as not a regular file).
 */
export function readConfigFile(env: NodeJS.ProcessEnv, maxBytes: number = CONFIG_FILE_BYTES): ConfigFileRead {
  const path = configFilePath(env);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR"
      ? { kind: "absent", path }
      : { kind: "invalid", path, detail: `${path}: cannot open (${code})` };
  }
  let text: string;
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { kind: "invalid", path, detail: `${path} is not a regular file` };
    if (stat.size > maxBytes) return { kind: "invalid", path, detail: `${path} is larger than ${maxBytes} bytes` };
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    for (let read = 1; read > 0 && length <= maxBytes; length += read) read = readSync(fd, buffer, length, buffer.length - length, null);
    if (length > maxBytes) return { kind: "invalid", path, detail: `${path} is larger than ${maxBytes} bytes` };
    text = buffer.toString("utf8", 0, length);
  } catch (error) {
    return { kind: "invalid", path, detail: `${path}: cannot read (${(error as NodeJS.ErrnoException).code})` };
  } finally {
    closeSync(fd);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: "invalid", path, detail: `${path} is not JSON` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { kind: "invalid", path, detail: `${path}: not a JSON object` };
  const sections: Partial<Record<ConfigSection, unknown>> = {};
  const unknownKeys: string[] = [];
  for (const [key, section] of Object.entries(value)) {
    if ((CONFIG_SECTIONS as readonly string[]).includes(key)) sections[key as ConfigSection] = section;
    else unknownKeys.push(key);
  }
  return { kind: "ok", path, sections, unknownKeys };
}
