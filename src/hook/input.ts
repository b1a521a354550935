// From the bytes on the hook's stdin to the JSON value the schemas check (docs/contract.md, "Hook input"). A native
// payload can be many megabytes (a tool response, a file being written, a long reply) of which a record needs a few
// short fields: only those are kept, the rest is checked as JSON and read past. A native payload cut by the read cap or
// the input's time bound still gives what came before the cut; the normalized payload (Pi) is small and must be whole.
import { LIMITS } from "../core/bounds.ts";
import { JsonObjectScanner, type MemberSpan } from "../core/json-scanner.ts";
import type { Harness } from "../harnesses/contract.ts";
import { HARNESSES } from "../harnesses/registry.ts";
import type { StdinEnd } from "./read-stdin.ts";

/** What the hook read: a Buffer is a whole input (tests, callers with the bytes in hand). */
export type HookInput = Buffer | ReadInput;

export interface ReadInput {
  readonly bytes: Buffer;
  readonly end: StdinEnd;
  /** The scanner that was fed while reading, if any (saves scanning the bytes again). */
  readonly scanner?: JsonObjectScanner;
}

export type InputValue = { ok: true; value: unknown } | { ok: false; stage: "input" | "schema"; detail: string };

/** Identity fields: kept only when read whole, with their bound (a longer value is rejected, never shortened). */
const IDENTITY_FIELDS: Readonly<Record<string, number>> = { session_id: LIMITS.idBytes, cwd: LIMITS.cwdBytes };
/** Free text: a prefix is enough (the record keeps one display line of it), marked as cut with an ellipsis. */
const TEXT_FIELDS = [
  "tool_name",
  "tool_use_id",
  "last_assistant_message",
  "notification_type",
  "transcript_path",
  "error_context",
  "error_type",
  "error_message",
  "error",
  "model",
  "trigger",
  "source",
  "agent_id",
  "agent_type",
] as const;
/**
 * Members whose bad or cut value drops the member, never the event (schema.ts keeps them only when well-formed). Copilot
 * CLI's `error` is an object: it is not the StopFailure class of error, and never a reason to refuse its event.
 */
const OPTIONAL_FIELDS: ReadonlySet<string> = new Set([
  "transcript_path",
  "tool_use_id",
  "error",
  "model",
  "trigger",
  "agent_id",
  "agent_type",
]);
/** Every member of a native payload the hook reads (events.ts, NativePayloadSchema); the rest is never kept. */
export const NATIVE_FIELDS: ReadonlySet<string> = new Set([...Object.keys(IDENTITY_FIELDS), ...TEXT_FIELDS]);
/** The top-level member a harness's name for a field is in (`sessionContext` for `sessionContext.rootSessionId`). */
const topMember = (source: string) => source.split(".", 1)[0] as string;
/** What the scanner looks for: those, and the names harnesses give them in their own payloads (contract.ts). */
const SCANNED_FIELDS: ReadonlySet<string> = new Set([
  ...NATIVE_FIELDS,
  ...(HARNESSES as readonly Harness[]).flatMap((harness) => Object.keys(harness.nativeFields ?? {}).map((source) => topMember(source))),
]);
/** A non-string value of a wanted member is parsed (for the schema to name its type) only up to this size. */
const OTHER_VALUE_BYTES = 1024;
const CUT_MARK = "…";

export function newNativeScanner(): JsonObjectScanner {
  return new JsonObjectScanner(SCANNED_FIELDS);
}

function whole(input: HookInput): ReadInput {
  return Buffer.isBuffer(input) ? { bytes: input, end: "eof" } : input;
}

const isWhitespace = (c: number | undefined) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** The normalized payload: whole, at most LIMITS.inputBytes, parsed as is (its schema is strict). */
export function fleetPayload(input: HookInput): InputValue {
  const { bytes, end } = whole(input);
  if (bytes.length > LIMITS.inputBytes) return { ok: false, stage: "input", detail: `input larger than ${LIMITS.inputBytes} bytes` };
  if (end === "cap" || end === "deadline") return { ok: false, stage: "input", detail: cutDetail(end, bytes.length) };
  try {
    return { ok: true, value: JSON.parse(bytes.toString("utf8")) };
  } catch {
    return { ok: false, stage: "input", detail: "input is not JSON" };
  }
}

