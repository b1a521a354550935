import { describe, expect, it } from "vitest";
import { closest, didYouMean, editDistance } from "./suggest.ts";

describe("editDistance", () => {
  it.each([
    ["list", "list", 0],
    ["lsit", "list", 1], // a swap of neighbours is one edit
    ["lst", "list", 1],
    ["lisst", "list", 1],
    ["--jsno", "--json", 1],
    ["cluade", "claude", 1],
    ["kitten", "sitting", 3],
    ["", "abc", 3],
  ])("%s -> %s: %i", (a, b, distance) => expect(editDistance(a, b)).toBe(distance));
});

describe("closest", () => {
  const verbs = ["list", "show", "explain", "focus", "pick", "next", "wait", "status", "notify", "install", "uninstall"];
  it("names the word meant for the common typos", () => {
    expect(closest("lsit", verbs)).toBe("list");
    expect(closest("stauts", verbs)).toBe("status");
    expect(closest("instal", verbs)).toBe("install");
    expect(closest("--jsno", ["--json", "--all", "--local"])).toBe("--json");
    expect(closest("LIST", verbs)).toBe("list");
  });
  it("guesses nothing when nothing is near, or when two are equally near", () => {
    expect(closest("frobnicate", verbs)).toBeUndefined();
    expect(closest("xy", ["ab", "cd"])).toBeUndefined();
    expect(closest("nest", ["next", "neat"])).toBeUndefined(); // a tie
  });
  it("allows one edit for short words, two for longer ones", () => {
    expect(closest("pic", ["pick"])).toBe("pick");
    expect(closest("px", ["pick"])).toBeUndefined();
    expect(closest("explian", ["explain"])).toBe("explain");
  });
  it("didYouMean is the clause the CLI appends", () => {
    expect(didYouMean("lsit", verbs)).toBe("; did you mean list?");
    expect(didYouMean("frobnicate", verbs)).toBe("");
  });
});
