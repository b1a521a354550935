import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_MESSAGE_BYTES, MESSAGE_TYPE, decodeMessage, encodeMessage, parseSignature, type DbusMessage } from "./dbus-wire.ts";

const DBUS = { destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus" };

function decoded(bytes: Buffer): DbusMessage {
  const result = decodeMessage(bytes);
  if (result.kind !== "message") throw new Error(`not decoded: ${JSON.stringify(result)}`);
  expect(result.size).toBe(bytes.length);
  return result.message;
}

describe("encodeMessage", () => {
  it("writes Hello byte for byte as the specification lays it out", () => {
    const bytes = encodeMessage({ type: MESSAGE_TYPE.methodCall, flags: 0, serial: 1, ...DBUS, member: "Hello", body: [] });
    const expected = Buffer.concat([
      Buffer.from([0x6c, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0x6d, 0, 0, 0]), // l, call, flags, v1, body 0, serial 1, fields 109 bytes
      Buffer.from([1, 1, 0x6f, 0, 21, 0, 0, 0]), // PATH, signature "o", length 21, then padding to 8
      Buffer.from("/org/freedesktop/DBus\0\0\0", "latin1"),
      Buffer.from([2, 1, 0x73, 0, 20, 0, 0, 0]), // INTERFACE
      Buffer.from("org.freedesktop.DBus\0\0\0\0", "latin1"),
      Buffer.from([3, 1, 0x73, 0, 5, 0, 0, 0]), // MEMBER
      Buffer.from("Hello\0\0\0", "latin1"),
      Buffer.from([6, 1, 0x73, 0, 20, 0, 0, 0]), // DESTINATION, then the header's padding to 8
      Buffer.from("org.freedesktop.DBus\0\0\0\0", "latin1"),
    ]);
    expect(bytes.toString("hex")).toBe(expected.toString("hex"));
    expect(decoded(bytes)).toMatchObject({ type: 1, serial: 1, ...DBUS, member: "Hello", body: [] });
  });

  it("round-trips a Notify call: strings, arrays, a dict of variants, alignment after odd lengths", () => {
    const body = [
      "tongs-agents",
      0,
      "",
      "Claude Code needs you: api",
      "permission: Bash\ntmux %3",
      ["default", "Focus", "focus-0", "Go to api"],
      [["urgency", { signature: "y", value: 2 }]],
      -1,
    ];
    const message = {
      type: MESSAGE_TYPE.methodCall,
      flags: 0,
      serial: 7,
      destination: "org.freedesktop.Notifications",
      path: "/org/freedesktop/Notifications",
      interface: "org.freedesktop.Notifications",
      member: "Notify",
      signature: "susssasa{sv}i",
      body,
    };
    expect(decoded(encodeMessage(message))).toEqual(message);
  });

  it("round-trips every basic type, structs, nested arrays and variants", () => {
    const body = [
      255,
      true,
      -2,
      65535,
      -5,
      4_000_000_000,
      -9n,
      18_000_000_000_000_000_000n,
      1.5,
      "ü",
      "/a/b",
      "a{sv}",
      3,
      [["k", { signature: "as", value: ["x", "y"] }]],
      [[1, "one"]],
      [[], [1, 2]],
    ];
    const message = {
      type: MESSAGE_TYPE.signal,
      flags: 0,
      serial: 2,
      path: "/x",
      interface: "a.b",
      member: "M",
      signature: "ybnqiuxtdsogha{sv}a(us)aau",
      body,
    };
    expect(decoded(encodeMessage(message))).toEqual(message);
  });

  it("refuses NUL and lone surrogates in strings (the last guard after sanitize.ts)", () => {
    const notify = (text: string) => encodeMessage({ type: 1, flags: 0, serial: 1, ...DBUS, member: "X", signature: "s", body: [text] });
    expect(() => notify("a\0b")).toThrow(/NUL/);
    expect(() => notify("a\ud800")).toThrow(/surrogate/);
  });

  it("refuses a body that does not match its signature", () => {
    expect(() => encodeMessage({ type: 1, flags: 0, serial: 1, ...DBUS, member: "X", signature: "ss", body: ["one"] })).toThrow(
      /does not match/,
    );
  });
});

describe("decodeMessage", () => {
  const reply = encodeMessage({
    type: MESSAGE_TYPE.methodReturn,
    flags: 0,
    serial: 3,
    replySerial: 7,
    destination: ":1.5",
    signature: "u",
    body: [42],
  });

  it("waits for the whole message, and reports the size of the first one", () => {
    expect(decodeMessage(reply.subarray(0, 10))).toEqual({ kind: "incomplete" });
    expect(decodeMessage(reply.subarray(0, reply.length - 1))).toEqual({ kind: "incomplete" });
    const two = Buffer.concat([reply, reply]);
    expect(decodeMessage(two)).toMatchObject({ kind: "message", size: reply.length, message: { replySerial: 7, body: [42] } });
  });

  it("reads big-endian messages too", () => {
    // The same reply, big-endian: header fields a(yv) with REPLY_SERIAL u 7, DESTINATION s ":1.5", SIGNATURE g "u".
    const big = Buffer.concat([
      Buffer.from([0x42, 2, 0, 1, 0, 0, 0, 4, 0, 0, 0, 3, 0, 0, 0, 0x1f]),
      Buffer.from([5, 1, 0x75, 0, 0, 0, 0, 7]),
      Buffer.from([6, 1, 0x73, 0, 0, 0, 0, 4]),
      Buffer.from(":1.5\0\0\0\0", "latin1"),
      Buffer.from([8, 1, 0x67, 0, 1, 0x75, 0, 0]),
      Buffer.from([0, 0, 0, 42]),
    ]);
    expect(decodeMessage(big)).toMatchObject({ kind: "message", message: { type: 2, replySerial: 7, destination: ":1.5", body: [42] } });
  });

  it("refuses oversized and malformed messages instead of throwing", () => {
    const huge = Buffer.from(reply);
    huge.writeUInt32LE(MAX_MESSAGE_BYTES, 4);
    expect(decodeMessage(huge)).toMatchObject({ kind: "invalid", detail: expect.stringContaining("larger") });
    const badEndian = Buffer.from(reply);
    badEndian[0] = 0x78;
    expect(decodeMessage(badEndian)).toMatchObject({ kind: "invalid" });
    const lyingArray = encodeMessage({
      type: 4,
      flags: 0,
      serial: 1,
      path: "/x",
      interface: "a.b",
      member: "M",
      signature: "as",
      body: [["a"]],
    });
    const arrayLengthAt = lyingArray.length - 10;
    lyingArray.writeUInt32LE(1000, arrayLengthAt);
    expect(decodeMessage(lyingArray).kind).toBe("invalid");
  });

  it("never throws on arbitrary bytes (property)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 300 }), (bytes) => {
        const result = decodeMessage(Buffer.from(bytes));
        return ["message", "incomplete", "invalid"].includes(result.kind);
      }),
    );
  });
});

describe("parseSignature", () => {
  it("parses complete types and rejects malformed ones", () => {
    expect(parseSignature("susssasa{sv}i")).toHaveLength(8);
    expect(parseSignature("a(yv)")).toEqual([
      { kind: "array", element: { kind: "struct", fields: [{ kind: "basic", code: "y" }, { kind: "variant" }] } },
    ]);
    for (const bad of ["a", "(", "()", "a{vs}", "z", "a{ss", `${"a".repeat(40)}s`]) expect(() => parseSignature(bad)).toThrow();
  });
});
