import { afterEach, describe, expect, it } from "vitest";
import { run } from "./exec.ts";

// Real processes (node and sh): the timeout path is about process and pipe lifetimes, which a fake cannot show.
const leftovers: number[] = [];
afterEach(() => {
  for (const pid of leftovers.splice(0))
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
});

describe("run at its timeout", () => {
  it("returns once the program is killed, even when another process still holds its output open", async () => {
    // The grandchild keeps the stdout and stderr pipes open for 20 s, as an ssh client's shared connection does.
    const started = performance.now();
    const result = await run("sh", ["-c", "sleep 20 & echo $!; exec sleep 20"], { timeoutMs: 500 });
    const pid = Number(result.stdout.trim());
    if (pid > 0) leftovers.push(pid);
    expect(result).toMatchObject({ ok: false, failure: "timeout" });
    expect(pid).toBeGreaterThan(0);
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it("killSignal SIGKILL ends a program that ignores SIGTERM at the bound, without the grace", async () => {
    const script = "process.on('SIGTERM', () => {}); console.log(process.pid); setInterval(() => {}, 1000);";
    const started = performance.now();
    const result = await run(process.execPath, ["-e", script], { timeoutMs: 800, killSignal: "SIGKILL" });
    const elapsed = performance.now() - started;
    leftovers.push(Number(result.stdout.trim()));
    expect(result).toMatchObject({ ok: false, failure: "timeout", code: undefined });
    // The default would wait the 2 s grace after SIGTERM; SIGKILL ends it at once (slack for a loaded machine).
    expect(elapsed).toBeLessThan(2500);
  });

  it("a program that exited in time but left a process holding its output returns at the timeout with its own exit", async () => {
    const started = performance.now();
    const result = await run("sh", ["-c", "sleep 20 & echo $!; exit 3"], { timeoutMs: 500 });
    const pid = Number(result.stdout.trim());
    if (pid > 0) leftovers.push(pid);
    expect(result).toEqual({ ok: false, code: 3, stdout: String(pid), stderr: "" });
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it("a program that exits in time keeps its whole output", async () => {
    expect(await run("sh", ["-c", "echo out; echo err >&2"], { timeoutMs: 5000 })).toEqual({
      ok: true,
      code: 0,
      stdout: "out",
      stderr: "err",
    });
  });
});
