// The picker's preview goes through the backend that owns the session's terminal: tmux captures the pane (exact argv),
// a backend that cannot read its target says so, and an ended session is not read at all.
import { describe, expect, it } from "vitest";
import type { RunOptions, RunResult } from "../core/exec.ts";
import type { SessionView } from "../fleet/view.ts";
import { previewSession } from "./preview.ts";

const SOCKET = "/tmp/tmux-1000/default";

function session(env: Record<string, string>, extra: Partial<SessionView> = {}): SessionView {
  return { status: "waiting", stale: false, terminal: { env }, ...extra } as unknown as SessionView;
}

function recorder(result: Partial<RunResult>) {
  const calls: [string, readonly string[], RunOptions | undefined][] = [];
  const run = async (file: string, args: readonly string[], options?: RunOptions): Promise<RunResult> => {
    calls.push([file, args, options]);
    return { ok: true, code: 0, stdout: "", stderr: "", ...result };
  };
  return { calls, run };
}

describe("the preview", () => {
  it("of a tmux pane: capture-pane on the pane's own server, the last lines", async () => {
    const { calls, run } = recorder({ stdout: "one\ntwo\nthree\n\n" });
    expect(await previewSession(session({ TMUX: `${SOCKET},42,0`, TMUX_PANE: "%3" }), 2, { run })).toEqual({ lines: ["two", "three"] });
    expect(calls.map(([file, args]) => [file, args])).toEqual([["tmux", ["-u", "-S", SOCKET, "capture-pane", "-p", "-J", "-t", "%3"]]]);
  });

  it("says what tmux said when the pane cannot be read", async () => {
    const { run } = recorder({ ok: false, code: 1, stderr: "can't find pane: %3\n" });
    expect(await previewSession(session({ TMUX: `${SOCKET},42,0`, TMUX_PANE: "%3" }), 5, { run })).toEqual({
      note: "tmux: can't find pane: %3",
    });
  });

  it("of a terminal whose backend cannot read it, or of no terminal: a note, and nothing run", async () => {
    const { calls, run } = recorder({});
    expect(await previewSession(session({ KITTY_WINDOW_ID: "4" }), 5, { run })).toEqual({ note: "no preview of kitty window 4" });
    expect(await previewSession(session({}), 5, { run })).toEqual({ note: "no terminal to preview" });
    expect(await previewSession(session({ TMUX: `${SOCKET},42,0`, TMUX_PANE: "%3" }, { status: "ended" }), 5, { run })).toEqual({
      note: "the session has ended",
    });
    expect(calls).toEqual([]);
  });
});
