// An owned-table writer for TOML config files (Codex's config.toml): it finds, adds, rewrites and removes whole
// `[a.b."c"]` tables by their header lines, and leaves every other byte (comments, spacing, key order, other tables)
// as it was. Each edit is verified by parsing: the result must equal the old data with exactly that table changed.
import { isDeepStrictEqual } from "node:util";
import { parse } from "smol-toml";

export type TomlDocument = { ok: true; text: string; data: Record<string, unknown> } | { ok: false; detail: string };

export function parseTomlDocument(text: string): TomlDocument {
  try {
    return { ok: true, text, data: parse(text) as Record<string, unknown> };
  } catch (error) {
    return { ok: false, detail: `not valid TOML (${(error as Error).message.split("\n")[0]})` };
  }
}

export interface TableSpan {
  readonly path: readonly string[];
  readonly array: boolean;
  /** Line index of the header. */
  readonly start: number;
  /** One past the table's last key line (comments and blank lines before the next header belong to that header). */
  readonly end: number;
}

const BARE_KEY = /^[A-Za-z0-9_-]+$/;

export function tomlKey(key: string): string {
  return BARE_KEY.test(key) ? key : tomlString(key);
}

/** A TOML basic string: JSON-like escapes, control characters and DEL as \uXXXX. */
export function tomlString(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    if (char === '"' || char === "\\") out += `\\${char}`;
    else if (code < 0x20 || code === 0x7f) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += char;
  }
  return `${out}"`;
}

export type TomlScalar = string | number | boolean | readonly string[];

function tomlValue(value: TomlScalar): string {
  if (typeof value === "string") return tomlString(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return `[${value.map(tomlString).join(", ")}]`;
}

export function tableHeader(path: readonly string[]): string {
  return `[${path.map(tomlKey).join(".")}]`;
}

function parseKeyPath(source: string): string[] | undefined {
  const parts: string[] = [];
  let rest = source.trim();
  while (rest.length > 0) {
    let match: RegExpExecArray | null;
    if ((match = /^[A-Za-z0-9_-]+/.exec(rest))) parts.push(match[0]);
    else if ((match = /^"((?:[^"\\]|\\.)*)"/.exec(rest))) {
      try {
        parts.push(
          JSON.parse(
            `"${(match[1] as string).replace(/\\U([0-9a-fA-F]{8})/g, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)).replace(/[\\"]/g, "\\$&"))}"`,
          ),
        );
      } catch {
        return undefined;
      }
    } else if ((match = /^'([^']*)'/.exec(rest))) parts.push(match[1] as string);
    else return undefined;
    rest = rest.slice(match[0].length).trimStart();
    if (rest.length === 0) break;
    if (!rest.startsWith(".")) return undefined;
    rest = rest.slice(1).trimStart();
  }
  return parts.length > 0 ? parts : undefined;
}

/** Every table header in the text, found by a small lexer that skips strings, comments and multi-line values. */
export function tableSpans(text: string): TableSpan[] {
  const lines = text.split("\n");
  const headers: { line: number; path: string[]; array: boolean }[] = [];
  let depth = 0;
  let mode: "normal" | "ml-basic" | "ml-literal" = "normal";
  for (let lineIndex = 0; lineIndex < lines.length; lineIndex++) {
    const line = lines[lineIndex] as string;
    let index = 0;
    if (mode === "normal" && depth === 0) {
      const header = /^\s*(\[\[?)(.*?)(\]\]?)\s*(#.*)?\r?$/.exec(line);
      if (header && (header[1] as string).length === (header[3] as string).length) {
        const path = parseKeyPath(header[2] as string);
        if (path) {
          headers.push({ line: lineIndex, path, array: header[1] === "[[" });
          continue;
        }
      }
    }
    while (index < line.length) {
      if (mode === "ml-basic" || mode === "ml-literal") {
        const quote = mode === "ml-basic" ? '"""' : "'''";
        if (mode === "ml-basic" && line[index] === "\\") {
          index += 2;
          continue;
        }
        if (line.startsWith(quote, index)) {
          mode = "normal";
          index += 3;
          while (line[index] === quote[0]) index++;
          continue;
        }
        index++;
        continue;
      }
      const char = line[index] as string;
      if (char === "#") break;
      if (char === '"' || char === "'") {
        if (line.startsWith(char.repeat(3), index)) {
          mode = char === '"' ? "ml-basic" : "ml-literal";
          index += 3;
          continue;
        }
        index++;
        while (index < line.length && line[index] !== char) index += char === '"' && line[index] === "\\" ? 2 : 1;
        index++;
        continue;
      }
      if (char === "[" || char === "{") depth++;
      else if (char === "]" || char === "}") depth = Math.max(0, depth - 1);
      index++;
    }
  }
  return headers.map((header, position) => {
    const next = headers[position + 1]?.line ?? lines.length;
    let end = header.line + 1;
    for (let lineIndex = header.line + 1; lineIndex < next; lineIndex++) {
      const content = (lines[lineIndex] as string).trim();
      if (content !== "" && !content.startsWith("#")) end = lineIndex + 1;
    }
    return { path: header.path, array: header.array, start: header.line, end };
  });
}

export function findTable(text: string, path: readonly string[]): TableSpan | undefined {
  return tableSpans(text).find((span) => !span.array && isDeepStrictEqual(span.path, path));
}

/** The key/value lines of the table at `span`, parsed on their own. */
export function tableBody(text: string, span: TableSpan): Record<string, unknown> | undefined {
  const body = text
    .split("\n")
    .slice(span.start + 1, span.end)
    .join("\n");
  const parsed = parseTomlDocument(body);
  return parsed.ok ? parsed.data : undefined;
}

function pruneEmpty(value: unknown): unknown {
  // Arrays too: the parser's tables have no prototype, the ones an edit expects do; comparing rebuilt copies ignores that.
  if (Array.isArray(value)) return value.map(pruneEmpty);
  if (typeof value !== "object" || value === null || value instanceof Date) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    const pruned = pruneEmpty(inner);
    if (
      typeof pruned === "object" &&
      pruned !== null &&
      !Array.isArray(pruned) &&
      !(pruned instanceof Date) &&
      Object.keys(pruned).length === 0
    )
      continue;
    out[key] = pruned;
  }
  return out;
}

