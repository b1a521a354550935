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
    expect(run).toHaveBeenCalledWith("ssh", expect.arrayContaining(["--", "me@devbox", "'tongs-agents' 'status'"]), {
      timeoutMs: 3000,
      killSignal: "SIGKILL",
    });
  });

  it("a read killed at the bound reports the host unreachable, with the bound", async () => {
    const run: Runner = async () => ({ ok: false, code: undefined, stdout: "", stderr: "", failure: "timeout", detail: "timed out" });
    const read = await readRemoteJson(HOST, ["status"], { run, controlDir: undefined, timeoutMs: 3000 });
    expect(read).toMatchObject({ ok: false, report: { host: "devbox", state: "unreachable", detail: "no answer within 3000 ms" } });
  });
});
