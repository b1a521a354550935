import { execFileSync } from "node:child_process";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hookCommand, hookCommandLine, shellQuote } from "./command.ts";
import { parseOurCommand } from "./hook-entries.ts";

describe("shellQuote", () => {
  it("leaves plain words alone and quotes everything else", () => {
    expect(shellQuote("/usr/bin/node")).toBe("/usr/bin/node");
    expect(shellQuote("/opt/my tools/node")).toBe("'/opt/my tools/node'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(shellQuote("")).toBe("''");
  });

  it("round-trips any text through a real /bin/sh", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 0, maxLength: 30 }).filter((text) => !text.includes("\0")),
        (text) => {
          expect(execFileSync("/bin/sh", ["-c", `printf %s ${shellQuote(text)}`], { encoding: "utf8" })).toBe(text);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("builds the hook command line", () => {
    expect(hookCommandLine({ node: "/a b/node", hook: "/x/bin/tongs-agents-hook.cjs", alias: "stop", agent: "claude" })).toBe(
      "'/a b/node' /x/bin/tongs-agents-hook.cjs stop --agent claude",
    );
  });

  it("builds the shim command (beside the hook, Node first) and parses both shapes back", () => {
    const parts = { node: "/a b/node", hook: "/x/bin/tongs-agents-hook.cjs", alias: "stop", agent: "claude" };
    const shim = hookCommand({ ...parts, mode: "shim" });
    expect(shim).toBe("/bin/sh /x/bin/tongs-agents-hook.sh '/a b/node' stop --agent claude");
    expect(parseOurCommand(shim)).toEqual({ ...parts, mode: "shim" });
    expect(parseOurCommand(hookCommand({ ...parts, mode: "sync" }))).toEqual({ ...parts, mode: "sync" });
    // Any other shell, or a relative shim, is not our shape.
    expect(parseOurCommand(shim.replace("/bin/sh", "/bin/bash"))).toBeUndefined();
    expect(parseOurCommand(shim.replace("/x/bin/", "bin/"))).toBeUndefined();
  });
});
