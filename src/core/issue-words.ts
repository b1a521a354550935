// A schema mismatch in words a person reads: which key, the value found there (made safe and cut, terminal-text.ts),
// and what is allowed. zod's own messages say `Invalid input` for most of this (zod/mini carries no locale), so the
// words are made here from the issue's structure; a message a schema gives its own check (`"not an event name (a-z,
// 0-9, -)"`) is kept, after the value.
import type * as z from "zod/mini";
import { quoted } from "./terminal-text.ts";

type Issue = z.core.$ZodIssue;

/** What a schema is made of, as far as finding the keys an object allows (zod's `_zod.def`). */
interface Def {
  readonly type: string;
  readonly shape?: Readonly<Record<string, unknown>>;
  readonly innerType?: unknown;
  readonly in?: unknown;
  readonly element?: unknown;
  readonly valueType?: unknown;
}

const defOf = (schema: unknown): Def | undefined => (schema as { _zod?: { def?: Def } } | undefined)?._zod?.def;

const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "nonoptional", "readonly", "catch"]);

function unwrap(schema: unknown): unknown {
  for (let def = defOf(schema); def && (WRAPPERS.has(def.type) || def.type === "pipe"); def = defOf(schema))
    schema = def.type === "pipe" ? def.in : def.innerType;
  return schema;
}

/** The keys the object schema at `path` allows, when the schema says (through objects, lists and records). */
function keysAt(schema: unknown, path: readonly PropertyKey[]): string[] | undefined {
  let current = unwrap(schema);
  for (const key of path) {
    const def = defOf(current);
    if (def?.type === "object") current = def.shape?.[String(key)];
    else if (def?.type === "array") current = def.element;
    else if (def?.type === "record") current = def.valueType;
    else return undefined;
    current = unwrap(current);
  }
  const def = defOf(current);
  return def?.type === "object" && def.shape ? Object.keys(def.shape) : undefined;
}

/** The value at `path` in `input` (undefined when absent). */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** `agents[3].events.done`; a key that is not a plain name quoted (and made safe). */
export function pathWords(path: readonly PropertyKey[]): string {
  return path
    .map((key, index) =>
      typeof key === "number"
        ? `[${key}]`
        : /^[A-Za-z_][A-Za-z0-9_-]*$/.test(String(key))
          ? `${index > 0 ? "." : ""}${String(key)}`
          : `[${quoted(String(key))}]`,
    )
    .join("");
}

const KIND: Readonly<Record<string, string>> = {
  string: "a string",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  array: "a list",
  object: "an object",
  record: "an object",
  null: "null",
};

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "boolean") return "a boolean";
  return KIND[typeof value] ?? `a ${typeof value}`;
}

const listed = (values: readonly unknown[]) => values.map((value) => (typeof value === "string" ? value : String(value))).join(", ");

/** A message of the schema's own (its checks' words), not zod's default. */
const ownMessage = (issue: Issue) => (issue.message && !/^Invalid\b/.test(issue.message) ? issue.message : undefined);

function sizeWords(issue: Extract<Issue, { code: "too_small" | "too_big" }>, value: unknown): string {
  const small = issue.code === "too_small";
  const bound = Number(small ? issue.minimum : issue.maximum);
  const exclusive = issue.inclusive === false;
  const limit = small ? (exclusive ? `more than ${bound}` : `at least ${bound}`) : exclusive ? `less than ${bound}` : `at most ${bound}`;
  const allowed = small ? `it needs ${limit}` : `${limit} are allowed`;
  switch (issue.origin) {
    case "string":
      return `${quoted(value)} has ${Array.from(String(value)).length} characters; ${allowed}`;
    case "array":
    case "set":
      return `${Array.isArray(value) ? `${value.length} entries` : quoted(value)}; ${allowed}`;
    default:
      return `${quoted(value)} is ${small ? "too small" : "too large"}; it must be ${limit}`;
  }
}

