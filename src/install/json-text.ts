// Minimal text edits to JSON config files: a changed value, an added property or array item, a removed one. Everything
// else in the file (indentation, key order, compact lines, line endings, the final newline, comments) stays byte for
// byte. Each edit is verified: the edited text must parse to exactly the old data with that one change, in no looser a
// dialect than the file was in.
import { isDeepStrictEqual } from "node:util";
import { findNodeAtLocation, parse, parseTree, printParseErrorCode, type Node, type ParseError } from "jsonc-parser";

export type JsonPath = readonly (string | number)[];

/**
 * What a harness reads in its config file, from strictest to loosest: plain JSON (Claude Code, Codex, Pi, Copilot
 * CLI); comments too (Gemini CLI 0.61 and Qwen Code 0.24 strip them, then JSON.parse); comments and trailing commas
 * (OpenCode 1.18 parses its config with jsonc-parser, allowTrailingComma).
 */
export type JsonDialect = "json" | "comments" | "jsonc";
const DIALECTS: readonly JsonDialect[] = ["json", "comments", "jsonc"];

export interface JsonStyle {
  readonly indent: string;
  readonly eol: string;
}

export type JsonDocument = { ok: true; text: string; data: Record<string, unknown>; style: JsonStyle } | { ok: false; detail: string };

type Parsed = { ok: true; data: unknown; dialect: JsonDialect } | { ok: false; detail: string };

/** The value of `text` and the strictest dialect it is valid in (loosest: `allowed`). */
function parseText(text: string, allowed: JsonDialect): Parsed {
  let strictError: string;
  try {
    return { ok: true, data: JSON.parse(text), dialect: "json" };
  } catch (error) {
    strictError = (error as Error).message;
  }
  for (const dialect of DIALECTS.slice(1, DIALECTS.indexOf(allowed) + 1)) {
    const errors: ParseError[] = [];
    const data: unknown = parse(text, errors, {
      disallowComments: false,
      allowTrailingComma: dialect === "jsonc",
      allowEmptyContent: false,
    });
    if (errors.length === 0) return { ok: true, data, dialect };
    if (dialect === allowed) {
      const first = errors[0] as ParseError;
      const what = allowed === "jsonc" ? "JSON with comments" : "JSON (comments allowed)";
      return { ok: false, detail: `not valid ${what} (${printParseErrorCode(first.error)} at offset ${first.offset})` };
    }
  }
  return { ok: false, detail: `not valid JSON (${strictError})` };
}

/**
 * Parse a config file's text (top level an object) in the dialect its harness reads (plain JSON unless said).
 * Whitespace only counts as an empty document.
 */
export function parseJsonDocument(text: string, dialect: JsonDialect = "json"): JsonDocument {
  if (text.trim() === "") return { ok: true, text: "", data: {}, style: { indent: "  ", eol: "\n" } };
  const parsed = parseText(text, dialect);
  if (!parsed.ok) return parsed;
  const { data } = parsed;
  if (typeof data !== "object" || data === null || Array.isArray(data)) return { ok: false, detail: "the top level is not a JSON object" };
  return { ok: true, text, data: data as Record<string, unknown>, style: detectStyle(text) };
}

function detectStyle(text: string): JsonStyle {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const indented = /\n([ \t]+)\S/.exec(text);
  return { indent: indented ? (indented[1]?.startsWith("\t") ? "\t" : (indented[1] as string)) : "  ", eol };
}

function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf("\n", offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start, offset))?.[0] ?? "";
}

function sameLine(text: string, from: number, to: number): boolean {
  return !text.slice(from, to).includes("\n");
}

function render(value: unknown, base: string, style: JsonStyle): string {
  return JSON.stringify(value, null, style.indent).split("\n").join(`${style.eol}${base}`);
}

function nodeAt(text: string, path: JsonPath): Node | undefined {
  const root = parseTree(text);
  return root ? findNodeAtLocation(root, [...path]) : undefined;
}

function splice(text: string, start: number, end: number, insert: string): string {
  return text.slice(0, start) + insert + text.slice(end);
}

function setIn(data: unknown, path: JsonPath, value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  if (Array.isArray(data)) return data.map((item, index) => (index === head ? setIn(item, rest, value) : item));
  const record = (typeof data === "object" && data !== null ? data : {}) as Record<string, unknown>;
  return { ...record, [head as string]: setIn(record[head as string], rest, value) };
}

