// A producer that writes its event and never closes stdin (or writes nothing and never closes it): the hook must still
// be gone within its bound (2 s for the input, docs/contract.md "Fail-open"), exit 0, silent.
import { spawn } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HOOK_BIN } from "../processes.ts";
import { makeSandbox, type Sandbox } from "../sandbox.ts";
import { printFigures } from "./support.ts";

/** The input bound (2 s) plus the work bound (0.9 s) plus Node's start-up under load: generous. */
const BOUND_MS = 6000;

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox("tongs-adv-stdin-");
});
afterEach(() => sandbox.cleanup());

/** Start the hook, write `input` without closing stdin, and report whether it exited by itself within the bound. */
function heldOpen(input: string): Promise<{ code: number | null; exitedAlone: boolean; ms: number; stdout: string }> {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, [HOOK_BIN, "session-start", "--agent", "claude"], {
      env: sandbox.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stdin.on("error", () => undefined);
    if (input) child.stdin.write(input);
    let killed = false;
    const killer = setTimeout(() => {
      killed = true;
      child.kill("SIGKILL");
    }, BOUND_MS);
    child.on("close", (code) => {
      clearTimeout(killer);
      child.stdin.destroy();
      resolve({ code, exitedAlone: !killed, ms: performance.now() - started, stdout });
    });
  });
}

describe("stdin held open", () => {
  // Was a defect (the hook waited for end of input, and its watchdog's exit waited for the blocked read); the hook now
  // never blocks a thread on stdin (src/hook/read-stdin.ts).
  it("a whole event written, stdin never closed; and nothing written, stdin never closed: the hook exits 0 within its bound", async () => {
    const cases = {
      "event written, never closed": await heldOpen(JSON.stringify({ session_id: "s", cwd: "/w" })),
      "nothing written, never closed": await heldOpen(""),
    };
    printFigures(
      "stdin held open",
      Object.fromEntries(
        Object.entries(cases).map(([name, run]) => [
          name,
          run.exitedAlone ? `exit ${run.code} after ${Math.round(run.ms)} ms` : `still running after ${BOUND_MS} ms (killed)`,
        ]),
      ),
    );
    for (const run of Object.values(cases)) expect(run).toMatchObject({ exitedAlone: true, code: 0, stdout: "" });
  });
});
