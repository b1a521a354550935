// Gemini CLI 0.61.0's own payloads (fixtures/, captured interactive in tmux against the synthetic provider; paths
// rewritten), in the order it fired them, through the event table and the store: what a user would see.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { replayFixtures } from "../../../test/native-sequence.ts";
import { GEMINI_HOOKS } from "./installer.ts";

const FIXTURES = join(import.meta.dirname, "fixtures");
const replay = (...names: string[]) => replayFixtures("gemini", FIXTURES, GEMINI_HOOKS, names);

describe("Gemini CLI's events", () => {
  it("a tool behind the approval dialog: BeforeTool, then the dialog's notification, then AfterTool once allowed", () => {
    expect(
      replay("SessionStart", "BeforeAgent", "BeforeTool", "Notification-ToolPermission", "AfterTool", "AfterAgent", "SessionEnd"),
    ).toEqual([
      ["started", "session started", ""],
      ["running", "processing prompt", ""],
      ["running", "run_shell_command", "run_shell_command"],
      ["waiting", "permission requested", ""],
      ["running", "run_shell_command finished", "run_shell_command"],
      // AfterAgent carries prompt_response, not last_assistant_message: no summary.
      ["idle", "", ""],
      ["ended", "session closed", ""],
    ]);
  });

  it("a provider failure ends as idle: Gemini states no error (AfterAgent with no response text)", () => {
    expect(replay("SessionStart", "BeforeAgent", "AfterAgent-failapi")).toEqual([
      ["started", "session started", ""],
      ["running", "processing prompt", ""],
      ["idle", "", ""],
    ]);
  });
});