function removeIn(data: unknown, path: JsonPath): unknown {
  const [head, ...rest] = path;
  if (Array.isArray(data))
    return rest.length === 0
      ? data.filter((_, index) => index !== head)
      : data.map((item, index) => (index === head ? removeIn(item, rest) : item));
  const record = data as Record<string, unknown>;
  if (rest.length === 0) return Object.fromEntries(Object.entries(record).filter(([key]) => key !== head));
  return { ...record, [head as string]: removeIn(record[head as string], rest) };
}

function verified(before: string, after: string, expected: (data: unknown) => unknown): string {
  const old = before.trim() === "" ? ({ ok: true, data: {}, dialect: "json" } as const) : parseText(before, "jsonc");
  if (!old.ok) throw new Error(`the file is ${old.detail}`);
  const edited = parseText(after, old.dialect);
  if (!edited.ok || !isDeepStrictEqual(edited.data, expected(old.data)))
    throw new Error("a JSON edit did not produce the intended data (duplicate keys?)");
  return after;
}

/**
 * Where a new member goes after the last one, `end`: on a multi-line container, after a comment that closes that
 * member's line (`"a": 1 // note`), so the comment stays with its member; the comma still goes right after it.
 */
function lineTail(text: string, end: number): number {
  const eol = text.indexOf("\n", end);
  const lineEnd = eol === -1 ? text.length : text[eol - 1] === "\r" ? eol - 1 : eol;
  return /^[ \t]*(\/\/.*|\/\*.*\*\/[ \t]*)$/.test(text.slice(end, lineEnd)) ? lineEnd : end;
}

/** Append `member` (rendered at the indentation given) to a container whose children are `first` .. `last`. */
function appendMember(text: string, container: Node, member: (indent: string) => string, compact: string, style: JsonStyle): string {
  const children = container.children ?? [];
  const last = children.at(-1) as Node;
  const first = children[0] as Node;
  const end = last.offset + last.length;
  if (sameLine(text, container.offset, first.offset)) return splice(text, end, end, `, ${compact}`);
  const indent = lineIndent(text, first.offset);
  // A trailing comma (JSONC) stays where it is, and the new member gets one of its own, as its neighbours have.
  const trailing = /^[ \t]*,/.exec(text.slice(end));
  if (trailing) {
    const tail = lineTail(text, end + trailing[0].length);
    return `${text.slice(0, tail)}${style.eol}${indent}${member(indent)},${text.slice(tail)}`;
  }
  const tail = lineTail(text, end);
  return `${text.slice(0, end)},${text.slice(end, tail)}${style.eol}${indent}${member(indent)}${text.slice(tail)}`;
}

/**
 * Put the first member into an empty container. One that holds only whitespace is written anew (`{}` becomes the
 * member on lines of its own); one that holds comments keeps them after the member, which goes right after the bracket.
 */
function fillEmpty(text: string, container: Node, member: (indent: string) => string, style: JsonStyle): string {
  const base = lineIndent(text, container.offset);
  const inner = base + style.indent;
  const open = text[container.offset] as string;
  const end = container.offset + container.length;
  if (text.slice(container.offset + 1, end - 1).trim() !== "")
    return splice(text, container.offset + 1, container.offset + 1, `${style.eol}${inner}${member(inner)}`);
  return splice(text, container.offset, end, `${open}${style.eol}${inner}${member(inner)}${style.eol}${base}${text[end - 1] as string}`);
}

/** Add `key: value` to the object at `objectNode`, after its last property. */
function insertProperty(text: string, objectNode: Node, key: string, value: unknown, style: JsonStyle): string {
  const name = JSON.stringify(key);
  if ((objectNode.children ?? []).length === 0)
    return fillEmpty(text, objectNode, (inner) => `${name}: ${render(value, inner, style)}`, style);
  return appendMember(text, objectNode, (indent) => `${name}: ${render(value, indent, style)}`, `${name}: ${JSON.stringify(value)}`, style);
}

/** Set the value at `path`, creating missing objects on the way. */
export function setJsonValue(text: string, path: JsonPath, value: unknown, style: JsonStyle): string {
  if (text.trim() === "") {
    const data = setIn({}, path, value);
    return verified(text, `${render(data, "", style)}${style.eol}`, () => data);
  }
  const existing = nodeAt(text, path);
  if (existing) {
    const after = splice(text, existing.offset, existing.offset + existing.length, render(value, lineIndent(text, existing.offset), style));
    return verified(text, after, (data) => setIn(data, path, value));
  }
  for (let depth = path.length - 1; depth >= 0; depth--) {
    const parent = nodeAt(text, path.slice(0, depth));
    if (!parent) continue;
    if (parent.type !== "object") throw new Error(`cannot add ${String(path[depth])}: its parent is not an object`);
    const nested = path.slice(depth + 1).reduceRight<unknown>((inner, key) => ({ [key as string]: inner }), value);
    return verified(text, insertProperty(text, parent, path[depth] as string, nested, style), (data) => setIn(data, path, value));
  }
  throw new Error("the document has no root object");
}

