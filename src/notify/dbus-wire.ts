// The D-Bus wire format (https://dbus.freedesktop.org/doc/dbus-specification.html, "Message Protocol"): enough of it
// to call a notification server and read its signals. Messages are written little-endian and read in either byte
// order. Every type can be read, so an unexpected reply is skipped rather than misread; unix fds are never
// negotiated, so none arrive.

export type DbusType =
  | { readonly kind: "basic"; readonly code: string }
  | { readonly kind: "array"; readonly element: DbusType }
  | { readonly kind: "struct"; readonly fields: readonly DbusType[] }
  | { readonly kind: "dict-entry"; readonly key: DbusType; readonly value: DbusType }
  | { readonly kind: "variant" };

/** A variant's value with its signature, e.g. `{ signature: "y", value: 2 }` for a notification's urgency. */
export interface Variant {
  readonly signature: string;
  readonly value: unknown;
}

export const MESSAGE_TYPE = { methodCall: 1, methodReturn: 2, error: 3, signal: 4 } as const;

export interface DbusMessage {
  readonly type: number;
  readonly flags: number;
  readonly serial: number;
  readonly path?: string;
  readonly interface?: string;
  readonly member?: string;
  readonly errorName?: string;
  readonly replySerial?: number;
  readonly destination?: string;
  readonly sender?: string;
  readonly signature?: string;
  readonly body: readonly unknown[];
}

/** A message this large is refused (a notification server's replies are tiny; the protocol allows 128 MiB). */
export const MAX_MESSAGE_BYTES = 1024 * 1024;

const ALIGNMENT: Record<string, number> = {
  y: 1,
  b: 4,
  n: 2,
  q: 2,
  i: 4,
  u: 4,
  x: 8,
  t: 8,
  d: 8,
  s: 4,
  o: 4,
  g: 1,
  h: 4,
  a: 4,
  "(": 8,
  "{": 8,
  v: 1,
};
const BASIC = "ybnqiuxtdsogh";

/** Parse a signature into its complete types. Throws on a malformed signature (ours are constants; theirs are checked). */
export function parseSignature(signature: string): DbusType[] {
  const types: DbusType[] = [];
  let at = 0;
  const one = (depth: number): DbusType => {
    if (depth > 32) throw new Error(`signature nested too deeply: ${signature}`);
    const code = signature[at++];
    if (code === undefined) throw new Error(`signature ends early: ${signature}`);
    if (BASIC.includes(code)) return { kind: "basic", code };
    if (code === "v") return { kind: "variant" };
    if (code === "a") {
      if (signature[at] === "{") {
        at++;
        const key = one(depth + 1);
        if (key.kind !== "basic") throw new Error(`dict key must be basic: ${signature}`);
        const value = one(depth + 1);
        if (signature[at++] !== "}") throw new Error(`dict entry not closed: ${signature}`);
        return { kind: "array", element: { kind: "dict-entry", key, value } };
      }
      return { kind: "array", element: one(depth + 1) };
    }
    if (code === "(") {
      const fields: DbusType[] = [];
      while (signature[at] !== ")") {
        if (at >= signature.length) throw new Error(`struct not closed: ${signature}`);
        fields.push(one(depth + 1));
      }
      at++;
      if (fields.length === 0) throw new Error(`empty struct: ${signature}`);
      return { kind: "struct", fields };
    }
    throw new Error(`unknown type code ${JSON.stringify(code)} in ${signature}`);
  };
  while (at < signature.length) types.push(one(0));
  return types;
}

/** A fixed-size basic type: its size (which is also its alignment), how it is written (little-endian) and read. */
interface FixedType {
  readonly size: 1 | 2 | 4 | 8;
  write(buffer: Buffer, value: unknown, at: number): void;
  read(buffer: Buffer, at: number, little: boolean): unknown;
}

const FIXED: Record<string, FixedType> = {
  y: { size: 1, write: (b, v, at) => b.writeUInt8(Number(v), at), read: (b, at) => b.readUInt8(at) },
  b: {
    size: 4,
    write: (b, v, at) => b.writeUInt32LE(v ? 1 : 0, at),
    read: (b, at, le) => (le ? b.readUInt32LE(at) : b.readUInt32BE(at)) !== 0,
  },
  n: { size: 2, write: (b, v, at) => b.writeInt16LE(Number(v), at), read: (b, at, le) => (le ? b.readInt16LE(at) : b.readInt16BE(at)) },
  q: { size: 2, write: (b, v, at) => b.writeUInt16LE(Number(v), at), read: (b, at, le) => (le ? b.readUInt16LE(at) : b.readUInt16BE(at)) },
  i: { size: 4, write: (b, v, at) => b.writeInt32LE(Number(v), at), read: (b, at, le) => (le ? b.readInt32LE(at) : b.readInt32BE(at)) },
  u: { size: 4, write: (b, v, at) => b.writeUInt32LE(Number(v), at), read: (b, at, le) => (le ? b.readUInt32LE(at) : b.readUInt32BE(at)) },
  h: { size: 4, write: (b, v, at) => b.writeUInt32LE(Number(v), at), read: (b, at, le) => (le ? b.readUInt32LE(at) : b.readUInt32BE(at)) },
  x: {
    size: 8,
    write: (b, v, at) => b.writeBigInt64LE(BigInt(v as bigint | number), at),
    read: (b, at, le) => (le ? b.readBigInt64LE(at) : b.readBigInt64BE(at)),
  },
  t: {
    size: 8,
    write: (b, v, at) => b.writeBigUInt64LE(BigInt(v as bigint | number), at),
    read: (b, at, le) => (le ? b.readBigUInt64LE(at) : b.readBigUInt64BE(at)),
  },
  d: { size: 8, write: (b, v, at) => b.writeDoubleLE(Number(v), at), read: (b, at, le) => (le ? b.readDoubleLE(at) : b.readDoubleBE(at)) },
};

