// Minimal text edits to JSON config files: a changed value, an added property or array item, a removed one. Everything
// else in the file (indentation, key order, compact lines, line endings, the final newline) stays byte for byte.
// Each edit is verified: the edited text must parse to exactly the old data with that one change.
import { isDeepStrictEqual } from "node:util";
import { findNodeAtLocation, parseTree, type Node } from "jsonc-parser";

export type JsonPath = readonly (string | number)[];

export interface JsonStyle {
  readonly indent: string;
  readonly eol: string;
}

export type JsonDocument = { ok: true; text: string; data: Record<string, unknown>; style: JsonStyle } | { ok: false; detail: string };

/** Parse a config file's text strictly (JSON, top level an object). Whitespace only counts as an empty document. */
export function parseJsonDocument(text: string): JsonDocument {
  if (text.trim() === "") return { ok: true, text: "", data: {}, style: { indent: "  ", eol: "\n" } };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { ok: false, detail: `not valid JSON (${(error as Error).message})` };
  }
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
  const old = before.trim() === "" ? {} : JSON.parse(before);
  if (!isDeepStrictEqual(JSON.parse(after), expected(old)))
    throw new Error("a JSON edit did not produce the intended data (duplicate keys?)");
  return after;
}

/** Add `key: value` to the object at `objectNode`, after its last property. */
function insertProperty(text: string, objectNode: Node, key: string, value: unknown, style: JsonStyle): string {
  const children = objectNode.children ?? [];
  const last = children.at(-1);
  const first = children[0];
  if (!last || !first) {
    const base = lineIndent(text, objectNode.offset);
    const inner = base + style.indent;
    return splice(
      text,
      objectNode.offset,
      objectNode.offset + objectNode.length,
      `{${style.eol}${inner}${JSON.stringify(key)}: ${render(value, inner, style)}${style.eol}${base}}`,
    );
  }
  const end = last.offset + last.length;
  if (sameLine(text, objectNode.offset, first.offset)) return splice(text, end, end, `, ${JSON.stringify(key)}: ${JSON.stringify(value)}`);
  const indent = lineIndent(text, first.offset);
  return splice(text, end, end, `,${style.eol}${indent}${JSON.stringify(key)}: ${render(value, indent, style)}`);
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
  const items = array.children ?? [];
  const last = items.at(-1);
  const first = items[0];
  let after: string;
  if (!last || !first) {
    const base = lineIndent(text, array.offset);
    const inner = base + style.indent;
    after = splice(
      text,
      array.offset,
      array.offset + array.length,
      `[${style.eol}${inner}${render(value, inner, style)}${style.eol}${base}]`,
    );
  } else {
    const end = last.offset + last.length;
    if (sameLine(text, array.offset, first.offset)) after = splice(text, end, end, `, ${JSON.stringify(value)}`);
    else {
      const indent = lineIndent(text, first.offset);
      after = splice(text, end, end, `,${style.eol}${indent}${render(value, indent, style)}`);
    }
  }
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
  if (siblings.length === 1)
    after = splice(text, container.offset, container.offset + container.length, container.type === "object" ? "{}" : "[]");
  else if (index > 0) {
    const previous = siblings[index - 1] as Node;
    after = splice(text, previous.offset + previous.length, member.offset + member.length, "");
  } else after = splice(text, member.offset, (siblings[1] as Node).offset, "");
  return verified(text, after, (data) => removeIn(data, path));
}
