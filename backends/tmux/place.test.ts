import { describe, expect, it } from "vitest";
import type { RunResult } from "../../src/core/exec.ts";
import { tmuxPlaceOf } from "./place.ts";

const TMUX = { TMUX: "/tmp/tmux-1000/default,4242,0", TMUX_PANE: "%7" };

describe("the pane's place, session:window.pane", () => {
  it("asks the pane's own server for session:window.pane, and gives up quietly when it cannot say", async () => {
    const calls: [string, readonly string[]][] = [];
    const answer = (result: Partial<RunResult>) => async (file: string, args: readonly string[]) => {
      calls.push([file, args]);
      return { ok: true, code: 0, stdout: "", stderr: "", ...result };
    };
    expect(await tmuxPlaceOf(TMUX, answer({ stdout: "work:2.1\n" }))).toBe("work:2.1");
    expect(calls[0]).toEqual([
      "tmux",
      ["-u", "-S", "/tmp/tmux-1000/default", "display-message", "-p", "-t", "%7", "#{session_name}:#{window_index}.#{pane_index}"],
    ]);
    expect(await tmuxPlaceOf(TMUX, answer({ ok: false, code: 1, stderr: "can't find pane: %7" }))).toBeUndefined();
    expect(await tmuxPlaceOf({ TMUX_PANE: "%7" }, answer({ stdout: "x:0.0" }))).toBeUndefined();
    expect(calls).toHaveLength(2);
  });
});