function cutDetail(end: "cap" | "deadline", at: number): string {
  return end === "cap" ? `input cut at the read cap (${at} bytes)` : `input cut at the input time bound (${at} bytes read)`;
}

/** Where a field the hook reads is in a harness's payload: the top-level member, or a string inside it (`path`). */
interface FieldSource {
  readonly name: string;
  readonly path: readonly string[];
}

/** The pipeline's fields a top-level member of this harness's payload holds: none when the hook does not read it. */
function fieldsOf(member: string, renames: Readonly<Record<string, string>>): FieldSource[] {
  const fields = Object.entries(renames)
    .filter(([source]) => topMember(source) === member)
    .map(([source, name]) => ({ name, path: source.split(".").slice(1) }));
  if (fields.length > 0) return fields;
  // A harness that names a field its own way is read only under that name (never two sources for one field).
  if (Object.values(renames).includes(member)) return [];
  return NATIVE_FIELDS.has(member) ? [{ name: member, path: [] }] : [];
}

/**
 * A native payload: validated as JSON as far as it was read, reduced to the members the hook reads (under the
 * pipeline's names: `renames` maps a harness's own names to them, a dotted name to a string inside a small top-level
 * object). Past a cut (read cap or time bound) the members read whole before it are used; session_id and cwd must be
 * among them.
 */
export function nativePayload(input: HookInput, renames: Readonly<Record<string, string>> = {}): InputValue {
  const read = whole(input);
  const { bytes } = read;
  const scanner = read.scanner ?? newNativeScanner();
  const state = scanner.feed(bytes, bytes.length);
  if (state === "invalid") return { ok: false, stage: "input", detail: `input is not JSON: ${scanner.error}` };
  if (state === "not-object") return { ok: false, stage: "schema", detail: "payload: not a JSON object" };
  let cut: "cap" | "deadline" | undefined;
  if (state === "complete") {
    for (let at = scanner.end as number; at < bytes.length; at++) {
      if (!isWhitespace(bytes[at])) return { ok: false, stage: "input", detail: `input is not JSON: data after the object at byte ${at}` };
    }
  } else if (read.end === "cap" || read.end === "deadline") cut = read.end;
  else
    return {
      ok: false,
      stage: "input",
      detail: bytes.length === 0 ? "input is empty" : `input is not JSON: it ends inside the object (${bytes.length} bytes)`,
    };

  const value: Record<string, unknown> = {};
  const reading: Reading = { bytes, cut, value };
  for (const [member, span] of scanner.members) {
    for (const field of fieldsOf(member, renames)) {
      const refused = field.path.length === 0 ? readMember(reading, span, field.name) : readNested(reading, span, member, field);
      if (refused) return refused;
    }
  }
  if (cut) {
    const missing = Object.keys(IDENTITY_FIELDS).filter((name) => !(name in value));
    if (missing.length > 0) return { ok: false, stage: "input", detail: `${cutDetail(cut, bytes.length)} before ${missing.join(" and ")}` };
  }
  return { ok: true, value };
}

type Refusal = Extract<InputValue, { ok: false }>;

/** The input as read, where it was cut (if it was), and the members kept so far (under the pipeline's names). */
interface Reading {
  readonly bytes: Buffer;
  readonly cut: "cap" | "deadline" | undefined;
  readonly value: Record<string, unknown>;
}