/** Append `value` to the array at `path` (created when absent). */
export function appendJsonItem(text: string, path: JsonPath, value: unknown, style: JsonStyle): string {
  const array = text.trim() === "" ? undefined : nodeAt(text, path);
  if (!array) return setJsonValue(text, path, [value], style);
  if (array.type !== "array") throw new Error(`${path.join(".")} is not an array`);
  let after: string;
  if ((array.children ?? []).length === 0) after = fillEmpty(text, array, (inner) => render(value, inner, style), style);
  else after = appendMember(text, array, (indent) => render(value, indent, style), JSON.stringify(value), style);
  return verified(text, after, (data) => setIn(data, path, [...(nodeValue(data, path) as unknown[]), value]));
}

function nodeValue(data: unknown, path: JsonPath): unknown {
  return path.reduce<unknown>((inner, key) => (inner as Record<string | number, unknown>)[key as string], data);
}

/** Remove the property or array item at `path`, with the separator and whitespace that belonged to it. */
export function removeJsonValue(text: string, path: JsonPath): string {
  const valueNode = nodeAt(text, path);
  if (!valueNode) return text;
  const member = valueNode.parent?.type === "property" ? valueNode.parent : valueNode;
  const container = member.parent;
  if (!container) throw new Error("cannot remove the root");
  const siblings = container.children ?? [];
  const index = siblings.indexOf(member);
  let after: string;
  const memberEnd = member.offset + member.length;
  const ownLine = newlineOnlyBefore(text, member.offset);
  const trailingComma = index === siblings.length - 1 ? /^[ \t]*,/.exec(text.slice(memberEnd)) : null;
  if (siblings.length === 1) {
    const end = memberEnd + (trailingComma?.[0].length ?? 0);
    const before = text.slice(container.offset + 1, member.offset);
    const rest = text.slice(end, container.offset + container.length - 1);
    if ((before + rest).trim() === "")
      after = splice(text, container.offset, container.offset + container.length, container.type === "object" ? "{}" : "[]");
    // Comments in the container stay: after the bracket (the inverse of fillEmpty), or on their own lines before it.
    else if (before.trim() === "") after = splice(text, container.offset + 1, end, "");
    else after = splice(text, ownLine ? lineBreakBefore(text, member.offset) : member.offset, end, "");
  } else if (trailingComma && ownLine && index > 0)
    // The inverse of appending to a container with a trailing comma: the member's line, its comma included.
    after = splice(text, lineBreakBefore(text, member.offset), memberEnd + trailingComma[0].length, "");
  else if (index > 0) after = removeAfter(text, siblings[index - 1] as Node, member);
  else after = splice(text, member.offset, (siblings[1] as Node).offset, "");
  return verified(text, after, (data) => removeIn(data, path));
}

/**
 * Remove `member`, which follows `previous`: the inverse of appendMember. When the member has a line of its own and
 * only a comment closes the previous line after the comma, that comment stays and the comma and the member's line go;
 * otherwise everything from the previous member's end to this one's.
 */
function removeAfter(text: string, previous: Node, member: Node): string {
  const previousEnd = previous.offset + previous.length;
  const comma = text.indexOf(",", previousEnd);
  const eol = lineBreakBefore(text, member.offset);
  const ownLine =
    comma !== -1 &&
    /^[ \t]*$/.test(text.slice(previousEnd, comma)) &&
    eol > comma &&
    newlineOnlyBefore(text, member.offset) &&
    lineTail(text, comma + 1) === eol;
  if (!ownLine) return splice(text, previousEnd, member.offset + member.length, "");
  return text.slice(0, comma) + text.slice(comma + 1, eol) + text.slice(member.offset + member.length);
}

/** Is `offset` the first thing on its line but for blanks? */
function newlineOnlyBefore(text: string, offset: number): boolean {
  return /^[ \t]*$/.test(text.slice(text.lastIndexOf("\n", offset - 1) + 1, offset));
}

/** Where the line break before `offset`'s line starts (at its \r when it is \r\n). */
function lineBreakBefore(text: string, offset: number): number {
  const newline = text.lastIndexOf("\n", offset - 1);
  return text[newline - 1] === "\r" ? newline - 1 : newline;
}