/** How a value is named in a message: a string, number or boolean quoted; a list or an object by its kind. */
const named = (value: unknown) =>
  typeof value === "object" && value !== null ? `${quoted(value)},` : `${quoted(value)} is ${kindOf(value)},`;

/** A union none of whose branches took the value: the kinds it takes, or the branch that got furthest. */
function unionWords(issue: Extract<Issue, { code: "invalid_union" }>, value: unknown, path: readonly PropertyKey[]): string {
  const branches = issue.errors.map((errors) => errors[0]).filter((first): first is Issue => first !== undefined);
  const expected = branches.map((branch) => (branch.code === "invalid_type" && branch.path.length === 0 ? branch.expected : undefined));
  if (branches.length > 0 && expected.every((kind) => kind !== undefined)) {
    const where = pathWords(path);
    return `${where === "" ? "" : `${where}: `}${named(value)} not ${expected.map((kind) => KIND[kind] ?? kind).join(", or ")}`;
  }
  const deepest = branches.reduce<Issue | undefined>(
    (best, branch) => (best && best.path.length >= branch.path.length ? best : branch),
    undefined,
  );
  return deepest ? issueWords(deepest, value, undefined, path) : `${pathWords(path)}: ${quoted(value)} is not allowed`;
}

/** The problem with `value`, in words (without where it is). */
function issueWords(issue: Issue, input: unknown, schema?: unknown, at: readonly PropertyKey[] = []): string {
  const path = [...at, ...issue.path];
  const value = valueAt(input, issue.path);
  const where = pathWords(path);
  const prefix = where === "" ? "" : `${where}: `;
  switch (issue.code) {
    case "invalid_type":
      return value === undefined
        ? `${prefix}missing (${KIND[issue.expected] ?? issue.expected} is required)`
        : `${prefix}${named(value)} not ${KIND[issue.expected] ?? issue.expected}`;
    case "invalid_value":
      return issue.values.length === 1
        ? `${prefix}${quoted(value)} is not allowed; it must be ${quoted(issue.values[0])}`
        : `${prefix}${quoted(value)} is not one of ${listed(issue.values)}`;
    case "unrecognized_keys": {
      const allowed = schema === undefined ? undefined : keysAt(schema, path);
      const keys =
        issue.keys
          .slice(0, 3)
          .map((key) => quoted(key))
          .join(", ") + (issue.keys.length > 3 ? ", ..." : "");
      return `${prefix}unknown key${issue.keys.length > 1 ? "s" : ""} ${keys}${allowed ? ` (allowed: ${allowed.join(", ")})` : ""}`;
    }
    case "invalid_key": {
      const key = issue.path.at(-1);
      const why = issue.issues[0] ? (ownMessage(issue.issues[0]) ?? "not an allowed key") : "not an allowed key";
      return `${pathWords(path.slice(0, -1)) || "key"}${path.length > 1 ? ": key" : ""} ${quoted(String(key))}: ${why}`;
    }
    case "invalid_element":
      return issue.issues[0] ? issueWords(issue.issues[0], value, undefined, path) : `${prefix}${quoted(value)} is not allowed`;
    case "too_small":
    case "too_big":
      return `${prefix}${sizeWords(issue, value)}`;
    case "invalid_union":
      return unionWords(issue, value, path);
    case "invalid_format":
      return `${prefix}${quoted(value)}: ${ownMessage(issue) ?? (issue.pattern ? `does not match ${issue.pattern}` : `not ${issue.format}`)}`;
    default:
      return `${prefix}${quoted(value)}: ${ownMessage(issue) ?? "not allowed"}`;
  }
}

/**
 * The first issue of a zod error as one line: where, the value found (cut, made safe), and what is allowed. Give the
 * `input` that was parsed to quote values, and the `schema` to list the keys an object allows.
 */
export function describeIssue(error: z.core.$ZodError, input?: unknown, schema?: unknown): string {
  const issue = error.issues[0];
  return issue ? issueWords(issue, input, schema) : "schema mismatch";
}
