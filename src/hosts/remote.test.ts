import { describe, expect, it, vi } from "vitest";
import type { Runner } from "../core/exec.ts";
import type { HostEntry } from "./config.ts";
import { readRemoteJson } from "./remote.ts";

const HOST: HostEntry = { name: "devbox", destination: "me@devbox", command: "tongs-agents" };

describe("readRemoteJson", () => {
  it("runs ssh under the host's bound, killed with SIGKILL at it (no grace beyond the bound)", async () => {
    const run = vi.fn<Runner>(async () => ({ ok: true, code: 0, stdout: "{}", stderr: "" }));
    const read = await readRemoteJson(HOST, ["status"], { run, controlDir: undefined, timeoutMs: 3000 });
    expect(read.ok).toBe(true);
    expect(run).toHaveBeenCalledWith("ssh", expect.arrayContaining(["--", "me@devbox", "tongs-agents status"]), {
      timeoutMs: 3000,
      killSignal: "SIGKILL",
    });
  });

  it("a read killed at the bound reports the host unreachable, with the bound", async () => {
    const run: Runner = async () => ({ ok: false, code: undefined, stdout: "", stderr: "", failure: "timeout", detail: "timed out" });
    const read = await readRemoteJson(HOST, ["status"], { run, controlDir: undefined, timeoutMs: 3000 });
    expect(read).toMatchObject({ ok: false, report: { host: "devbox", state: "unreachable", detail: "no answer within 3000 ms" } });
  });

  it.each([
    ["the default bound for a host without its own", undefined, undefined, 3000],
    ["the host's own bound (timeout_s)", 8000, undefined, 8000],
    ["a wait's time left when it is shorter", 8000, 1200, 1200],
    ["the host's bound when the wait has more time", 8000, 20_000, 8000],
  ])("reads within %s", async (_what, hostBound, limitMs, expected) => {
    const run = vi.fn<Runner>(async () => ({ ok: true, code: 0, stdout: "{}", stderr: "" }));
    const host: HostEntry = hostBound === undefined ? HOST : { ...HOST, timeoutMs: hostBound };
    await readRemoteJson(host, ["status"], { run, controlDir: undefined, timeoutMs: 3000, ...(limitMs === undefined ? {} : { limitMs }) });
    expect(run.mock.calls[0]?.[2]).toEqual({ timeoutMs: expected, killSignal: "SIGKILL" });
  });
});
