import * as z from "zod/mini";
import { describe, expect, it, vi } from "vitest";
import { lazySchema } from "./lazy-schema.ts";

describe("lazySchema", () => {
  it("builds the schema at its first use, once, and not before", () => {
    const build = vi.fn(() => z.strictObject({ id: z.string() }));
    const schema = lazySchema(build);
    expect(build).not.toHaveBeenCalled();
    expect(schema.safeParse({ id: "a" })).toMatchObject({ success: true, data: { id: "a" } });
    expect(schema.safeParse({ id: 1 }).success).toBe(false);
    expect(build).toHaveBeenCalledTimes(1);
  });

  it("composes into other schemas, lazy or not, and validates as the schema built at once does", () => {
    const eagerInner = z.string().check(z.minLength(2));
    const inner = lazySchema(() => z.string().check(z.minLength(2)));
    const eager = z.strictObject({ name: eagerInner, tags: z.optional(z.array(eagerInner)), at: z.union([eagerInner, z.int()]) });
    const lazy = lazySchema(() => z.strictObject({ name: inner, tags: z.optional(z.array(inner)), at: z.union([inner, z.int()]) }));
    const inputs: unknown[] = [
      { name: "ab", at: 3 },
      { name: "ab", tags: ["cd", "ef"], at: "gh" },
      { name: "a", at: 3 },
      { name: "ab", tags: ["c"], at: 3 },
      { name: "ab", at: true },
      { name: "ab", at: 3, extra: 1 },
      "not an object",
    ];
    for (const input of inputs) expect(lazy.safeParse(input), JSON.stringify(input)).toEqual(eager.safeParse(input));
    expect(lazy instanceof z.ZodMiniObject).toBe(true);
    expect(inner instanceof z.ZodMiniString).toBe(true);
  });
});
