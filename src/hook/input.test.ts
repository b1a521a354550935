import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LIMITS } from "../core/bounds.ts";
import { JsonObjectScanner } from "../core/json-scanner.ts";
import { interpretNative } from "../harnesses/events.ts";
import type { NativeAlias } from "../harnesses/contract.ts";
import { fleetPayload, nativePayload, textPrefix, type InputValue } from "./input.ts";
import { NativePayloadSchema } from "../core/schema.ts";

const bytes = (value: unknown) => Buffer.from(JSON.stringify(value));
const cutAt = (buffer: Buffer, length: number, end: "cap" | "deadline" | "eof" = "cap") => ({ bytes: buffer.subarray(0, length), end });
const valueOf = (read: InputValue) => {
  if (!read.ok) throw new Error(`${read.stage}: ${read.detail}`);
  return read.value as Record<string, unknown>;
};

// Field order as Claude Code sends it (src/harnesses/claude/fixtures): identity first, free text and bulk after.
const claudeStop = (message: string) => ({
  session_id: "7582db2d-8713-44b4-b330-3fa18e456246",
  transcript_path: "/home/user/.claude/projects/p/7582db2d.jsonl",
  cwd: "/home/user/project",
  hook_event_name: "Stop",
  stop_hook_active: false,
  last_assistant_message: message,
  background_tasks: [],
});
const claudePostToolUse = (response: string) => ({
  session_id: "7582db2d-8713-44b4-b330-3fa18e456246",
  cwd: "/home/user/project",
  hook_event_name: "PostToolUse",
  tool_name: "Bash",
  tool_input: { command: "cat big.log" },
  tool_response: { stdout: response, stderr: "", interrupted: false },
  tool_use_id: "toolu_1",
});