const alignOf = (type: DbusType): number =>
  type.kind === "basic" ? (ALIGNMENT[type.code] as number) : type.kind === "array" ? 4 : type.kind === "variant" ? 1 : 8;

/** Little-endian writer; offsets (and so alignment) count from the start of the message. */
class Writer {
  private buffer = Buffer.alloc(256);
  length = 0;

  private ensure(extra: number): void {
    if (this.length + extra <= this.buffer.length) return;
    const larger = Buffer.alloc(Math.max(this.buffer.length * 2, this.length + extra));
    this.buffer.copy(larger, 0, 0, this.length);
    this.buffer = larger;
  }

  align(to: number): void {
    const padding = (to - (this.length % to)) % to;
    this.ensure(padding);
    this.buffer.fill(0, this.length, this.length + padding);
    this.length += padding;
  }

  byte(value: number): void {
    this.ensure(1);
    this.buffer.writeUInt8(value, this.length);
    this.length += 1;
  }

  uint32At(offset: number, value: number): void {
    this.buffer.writeUInt32LE(value, offset);
  }

  fixed(code: string, value: unknown): void {
    const spec = FIXED[code];
    if (!spec) throw new Error(`not a fixed type: ${code}`);
    this.align(spec.size);
    this.ensure(spec.size);
    spec.write(this.buffer, value, this.length);
    this.length += spec.size;
  }

  text(code: "s" | "o" | "g", value: unknown): void {
    if (typeof value !== "string") throw new Error(`expected a string for ${code}`);
    // D-Bus strings are valid UTF-8 without NUL: callers clean agent text first (sanitize.ts); this is the last guard.
    if (value.includes("\0") || !value.isWellFormed()) throw new Error("D-Bus strings cannot hold NUL or lone surrogates");
    const bytes = Buffer.from(value, "utf8");
    if (code === "g") {
      if (bytes.length > 255) throw new Error("signature too long");
      this.byte(bytes.length);
    } else {
      this.fixed("u", bytes.length);
    }
    this.ensure(bytes.length + 1);
    bytes.copy(this.buffer, this.length);
    this.length += bytes.length;
    this.byte(0);
  }

  value(type: DbusType, value: unknown): void {
    switch (type.kind) {
      case "basic":
        if (type.code === "s" || type.code === "o" || type.code === "g") this.text(type.code, value);
        else this.fixed(type.code, value);
        return;
      case "variant": {
        const variant = value as Variant;
        const [inner, ...rest] = parseSignature(variant.signature);
        if (!inner || rest.length > 0) throw new Error(`a variant holds exactly one type, not ${variant.signature}`);
        this.text("g", variant.signature);
        this.value(inner, variant.value);
        return;
      }
      case "struct": {
        this.align(8);
        const fields = value as readonly unknown[];
        type.fields.forEach((field, index) => this.value(field, fields[index]));
        return;
      }
      case "dict-entry": {
        this.align(8);
        const [key, entry] = value as readonly [unknown, unknown];
        this.value(type.key, key);
        this.value(type.value, entry);
        return;
      }
      case "array": {
        this.fixed("u", 0);
        const lengthAt = this.length - 4;
        this.align(alignOf(type.element));
        const start = this.length;
        for (const element of value as readonly unknown[]) this.value(type.element, element);
        this.uint32At(lengthAt, this.length - start);
        return;
      }
    }
  }

  bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}

const HEADER_FIELDS = [
  [1, "path", "o"],
  [2, "interface", "s"],
  [3, "member", "s"],
  [4, "errorName", "s"],
  [5, "replySerial", "u"],
  [6, "destination", "s"],
  [7, "sender", "s"],
  [8, "signature", "g"],
] as const;

export function encodeMessage(message: DbusMessage): Buffer {
  const body = new Writer();
  const types = parseSignature(message.signature ?? "");
  if (types.length !== message.body.length)
    throw new Error(`signature ${message.signature ?? ""} does not match ${message.body.length} body values`);
  types.forEach((type, index) => body.value(type, message.body[index]));
  const header = new Writer();
  header.byte("l".charCodeAt(0));
  header.byte(message.type);
  header.byte(message.flags);
  header.byte(1);
  header.fixed("u", body.length);
  header.fixed("u", message.serial);
  const fields: [number, Variant][] = [];
  for (const [code, key, signature] of HEADER_FIELDS) {
    const value = message[key];
    if (value !== undefined && !(key === "signature" && value === "")) fields.push([code, { signature, value }]);
  }
  header.value(parseSignature("a(yv)")[0] as DbusType, fields);
  header.align(8);
  return Buffer.concat([header.bytes(), body.bytes()]);
}

