// Qwen Code 0.24.4's own payloads (fixtures/, captured interactive in tmux against the synthetic provider with
// `/approval-mode default`; paths rewritten), in the order it fired them, through the event table and the store.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { replayFixtures } from "../../../test/native-sequence.ts";
import { QWEN_HOOKS } from "./installer.ts";

const FIXTURES = join(import.meta.dirname, "fixtures");
const replay = (...names: string[]) => replayFixtures("qwen", FIXTURES, QWEN_HOOKS, names);
const TOOL = "run_shell_command";

describe("Qwen Code's events", () => {
  it("asks before the tool starts: waiting from PermissionRequest until PreToolUse, then running to Stop", () => {
    expect(
      replay(
        "SessionStart",
        "UserPromptSubmit",
        "PermissionRequest",
        "Notification-permission_prompt",
        "PreToolUse",
        "PostToolUse",
        "UserPromptSubmit-after-tools",
        "Stop",
        "Notification-idle_prompt",
        "SessionEnd",
      ),
    ).toEqual([
      ["started", "session started", ""],
      ["running", "processing prompt", ""],
      ["waiting", `permission: ${TOOL}`, TOOL],
      ["waiting", `permission: ${TOOL}`, TOOL],
      ["running", TOOL, TOOL],
      ["running", `${TOOL} finished`, TOOL],
      // Qwen fires UserPromptSubmit with an empty prompt after a tool batch: still the same turn, still running.
      ["running", "processing prompt", ""],
      ["idle", "The tool ran; all done.", ""],
      ["idle", "waiting for the next prompt", ""],
      ["ended", "session closed", ""],
    ]);
  });

  it("a tool that failed (a shell command exiting 2, PostToolUseFailure captured from `qwen -p --yolo`): running, `<tool> failed`", () => {
    expect(replay("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUseFailure", "UserPromptSubmit-after-tools", "Stop")).toEqual([
      ["started", "session started", ""],
      ["running", "processing prompt", ""],
      ["running", TOOL, TOOL],
      ["running", `${TOOL} failed`, TOOL],
      ["running", "processing prompt", ""],
      ["idle", "The tool ran; all done.", ""],
    ]);
  });

  it("a provider failure is an error, whichever of StopFailure and the idle notification lands first", () => {
    expect(replay("UserPromptSubmit", "StopFailure", "Notification-idle_prompt").at(-1)).toEqual(["error", "turn failed (API error)", ""]);
    expect(replay("UserPromptSubmit", "Notification-idle_prompt", "StopFailure").at(-1)).toEqual(["error", "turn failed (API error)", ""]);
  });
});
