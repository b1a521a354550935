// The Debian mirror debootstrap fetches from: the machine's own apt source, since no other host is reachable.
// Debian 12 machines may have only deb822 files (/etc/apt/sources.list.d/*.sources) and no sources.list.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const DEFAULT_MIRROR = "http://deb.debian.org/debian";

type Stanza = Record<string, string>;

/** Parse deb822 stanzas: `Key: value` fields, continuation lines start with whitespace, `#` lines are comments. */
export function parseDeb822(text: string): Stanza[] {
  const stanzas: Stanza[] = [];
  let current: Stanza = {};
  let last: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === "") {
      if (Object.keys(current).length > 0) stanzas.push(current);
      current = {};
      last = undefined;
    } else if (line.startsWith("#")) continue;
    else if (/^\s/.test(line) && last !== undefined) current[last] += ` ${line.trim()}`;
    else {
      const match = /^([A-Za-z0-9-]+):\s*(.*)$/.exec(line);
      if (!match) continue;
      last = (match[1] as string).toLowerCase();
      current[last] = (match[2] as string).trim();
    }
  }
  if (Object.keys(current).length > 0) stanzas.push(current);
  return stanzas;
}

const words = (value: string | undefined) => (value ?? "").split(/\s+/).filter(Boolean);

/** The first `deb` source serving `suite` (e.g. bookworm, not bookworm-security), from deb822 text. */
export function mirrorFromDeb822(text: string, suite: string): string | undefined {
  for (const stanza of parseDeb822(text)) {
    if (stanza.enabled?.toLowerCase() === "no") continue;
    if (!words(stanza.types).includes("deb") || !words(stanza.suites).includes(suite)) continue;
    const uri = words(stanza.uris).find((candidate) => /^https?:\/\//.test(candidate));
    if (uri) return uri.replace(/\/+$/, "");
  }
  return undefined;
}

/** The first `deb URI suite ...` line of a one-line-style sources.list. */
export function mirrorFromSourcesList(text: string, suite: string): string | undefined {
  for (const line of text.split(/\r?\n/)) {
    const fields = line
      .replace(/\[[^\]]*\]/, "")
      .trim()
      .split(/\s+/);
    if (fields[0] === "deb" && fields[2] === suite && /^https?:\/\//.test(fields[1] ?? ""))
      return (fields[1] as string).replace(/\/+$/, "");
  }
  return undefined;
}

/** The machine's mirror for `suite`: deb822 files first, then sources.list, else deb.debian.org. */
export function findMirror(suite: string, aptDir = "/etc/apt"): string {
  const read = (path: string) => {
    try {
      return readFileSync(path, "utf8");
    } catch {
      return "";
    }
  };
  let parts: string[] = [];
  try {
    parts = readdirSync(join(aptDir, "sources.list.d")).sort();
  } catch {
    // no sources.list.d
  }
  for (const name of parts.filter((part) => part.endsWith(".sources"))) {
    const found = mirrorFromDeb822(read(join(aptDir, "sources.list.d", name)), suite);
    if (found) return found;
  }
  for (const path of [
    join(aptDir, "sources.list"),
    ...parts.filter((part) => part.endsWith(".list")).map((part) => join(aptDir, "sources.list.d", part)),
  ]) {
    const found = mirrorFromSourcesList(read(path), suite);
    if (found) return found;
  }
  return DEFAULT_MIRROR;
}
