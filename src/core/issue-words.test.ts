import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { describeIssue } from "./issue-words.ts";
import { lazySchema } from "./lazy-schema.ts";

const Schema = lazySchema(() =>
  z.strictObject({
    name: z.string().check(z.regex(/^[a-z]+$/, "not a name (a-z)")),
    count: z.optional(z.int().check(z.gte(0), z.lte(10))),
    mode: z.optional(z.enum(["fast", "slow"])),
    tags: z.optional(z.array(z.string().check(z.maxLength(3))).check(z.minLength(1))),
    table: z.optional(z.record(z.string().check(z.regex(/^[a-z]+$/, "not a key (a-z)")), z.boolean())),
    nested: z.optional(z.strictObject({ on: z.boolean() })),
    either: z.optional(z.union([z.boolean(), z.array(z.enum(["a", "b"]))])),
    version: z.optional(z.literal(1)),
  }),
);

/** The words for `input`, parsed by Schema. */
function words(input: unknown): string {
  const parsed = Schema.safeParse(input);
  if (parsed.success) throw new Error("expected a mismatch");
  return describeIssue(parsed.error, input, Schema);
}

describe("describeIssue: the key, the value found, what is allowed", () => {
  it.each([
    ["not an object", "text", '"text" is a string, not an object'],
    ["a list instead of an object", [1], "a list of 1, not an object"],
    ["a missing key", {}, "name: missing (a string is required)"],
    ["a wrong type", { name: 5 }, "name: 5 is a number, not a string"],
    ["a check's own words", { name: "A\x1b]52;c;x\x07" }, 'name: "A\\u001b]52;c;x\\u0007": not a name (a-z)'],
    ["a number out of range", { name: "a", count: 11 }, "count: 11 is too large; it must be at most 10"],
    ["a fraction for a whole number", { name: "a", count: 1.5 }, "count: 1.5 is a number, not a whole number"],
    ["an enum", { name: "a", mode: "medium" }, 'mode: "medium" is not one of fast, slow'],
    ["a literal", { name: "a", version: 2 }, "version: 2 is not allowed; it must be 1"],
    ["an empty list", { name: "a", tags: [] }, "tags: 0 entries; it needs at least 1"],
    ["a long string in a list", { name: "a", tags: ["abcd"] }, 'tags[0]: "abcd" has 4 characters; at most 3 are allowed'],
    ["a record's key", { name: "a", table: { "B#(x)": true } }, 'table: key "B#(x)": not a key (a-z)'],
    ["a record's value", { name: "a", table: { b: "yes" } }, 'table.b: "yes" is a string, not true or false'],
    ["an unknown key", { name: "a", nmae: "b" }, 'unknown key "nmae" (allowed: name, count, mode, tags, table, nested, either, version)'],
    ["a nested unknown key", { name: "a", nested: { on: true, of: 1 } }, 'nested: unknown key "of" (allowed: on)'],
    ["a union of kinds", { name: "a", either: "yes" }, 'either: "yes" is a string, not true or false, or a list'],
    ["a union's deepest branch", { name: "a", either: ["a", "c"] }, 'either[1]: "c" is not one of a, b'],
  ])("%s", (_what, input, expected) => {
    expect(words(input)).toBe(expected);
  });

  it("quotes a long or hostile value cut and made visible, and a hostile key too", () => {
    expect(words({ name: `${"\x9b".repeat(100)}` })).toBe(`name: "${"\\u009b".repeat(79)}…": not a name (a-z)`);
    expect(words({ name: "a", "\x1b]2;t\x07": 1 })).toBe(
      'unknown key "\\u001b]2;t\\u0007" (allowed: name, count, mode, tags, table, nested, either, version)',
    );
  });

  it("without the input or the schema, still says where and what is wrong", () => {
    const parsed = Schema.safeParse({ name: "a", zz: 1 });
    expect(parsed.success).toBe(false);
    if (!parsed.success) expect(describeIssue(parsed.error)).toBe('unknown key "zz"');
  });
});
