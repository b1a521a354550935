import { describe, expect, it } from "vitest";
import { hookCommand, hookCommandLine } from "./command.ts";
import { parseOurCommand } from "./hook-entries.ts";

describe("the hook command", () => {
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
