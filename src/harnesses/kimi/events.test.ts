// Kimi Code 2.1.0's own payloads (fixtures/, captured from `kimi -p` against the synthetic provider; paths rewritten),
// in the order it fired them, through the event table and the store: what a user would see.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { replayFixtures } from "../../../test/native-sequence.ts";
import { KIMI_HOOKS } from "./install.ts";

const FIXTURES = join(import.meta.dirname, "fixtures");
const replay = (...names: string[]) => replayFixtures("kimi", FIXTURES, KIMI_HOOKS, names);

describe("Kimi Code's events", () => {
  it("a prompt that runs the Bash tool: started, running, the tool, its end, idle", () => {
    expect(replay("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")).toEqual([
      ["started", "session started", ""],
      ["running", "processing prompt", ""],
      ["running", "Bash", "Bash"],
      ["running", "Bash finished", "Bash"],
      // Stop carries no last message: no summary.
      ["idle", "", ""],
    ]);
  });

  it("a failed tool keeps the turn running; a provider failure ends it in error, in Kimi Code's words", () => {
    expect(replay("SessionStart", "UserPromptSubmit", "PostToolUseFailure", "StopFailure")).toEqual([
      ["started", "session started", ""],
      ["running", "processing prompt", ""],
      ["running", expect.stringMatching(/^Bash/), "Bash"],
      ["error", "turn failed: APIStatusError: 400 synthetic failure requested by FAILAPI", ""],
    ]);
  });
});