describe("nativePayload", () => {
  it("keeps only the members a record needs (tool_use_id too: it ties a permission to its tool)", () => {
    const value = valueOf(nativePayload(bytes({ ...claudePostToolUse("out"), notification_type: "x", prompt: "secret" })));
    expect(value).toEqual({
      session_id: "7582db2d-8713-44b4-b330-3fa18e456246",
      cwd: "/home/user/project",
      tool_name: "Bash",
      tool_use_id: "toolu_1",
      notification_type: "x",
    });
  });

  it("reads the issue's payloads (an 80 KB tool response, a 70 KB reply) to the same transitions as the whole payload", () => {
    const cases: [NativeAlias, object][] = [
      ["tool-done", claudePostToolUse("x".repeat(80_000))],
      ["stop", claudeStop(`Done. ${"All checks pass. ".repeat(4400)}`)],
    ];
    for (const [alias, payload] of cases) {
      const input = bytes(payload);
      expect(input.length).toBeGreaterThan(LIMITS.inputBytes);
      const kept = NativePayloadSchema.parse(valueOf(nativePayload(input)));
      expect(interpretNative(alias, kept)).toEqual(interpretNative(alias, NativePayloadSchema.parse(payload)));
    }
  });

  it("gives the same transition as the whole payload, for any sizes and text (property)", () => {
    const words = fc.constantFrom("ok ", "the ", "tests ", "passed\n", "é ", "日本 ", "😀 ", '"quoted" ', "\\path ", "\t");
    const text = fc.array(words, { maxLength: 4000 }).map((parts) => parts.join(""));
    const aliases: NativeAlias[] = ["tool-use", "tool-done", "permission-request", "notification", "stop"];
    fc.assert(
      fc.property(
        fc.constantFrom(...aliases),
        text,
        text,
        fc.constantFrom("permission_prompt", "idle_prompt", "other"),
        fc.integer({ min: 0, max: 200_000 }),
        (alias, message, tool, type, bulk) => {
          const payload = {
            session_id: "s",
            cwd: "/w",
            tool_name: tool,
            tool_input: { content: "y".repeat(bulk) },
            last_assistant_message: message,
            notification_type: type,
          };
          const kept = NativePayloadSchema.parse(valueOf(nativePayload(bytes(payload))));
          expect(interpretNative(alias, kept)).toEqual(interpretNative(alias, NativePayloadSchema.parse(payload)));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("marks cut free text with an ellipsis, so a prefix never passes for the whole", () => {
    const value = valueOf(nativePayload(bytes(claudeStop(`${" ".repeat(20_000)}tail`))));
    expect(value.last_assistant_message).toBe(`${" ".repeat(LIMITS.keptTextBytes)}…`);
  });

  describe("past the read cap or the time bound: what came before the cut", () => {
    const stop = bytes(claudeStop("z".repeat(100_000)));
    const post = bytes(claudePostToolUse("x".repeat(100_000)));
    const at = (buffer: Buffer, text: string) => buffer.indexOf(text) + text.length;

    it("identity and tool name read whole before a cut inside the tool response", () => {
      expect(valueOf(nativePayload(cutAt(post, 50_000)))).toEqual({
        session_id: "7582db2d-8713-44b4-b330-3fa18e456246",
        cwd: "/home/user/project",
        tool_name: "Bash",
      });
      expect(valueOf(nativePayload(cutAt(post, 50_000, "deadline")))).toMatchObject({ tool_name: "Bash" });
    });

    it("a prefix of a reply cut inside it, marked as cut", () => {
      const value = valueOf(nativePayload(cutAt(stop, at(stop, '"last_assistant_message":"zz'))));
      expect(value.last_assistant_message).toBe("zz…");
    });

    it.each([
      ["before cwd", (buffer: Buffer) => at(buffer, '"transcript_path":'), "before cwd"],
      ["inside the session id", (buffer: Buffer) => at(buffer, '"session_id":"7582'), "inside session_id"],
      ["inside cwd", (buffer: Buffer) => at(buffer, '"cwd":"/home'), "inside cwd"],
      ["at the very start", () => 0, "before session_id and cwd"],
    ])("never a session it did not read whole: cut %s", (_name, where, detail) => {
      const read = nativePayload(cutAt(stop, where(stop)));
      expect(read).toEqual({ ok: false, stage: "input", detail: expect.stringContaining(detail) });
    });

    it("the same bytes ending because the writer closed stdin are not JSON", () => {
      expect(nativePayload(cutAt(post, 50_000, "eof"))).toMatchObject({
        ok: false,
        stage: "input",
        detail: expect.stringContaining("not JSON"),
      });
    });
  });

  it.each<[string, string | Buffer, InputValue]>([
    ["empty", "", { ok: false, stage: "input", detail: "input is empty" }],
    ["garbage", "\u0000garbage", { ok: false, stage: "input", detail: "input is not JSON: unexpected byte at 0" }],
    [
      "data after the object",
      '{"session_id":"s","cwd":"/w"} {}',
      { ok: false, stage: "input", detail: "input is not JSON: data after the object at byte 30" },
    ],
    ["an array", "[1]", { ok: false, stage: "schema", detail: "payload: not a JSON object" }],
    [
      "a repeated key",
      '{"session_id":"a","cwd":"/w","session_id":"b"}',
      { ok: false, stage: "schema", detail: "session_id: appears more than once" },
    ],
    [
      "a session id far too long",
      bytes({ session_id: "s".repeat(4000), cwd: "/w" }),
      { ok: false, stage: "schema", detail: "session_id: longer than 512 bytes" },
    ],
    [
      "a large non-string",
      bytes({ session_id: "s", cwd: "/w", tool_name: { big: "x".repeat(2000) } }),
      { ok: false, stage: "schema", detail: "tool_name: not a string" },
    ],
    ["a small non-string (left to the schema)", '{"session_id":12,"cwd":"/w"}', { ok: true, value: { session_id: 12, cwd: "/w" } }],
    ["trailing whitespace", '{"session_id":"s","cwd":"/w"}\n', { ok: true, value: { session_id: "s", cwd: "/w" } }],
  ])("%s", (_name, input, expected) => {
    expect(nativePayload(Buffer.isBuffer(input) ? input : Buffer.from(input))).toEqual(expected);
  });

  it("a session id just under its bound in escapes is read, not guessed", () => {
    const value = valueOf(nativePayload(Buffer.from(`{"session_id":"${"\\u0041".repeat(LIMITS.idBytes)}","cwd":"/w"}`)));
    expect(value.session_id).toBe("A".repeat(LIMITS.idBytes));
  });
});

describe("nativePayload: a field nested in a small top-level object (a dotted name in nativeFields)", () => {
  // Cline 3.0.65's shape: the session id a user resumes with is sessionContext.rootSessionId (src/harnesses/cline).
  const renames = { "sessionContext.rootSessionId": "session_id" };
  const payload = (sessionContext: unknown, rest: object = {}) => bytes({ taskId: "conv_1", sessionContext, cwd: "/w", ...rest });
  const read = (input: Buffer | { bytes: Buffer; end: "cap" | "deadline" | "eof" }) => nativePayload(input, renames);

  it("reads the nested string under the pipeline's name, and nothing else of the object", () => {
    expect(valueOf(read(payload({ rootSessionId: "1796617950342_j76gq", hookLogPath: "/h/log" })))).toEqual({
      session_id: "1796617950342_j76gq",
      cwd: "/w",
    });
  });

  it("one source per field: a top-level session_id beside it is not read", () => {
    expect(valueOf(read(payload({ rootSessionId: "root" }, { session_id: "other" })))).toEqual({ session_id: "root", cwd: "/w" });
  });

  it.each<[string, Buffer, string]>([
    ["the nested member absent", payload({ hookLogPath: "/h/log" }), "session_id: sessionContext.rootSessionId is absent"],
    ["the object null", payload(null), "session_id: sessionContext.rootSessionId is absent"],
    ["the object a string", payload("root"), "session_id: sessionContext.rootSessionId is absent"],
    ["the nested value a number", payload({ rootSessionId: 12 }), "session_id: sessionContext.rootSessionId is not a string"],
    ["the nested value an object", payload({ rootSessionId: { id: "x" } }), "session_id: sessionContext.rootSessionId is not a string"],
    [
      "the object too large",
      payload({ rootSessionId: "root", hookLogPath: "/".repeat(2000) }),
      "session_id: sessionContext is larger than 1024 bytes",
    ],
    [
      "the nested string over the identity bound",
      payload({ rootSessionId: "s".repeat(LIMITS.idBytes + 1) }),
      "session_id: longer than 512 bytes",
    ],
    [
      "the nested key repeated",
      Buffer.from('{"sessionContext":{"rootSessionId":"a","rootSessionId":"b"},"cwd":"/w"}'),
      "session_id: rootSessionId appears more than once in sessionContext",
    ],
    [
      "the object repeated",
      Buffer.from('{"sessionContext":{"rootSessionId":"a"},"sessionContext":{"rootSessionId":"b"},"cwd":"/w"}'),
      "session_id: sessionContext appears more than once",
    ],
  ])("a clear refusal, never a crash: %s", (_name, input, detail) => {
    expect(read(input)).toEqual({ ok: false, stage: "schema", detail });
  });

  it("the object absent: no session id, which the schema refuses", () => {
    const value = valueOf(read(bytes({ taskId: "conv_1", cwd: "/w" })));
    expect(value).toEqual({ cwd: "/w" });
    expect(NativePayloadSchema.safeParse(value).success).toBe(false);
  });

  it("a deeper path is walked the same way, and a refusal names where", () => {
    // No harness names such a path, so the scanner is told to look for `a` (the registry's names are what the hook scans).
    const deep = (text: string) =>
      nativePayload(
        { bytes: Buffer.from(text), end: "eof", scanner: new JsonObjectScanner(new Set(["a", "cwd"])) },
        { "a.b.c": "session_id" },
      );
    expect(valueOf(deep('{"a":{"b":{"c":"s"}},"cwd":"/w"}'))).toEqual({ session_id: "s", cwd: "/w" });
    expect(deep('{"a":{"b":{"c":"s","c":"t"}},"cwd":"/w"}')).toEqual({
      ok: false,
      stage: "schema",
      detail: "session_id: c appears more than once in a.b",
    });
    expect(deep('{"a":{"b":[]},"cwd":"/w"}')).toEqual({ ok: false, stage: "schema", detail: "session_id: a.b.c is absent" });
  });

  it("a nested id at exactly its bound is read whole", () => {
    expect(valueOf(read(payload({ rootSessionId: "s".repeat(LIMITS.idBytes) }))).session_id).toBe("s".repeat(LIMITS.idBytes));
  });

  it("cut: read when the object came whole before the cut, refused when the cut falls inside it", () => {
    const input = bytes({ sessionContext: { rootSessionId: "root" }, cwd: "/w", tool_result: { output: "x".repeat(100_000) } });
    expect(valueOf(read(cutAt(input, 50_000)))).toEqual({ session_id: "root", cwd: "/w" });
    const inside = input.indexOf('"root"') + 3;
    expect(read(cutAt(input, inside))).toEqual({
      ok: false,
      stage: "input",
      detail: `input cut at the read cap (${inside} bytes) inside sessionContext (session_id)`,
    });
    expect(read(cutAt(input, 10, "deadline"))).toEqual({
      ok: false,
      stage: "input",
      detail: expect.stringContaining("input cut at the input time bound"),
    });
  });
});

describe("textPrefix", () => {
  // JSON with every non-ASCII character escaped, so cuts can fall inside escapes and between surrogate halves.
  const escaped = (text: string) =>
    JSON.stringify(text).replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
  it("cuts only between whole characters and escapes, never in half a surrogate pair (every cut point)", () => {
    const text = 'a"é\\日😀b\n😀';
    for (const json of [JSON.stringify(text), escaped(text)]) {
      const buffer = Buffer.from(json);
      for (let end = 1; end <= buffer.length; end++) {
        const prefix = textPrefix(buffer, 0, end);
        expect(prefix.isWellFormed()).toBe(true);
        expect(text.startsWith(prefix)).toBe(true);
      }
      expect(textPrefix(buffer, 0, buffer.length)).toBe(text);
    }
  });

  it("keeps at most LIMITS.keptTextBytes of JSON text", () => {
    const buffer = Buffer.from(JSON.stringify("😀".repeat(LIMITS.keptTextBytes)));
    const prefix = textPrefix(buffer, 0, buffer.length);
    expect(Buffer.byteLength(prefix)).toBeLessThanOrEqual(LIMITS.keptTextBytes);
    expect(Buffer.byteLength(prefix)).toBeGreaterThan(LIMITS.keptTextBytes - 4);
  });
});

describe("fleetPayload", () => {
  it("parses a whole normalized payload and refuses one that is too large or cut", () => {
    expect(fleetPayload(Buffer.from('{"a":1}'))).toEqual({ ok: true, value: { a: 1 } });
    expect(fleetPayload(Buffer.alloc(LIMITS.inputBytes + 1, " "))).toMatchObject({
      ok: false,
      stage: "input",
      detail: expect.stringContaining("larger than"),
    });
    expect(fleetPayload(cutAt(Buffer.from('{"a":1'), 6, "deadline"))).toMatchObject({
      ok: false,
      stage: "input",
      detail: expect.stringContaining("time bound"),
    });
    expect(fleetPayload(Buffer.from('{"a":'))).toEqual({ ok: false, stage: "input", detail: "input is not JSON" });
  });
});
