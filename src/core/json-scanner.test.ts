import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JsonObjectScanner, type ScanState } from "./json-scanner.ts";

const WANTED = new Set(["session_id", "cwd", "tool_name"]);

function scan(text: string | Buffer, chunk = Infinity): { scanner: JsonObjectScanner; state: ScanState; bytes: Buffer } {
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text);
  const scanner = new JsonObjectScanner(WANTED);
  // Fed as the reader feeds it: the same growing input, a chunk at a time.
  let length = Math.min(chunk, bytes.length);
  let state = scanner.feed(bytes, length);
  while (state === "more" && length < bytes.length) {
    length = Math.min(length + chunk, bytes.length);
    state = scanner.feed(bytes, length);
  }
  return { scanner, state, bytes };
}

/** The wanted members as the scanner located them, parsed. */
function located(scanner: JsonObjectScanner, bytes: Buffer): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, span] of scanner.members)
    if (span.end !== undefined) out[name] = JSON.parse(bytes.toString("utf8", span.start, span.end));
  return out;
}

const validity = (text: string): "valid-object" | "valid-other" | "invalid" => {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === "object" && value !== null && !Array.isArray(value) ? "valid-object" : "valid-other";
  } catch {
    return "invalid";
  }
};

describe("JsonObjectScanner", () => {
  it("finds the wanted top-level members of any object, whatever the chunking, exactly as JSON.parse reads them", () => {
    const member = fc.oneof(fc.constantFrom("session_id", "cwd", "tool_name", "other", "nested"), fc.string());
    fc.assert(
      fc.property(fc.dictionary(member, fc.jsonValue()), fc.integer({ min: 1, max: 64 }), fc.boolean(), (object, chunk, pretty) => {
        const text = JSON.stringify(object, null, pretty ? 2 : undefined);
        const { scanner, state, bytes } = scan(text, chunk);
        expect(state).toBe("complete");
        expect(scanner.end).toBe(bytes.length);
        const expected = Object.fromEntries(Object.entries(object).filter(([name]) => WANTED.has(name)));
        expect(located(scanner, bytes)).toEqual(JSON.parse(JSON.stringify(expected)));
      }),
      { numRuns: 300 },
    );
  });

  it("on every prefix of an object, says more is needed and locates only members that are complete", () => {
    const object = {
      session_id: "s-1",
      nested: { session_id: "inner", list: [1, -2.5e3, true, null, 'x\\"y'] },
      cwd: "/w\u00e9\ud83d\ude00",
      tool_name: "Bash",
      n: 0,
    };
    const bytes = Buffer.from(JSON.stringify(object));
    for (let cut = 0; cut < bytes.length; cut++) {
      const { scanner, state } = scan(bytes.subarray(0, cut));
      expect(state).toBe("more");
      for (const [name, value] of Object.entries(located(scanner, bytes))) expect(value).toEqual(object[name as keyof typeof object]);
    }
  });

  it("agrees with JSON.parse on what is JSON (random mutations of valid payloads)", () => {
    const alphabet = ['"', "\\", "{", "}", "[", "]", ":", ",", "0", "1", "-", "+", ".", "e", "E", "t", "n", "u", "x", " ", "\n", "\u0001"];
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.nat(),
        fc.constantFrom(...alphabet),
        fc.constantFrom("insert", "replace", "delete"),
        (object, at, char, edit) => {
          const text = JSON.stringify(object);
          const position = at % (text.length + 1);
          const mutated =
            edit === "insert"
              ? text.slice(0, position) + char + text.slice(position)
              : edit === "replace"
                ? text.slice(0, position) + char + text.slice(position + 1)
                : text.slice(0, position) + text.slice(position + 1);
          const { scanner, state, bytes } = scan(mutated);
          const truth = validity(mutated);
          if (truth === "valid-object") expect(state).toBe("complete");
          else if (truth === "valid-other") expect(state).toBe("not-object");
          else if (state === "complete")
            expect(bytes.subarray(scanner.end).toString().trim()).not.toBe(""); // data after the object
          else expect(["invalid", "more", "not-object"]).toContain(state);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it.each([
    ["leading zero", '{"a":01}', "invalid"],
    ["bare minus", '{"a":-}', "invalid"],
    ["dot without digits", '{"a":1.}', "invalid"],
    ["exponent without digits", '{"a":1e}', "invalid"],
    ["trailing comma", '{"a":1,}', "invalid"],
    ["single quotes", "{'a':1}", "invalid"],
    ["raw newline in a string", '{"a":"x\ny"}', "invalid"],
    ["bad escape", '{"a":"\\x"}', "invalid"],
    ["short unicode escape", '{"a":"\\u12G4"}', "invalid"],
    ["misspelled literal", '{"a":nul}', "invalid"],
    ["mismatched brackets", '{"a":[1}', "invalid"],
    ["an array", "[1,2]", "not-object"],
    ["a string", '"x"', "not-object"],
    ["garbage", "\u0000\u0001garbage", "invalid"],
    ["empty", "", "more"],
    ["whitespace then an object", ' \n\t{"a":1}', "complete"],
  ])("%s: %s", (_name, text, expected) => {
    expect(scan(text).state).toBe(expected);
  });

  it("reads a key spelled with escapes as JSON.parse does, and counts repeated keys", () => {
    const { scanner, bytes } = scan('{"session\\u005fid":"a","cwd":"/x","cwd":"/y"}');
    expect(located(scanner, bytes)).toEqual({ session_id: "a", cwd: "/y" });
    expect(scanner.members.get("cwd")?.count).toBe(2);
  });

  it("stops at the end of the object: what follows is not scanned", () => {
    const { scanner, state } = scan('{"cwd":"/w"} trailing');
    expect(state).toBe("complete");
    expect(scanner.end).toBe(12);
  });

  it("takes nesting as deep as the input goes", () => {
    const depth = 100_000;
    expect(scan(`{"a":${"[".repeat(depth)}${"]".repeat(depth)},"cwd":"/w"}`).state).toBe("complete");
  });
});