function withTable(
  data: Record<string, unknown>,
  path: readonly string[],
  table: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const [head, ...rest] = path as [string, ...string[]];
  const copy = { ...data };
  if (rest.length === 0) {
    if (table === undefined) delete copy[head];
    else copy[head] = table;
  } else copy[head] = withTable((data[head] as Record<string, unknown> | undefined) ?? {}, rest, table);
  return copy;
}

function verify(before: string, after: string, path: readonly string[], table: Record<string, unknown> | undefined): string {
  const old = parseTomlDocument(before);
  const now = parseTomlDocument(after);
  if (!old.ok) throw new Error(old.detail);
  if (!now.ok) throw new Error(`editing ${tableHeader(path)} would make the file invalid: ${now.detail}`);
  if (!isDeepStrictEqual(pruneEmpty(now.data), pruneEmpty(withTable(old.data, path, table)))) {
    throw new Error(`${tableHeader(path)} is also defined in a form this installer does not edit (dotted keys or an inline table)`);
  }
  return after;
}

function eolOf(text: string): string {
  return text.includes("\r\n") ? "\r\n" : "\n";
}

/**
 * Write the table at `path` with exactly `entries`. An existing table keeps its header line and position; a new one
 * goes after the last table whose path starts with `group` (else at the end), separated by one blank line.
 */
export function setTable(
  text: string,
  path: readonly string[],
  entries: readonly (readonly [string, TomlScalar])[],
  group: readonly string[] = path.slice(0, -1),
): string {
  const eol = eolOf(text);
  const cr = eol === "\r\n" ? "\r" : "";
  const body = entries.map(([key, value]) => `${tomlKey(key)} = ${tomlValue(value)}${cr}`);
  const table = Object.fromEntries(entries.map(([key, value]) => [key, value]));
  const lines = text.split("\n");
  const spans = tableSpans(text);
  const existing = spans.find((span) => !span.array && isDeepStrictEqual(span.path, path));
  if (existing) {
    lines.splice(existing.start + 1, existing.end - existing.start - 1, ...body);
    return verify(text, lines.join("\n"), path, table);
  }
  const block = [`${tableHeader(path)}${cr}`, ...body];
  const anchor = group.length > 0 ? spans.filter((span) => isDeepStrictEqual(span.path.slice(0, group.length), group)).at(-1) : undefined;
  if (anchor) {
    lines.splice(anchor.end, 0, cr, ...block);
    return verify(text, lines.join("\n"), path, table);
  }
  if (text === "") return verify(text, `${block.join("\n")}\n`, path, table);
  const head = text.endsWith("\n") ? text : text + eol;
  const separator = /(^|\n)\r?\n$/.test(head) ? "" : eol;
  return verify(text, `${head}${separator}${block.join("\n")}\n`, path, table);
}

/** Remove the table at `path` and the one blank line that separated it. */
export function removeTable(text: string, path: readonly string[]): string {
  const span = findTable(text, path);
  if (!span) return text;
  const lines = text.split("\n");
  const blank = (index: number) =>
    index >= 0 && index < lines.length && (lines[index] as string).trim() === "" && !(index === lines.length - 1 && lines[index] === "");
  let start = span.start;
  let end = span.end;
  if (blank(start - 1) && start - 2 >= 0 && !blank(start - 2)) start--;
  else if (blank(end)) end++;
  lines.splice(start, end - start);
  return verify(text, lines.join("\n"), path, undefined);
}

/** One `[[path]]` table: where it is, and its key lines parsed on their own (undefined when they do not parse alone). */
export interface ArrayTable {
  readonly span: TableSpan;
  readonly body: Record<string, unknown> | undefined;
}

