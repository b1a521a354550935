import { describe, expect, it, vi } from "vitest";
import type { RunResult, Runner } from "../../src/core/exec.ts";
import { refreshStatusLines } from "./refresh.ts";

const result = (partial: Partial<RunResult>): RunResult => ({ ok: true, code: 0, stdout: "", stderr: "", ...partial });

describe("refreshStatusLines", () => {
  it("lists the server's clients, then refreshes every client's status line in one call", async () => {
    const run = vi.fn<Runner>(async (_file, args) => result({ stdout: args.includes("list-clients") ? "/dev/pts/3\n/dev/pts/7\n" : "" }));
    expect(await refreshStatusLines("/tmp/tmux-0/a sock", { run })).toEqual({ kind: "refreshed", clients: 2 });
    expect(run).toHaveBeenCalledWith("tmux", ["-u", "-S", "/tmp/tmux-0/a sock", "list-clients", "-F", "#{client_name}"], {
      timeoutMs: 2000,
    });
    expect(run).toHaveBeenCalledWith(
      "tmux",
      ["-u", "-S", "/tmp/tmux-0/a sock", "refresh-client", "-S", "-t", "/dev/pts/3", ";", "refresh-client", "-S", "-t", "/dev/pts/7"],
      { timeoutMs: 2000 },
    );
  });

  it("no client attached: nothing to redraw; a server that is gone says so", async () => {
    const none = vi.fn<Runner>(async () => result({}));
    expect(await refreshStatusLines("/s", { run: none })).toEqual({ kind: "refreshed", clients: 0 });
    expect(none).toHaveBeenCalledTimes(1);
    const gone: Runner = async () => result({ ok: false, code: 1, stderr: "no server running on /s\n" });
    expect(await refreshStatusLines("/s", { run: gone })).toEqual({ kind: "gone", detail: "no server running on /s" });
  });
});
