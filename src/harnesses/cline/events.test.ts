// Cline 3.0.65's own payloads (fixtures/, captured from its interactive UI against the synthetic provider; paths
// rewritten), in the order it fired them, through the event table and the store: what a user would see. And what the
// hook keeps of one: the session id Cline resumes with (`sessionContext.rootSessionId`, not the per-process `taskId`),
// nothing of the prompt, the tool input or its output.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { replayFixtures } from "../../../test/native-sequence.ts";
import { nativePayload } from "../../hook/input.ts";
import { clineHarness } from "./harness.ts";
import { CLINE_HOOKS } from "./install.ts";

const FIXTURES = join(import.meta.dirname, "fixtures");
const replay = (...names: string[]) => replayFixtures("cline", FIXTURES, CLINE_HOOKS, names);

describe("Cline's events", () => {
  it("a prompt that runs run_commands: running, the tool (its name is nested: not read), its end, idle", () => {
    expect(replay("TaskStart", "PreToolUse", "PostToolUse", "TaskComplete")).toEqual([
      ["running", "processing prompt", ""],
      ["running", "", ""],
      ["running", "tool finished", ""],
      // TaskComplete's reply text is nested (turn.outputText): no summary.
      ["idle", "", ""],
    ]);
  });

  it("Esc fires SessionShutdown: the turn interrupted; a provider failure fires TaskError: error", () => {
    expect(replay("TaskStart", "SessionShutdown", "TaskStart", "TaskError")).toEqual([
      ["running", "processing prompt", ""],
      ["idle", "turn interrupted", ""],
      ["running", "processing prompt", ""],
      ["error", "turn failed (API error)", ""],
    ]);
  });

  it("the hook keeps sessionContext.rootSessionId as the session id, and nothing of the tool's input or output", () => {
    for (const name of ["TaskStart", "PreToolUse", "PostToolUse", "TaskComplete", "TaskError", "SessionShutdown"]) {
      const read = nativePayload(readFileSync(join(FIXTURES, `${name}.json`)), clineHarness.nativeFields);
      expect(read.ok, name).toBe(true);
      const value = (read as { value: Record<string, unknown> }).value;
      expect(value.session_id, name).toBe("1796617950342_j76gq");
      expect(JSON.stringify(value), name).not.toMatch(/touch approved|outputText|FAILAPI/);
    }
  });
});
