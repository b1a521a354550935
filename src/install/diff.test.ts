import { describe, expect, it } from "vitest";
import { diffLines } from "./diff.ts";

describe("diffLines", () => {
  it("shows added and removed lines with context", () => {
    expect(diffLines("a\nb\nc\nd\ne\nf\n", "a\nb\nc\nX\nd\ne\nf\n", 1)).toEqual(["@@ line 3 @@", "  c", "+ X", "  d"]);
    expect(diffLines("a\nb\nc\n", "a\nc\n", 1)).toEqual(["@@ line 1 @@", "  a", "- b", "  c"]);
    expect(diffLines(null, "x\n")).toEqual(["@@ line 1 @@", "+ x"]);
    expect(diffLines("same\n", "same\n")).toEqual([]);
  });

  it("pairs a changed line as a removal and an addition", () => {
    expect(diffLines("k\nold\nk2\n", "k\nnew\nk2\n", 0)).toEqual(["@@ line 2 @@", "- old", "+ new"]);
  });
});