/** Reader over one whole message; offsets count from its start. */
class Reader {
  offset = 0;

  constructor(
    private readonly buffer: Buffer,
    private readonly little: boolean,
  ) {}

  private need(bytes: number): void {
    if (this.offset + bytes > this.buffer.length) throw new Error("message ends early");
  }

  align(to: number): void {
    this.offset += (to - (this.offset % to)) % to;
  }

  uint32(): number {
    this.align(4);
    this.need(4);
    const value = this.little ? this.buffer.readUInt32LE(this.offset) : this.buffer.readUInt32BE(this.offset);
    this.offset += 4;
    return value;
  }

  private fixed(code: string): unknown {
    const spec = FIXED[code] as FixedType;
    this.align(spec.size);
    this.need(spec.size);
    const value = spec.read(this.buffer, this.offset, this.little);
    this.offset += spec.size;
    return value;
  }

  private text(code: string): string {
    let length: number;
    if (code === "g") {
      this.need(1);
      length = this.buffer.readUInt8(this.offset);
      this.offset += 1;
    } else {
      length = this.uint32();
    }
    this.need(length + 1);
    const value = this.buffer.toString("utf8", this.offset, this.offset + length);
    this.offset += length + 1;
    return value;
  }

  value(type: DbusType, depth = 0): unknown {
    if (depth > 64) throw new Error("message nested too deeply");
    switch (type.kind) {
      case "basic":
        return type.code === "s" || type.code === "o" || type.code === "g" ? this.text(type.code) : this.fixed(type.code);
      case "variant": {
        const signature = this.text("g");
        const [inner, ...rest] = parseSignature(signature);
        if (!inner || rest.length > 0) throw new Error(`bad variant signature ${signature}`);
        return { signature, value: this.value(inner, depth + 1) } satisfies Variant;
      }
      case "struct":
        this.align(8);
        return type.fields.map((field) => this.value(field, depth + 1));
      case "dict-entry":
        this.align(8);
        return [this.value(type.key, depth + 1), this.value(type.value, depth + 1)];
      case "array": {
        const length = this.uint32();
        this.align(alignOf(type.element));
        const end = this.offset + length;
        if (end > this.buffer.length) throw new Error("array runs past the message");
        const values: unknown[] = [];
        while (this.offset < end) values.push(this.value(type.element, depth + 1));
        if (this.offset !== end) throw new Error("array elements overrun its length");
        return values;
      }
    }
  }
}

export type Decoded =
  | { readonly kind: "message"; readonly message: DbusMessage; readonly size: number }
  | { readonly kind: "incomplete" }
  | { readonly kind: "invalid"; readonly detail: string };

/** The first whole message in `buffer` (which may hold more, or less). */
export function decodeMessage(buffer: Buffer): Decoded {
  if (buffer.length < 16) return { kind: "incomplete" };
  const endian = String.fromCharCode(buffer[0] as number);
  if (endian !== "l" && endian !== "B") return { kind: "invalid", detail: `bad endianness byte ${buffer[0]}` };
  const little = endian === "l";
  const bodyLength = little ? buffer.readUInt32LE(4) : buffer.readUInt32BE(4);
  const fieldsLength = little ? buffer.readUInt32LE(12) : buffer.readUInt32BE(12);
  const headerLength = 16 + fieldsLength + ((8 - ((16 + fieldsLength) % 8)) % 8);
  const size = headerLength + bodyLength;
  if (size > MAX_MESSAGE_BYTES) return { kind: "invalid", detail: `message of ${size} bytes is larger than ${MAX_MESSAGE_BYTES}` };
  if (buffer.length < size) return { kind: "incomplete" };
  try {
    const reader = new Reader(buffer.subarray(0, size), little);
    reader.offset = 12;
    const fields = reader.value(parseSignature("a(yv)")[0] as DbusType) as [number, Variant][];
    const header: Record<string, unknown> = {};
    for (const [code, variant] of fields) {
      const known = HEADER_FIELDS.find(([fieldCode]) => fieldCode === code);
      if (known) header[known[1]] = variant.value;
    }
    reader.offset = headerLength;
    const signature = typeof header.signature === "string" ? header.signature : "";
    const body = parseSignature(signature).map((type) => reader.value(type));
    const message: DbusMessage = {
      type: buffer[1] as number,
      flags: buffer[2] as number,
      serial: little ? buffer.readUInt32LE(8) : buffer.readUInt32BE(8),
      ...header,
      body,
    };
    return { kind: "message", message, size };
  } catch (error) {
    return { kind: "invalid", detail: (error as Error).message };
  }
}