/** A top-level member into `value` under `name`, or why the event is refused. */
function readMember({ bytes, cut, value }: Reading, span: MemberSpan, name: string): Refusal | undefined {
  if (span.count > 1)
    return OPTIONAL_FIELDS.has(name) ? undefined : { ok: false, stage: "schema", detail: `${name}: appears more than once` };
  const identityBytes = IDENTITY_FIELDS[name];
  if (span.end === undefined) {
    // The cut fell inside this value.
    if (identityBytes !== undefined)
      return { ok: false, stage: "input", detail: `${cutDetail(cut as "cap" | "deadline", bytes.length)} inside ${name}` };
    if (!OPTIONAL_FIELDS.has(name) && span.kind === "string") value[name] = textPrefix(bytes, span.start, bytes.length) + CUT_MARK;
  } else if (span.kind === "other") {
    if (OPTIONAL_FIELDS.has(name)) return undefined;
    if (span.end - span.start > OTHER_VALUE_BYTES) return { ok: false, stage: "schema", detail: `${name}: not a string` };
    value[name] = JSON.parse(bytes.toString("utf8", span.start, span.end));
  } else if (identityBytes !== undefined) {
    // Each byte of the value takes at most six bytes of JSON (\u00XX): a longer JSON string is certainly too long.
    if (span.end - span.start > 6 * identityBytes + 2)
      return { ok: false, stage: "schema", detail: `${name}: longer than ${identityBytes} bytes` };
    value[name] = JSON.parse(bytes.toString("utf8", span.start, span.end));
  } else if (span.end - span.start <= LIMITS.keptTextBytes + 2) value[name] = JSON.parse(bytes.toString("utf8", span.start, span.end));
  else value[name] = textPrefix(bytes, span.start, span.end) + CUT_MARK;
  return undefined;
}

/**
 * A string inside a top-level object of at most OTHER_VALUE_BYTES (Cline's `sessionContext.rootSessionId`) into `value`
 * under the field's name, or why the event is refused: an object cut, too large, repeated, or without that string
 * refuses the event unless the field is optional. Every key on the path is found as the top level's are, so a repeated
 * one is as ambiguous here as there. A string that fits in the object is shorter than LIMITS.keptTextBytes: kept whole.
 */
function readNested({ bytes, cut, value }: Reading, span: MemberSpan, member: string, field: FieldSource): Refusal | undefined {
  const { name } = field;
  const optional = OPTIONAL_FIELDS.has(name);
  const refuse = (detail: string): Refusal | undefined =>
    optional ? undefined : { ok: false, stage: "schema", detail: `${name}: ${detail}` };
  if (span.end === undefined) {
    if (optional) return undefined;
    return { ok: false, stage: "input", detail: `${cutDetail(cut as "cap" | "deadline", bytes.length)} inside ${member} (${name})` };
  }
  if (span.count > 1) return refuse(`${member} appears more than once`);
  if (span.end - span.start > OTHER_VALUE_BYTES) return refuse(`${member} is larger than ${OTHER_VALUE_BYTES} bytes`);
  const where = [member, ...field.path].join(".");
  let inner = bytes.subarray(span.start, span.end);
  let parent = member;
  for (const key of field.path) {
    const scanner = new JsonObjectScanner(new Set([key]));
    const found = scanner.feed(inner, inner.length) === "complete" ? scanner.members.get(key) : undefined;
    if (!found) return refuse(`${where} is absent`);
    if (found.count > 1) return refuse(`${key} appears more than once in ${parent}`);
    inner = inner.subarray(found.start, found.end);
    parent = `${parent}.${key}`;
  }
  const read: unknown = JSON.parse(inner.toString("utf8"));
  if (typeof read !== "string") return refuse(`${where} is not a string`);
  const identityBytes = IDENTITY_FIELDS[name];
  if (identityBytes !== undefined && Buffer.byteLength(read) > identityBytes) return refuse(`longer than ${identityBytes} bytes`);
  value[name] = read;
  return undefined;
}

/**
 * The first LIMITS.keptTextBytes of the JSON string whose opening quote is at `start` (the scanner has validated it),
 * decoded; cut only between whole characters and whole escapes, never in half a surrogate pair.
 */
export function textPrefix(bytes: Uint8Array, start: number, end: number): string {
  const limit = Math.min(end, start + 1 + LIMITS.keptTextBytes);
  let at = start + 1;
  while (at < limit) {
    const c = bytes[at] as number;
    if (c === 0x22) break;
    const size = c === 0x5c ? (bytes[at + 1] === 0x75 ? 6 : 2) : c < 0xc0 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
    if (at + size > limit) break;
    at += size;
  }
  const text = JSON.parse(`"${Buffer.from(bytes.buffer, bytes.byteOffset + start + 1, at - start - 1).toString("utf8")}"`) as string;
  const last = text.charCodeAt(text.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? text.slice(0, -1) : text;
}