/** Every `[[path]]` table in the text, in order: the i-th is the array's i-th element. */
export function arrayTables(text: string, path: readonly string[]): ArrayTable[] {
  return tableSpans(text)
    .filter((span) => span.array && isDeepStrictEqual(span.path, path))
    .map((span) => ({ span, body: tableBody(text, span) }));
}

export interface ArrayTableEdit {
  /** Tables (by their header's line) whose key lines become these entries, in place. */
  readonly replace?: ReadonlyMap<number, readonly (readonly [string, TomlScalar])[]>;
  /** Tables (by their header's line) to remove, with the blank line that separated each. */
  readonly remove?: ReadonlySet<number>;
  /** New tables, after the last table of the array that is kept (else at the end), each after one blank line. */
  readonly append?: readonly (readonly (readonly [string, TomlScalar])[])[];
}

function valueAt(data: Record<string, unknown>, path: readonly string[]): unknown {
  let value: unknown = data;
  for (const key of path)
    value = typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}

/**
 * Edit the array of tables at `path` (`[[hooks]]`), every other byte as it was. Verified by parsing: the array must
 * become exactly the old one with those elements replaced, removed and appended, and nothing else may change.
 */
export function editArrayTables(text: string, path: readonly string[], edit: ArrayTableEdit): string {
  const eol = eolOf(text);
  const cr = eol === "\r\n" ? "\r" : "";
  const old = parseTomlDocument(text);
  if (!old.ok) throw new Error(old.detail);
  const tables = arrayTables(text, path);
  const current = valueAt(old.data, path);
  if (current !== undefined && (!Array.isArray(current) || current.length !== tables.length))
    throw new Error(`${path.join(".")} is also defined in a form this installer does not edit (an inline array)`);
  const bodyOf = (entries: readonly (readonly [string, TomlScalar])[]) =>
    entries.map(([key, value]) => `${tomlKey(key)} = ${tomlValue(value)}${cr}`);
  const valueOf = (entries: readonly (readonly [string, TomlScalar])[]) => Object.fromEntries(entries.map(([key, value]) => [key, value]));
  const remove = edit.remove ?? new Set<number>();
  const expected: unknown[] = [];
  tables.forEach((table, index) => {
    if (remove.has(table.span.start)) return;
    const replaced = edit.replace?.get(table.span.start);
    expected.push(replaced ? valueOf(replaced) : (current as unknown[])[index]);
  });
  for (const entries of edit.append ?? []) expected.push(valueOf(entries));

  const lines = text.split("\n");
  const kept = tables.filter((table) => !remove.has(table.span.start));
  // Ops from the bottom up, so each one's line numbers still hold.
  const ops: { at: number; apply: () => void }[] = [];
  for (const table of tables) {
    const { start, end } = table.span;
    const replaced = edit.replace?.get(start);
    if (remove.has(start)) {
      ops.push({
        at: start,
        apply: () => {
          const blank = (index: number) =>
            index >= 0 &&
            index < lines.length &&
            (lines[index] as string).trim() === "" &&
            !(index === lines.length - 1 && lines[index] === "");
          let from = start;
          let to = end;
          if (blank(from - 1) && (from - 2 < 0 || !blank(from - 2))) from--;
          else if (blank(to)) to++;
          lines.splice(from, to - from);
        },
      });
    } else if (replaced) ops.push({ at: start, apply: () => void lines.splice(start + 1, end - start - 1, ...bodyOf(replaced)) });
  }
  const appended = (edit.append ?? []).flatMap((entries) => [cr, `[[${path.map(tomlKey).join(".")}]]${cr}`, ...bodyOf(entries)]);
  if (appended.length > 0) {
    const anchor = kept.at(-1)?.span.end;
    if (anchor !== undefined) ops.push({ at: anchor, apply: () => void lines.splice(anchor, 0, ...appended) });
    else if (text === "") ops.push({ at: 0, apply: () => void lines.splice(0, 1, ...appended.slice(1), "") });
    else {
      if (!text.endsWith("\n")) lines.push("");
      const last = lines.length - 1;
      const separated = last === 0 || (lines[last - 1] as string).trim() === "";
      ops.push({ at: last, apply: () => void lines.splice(last, 0, ...(separated ? appended.slice(1) : appended)) });
    }
  }
  ops.sort((a, b) => b.at - a.at).forEach((op) => op.apply());
  const after = lines.join("\n");
  const now = parseTomlDocument(after);
  if (!now.ok) throw new Error(`editing [[${path.join(".")}]] would make the file invalid: ${now.detail}`);
  const want = withTable(old.data, path, expected.length === 0 ? undefined : (expected as unknown as Record<string, unknown>));
  if (!isDeepStrictEqual(pruneEmpty(now.data), pruneEmpty(want)))
    throw new Error(`[[${path.join(".")}]] could not be edited in place without changing something else`);
  return after;
}
