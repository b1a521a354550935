// Which Codex UI shows a daemon-backed session: only a UI whose own arguments name the session counts (exact
// evidence); every other case answers with the reason. The process table is a fake; the live proof is in
// e2e/codex.e2e.test.ts (the real Codex 0.171.0 under its shared daemon).
import { describe, expect, it } from "vitest";
import { fakeProcess, fakeProcessSource } from "../../../test/fake-processes.ts";
import type { ProcessInfo } from "../../core/proc.ts";
import { codexHarness } from "./harness.ts";
import { NO_EVIDENCE, namesSession } from "./locate-ui.ts";

const SESSION = "01a23065-2acd-7ab2-a4c9-7c4f1e19742b";
const OTHER = "01a23065-3a8d-7180-b9e3-6208042ab804";
const CODEX = "/opt/codex/bin/codex";
const daemon = fakeProcess(100, 1, "codex", [CODEX, "app-server", "--listen", "unix://", "--managed-daemon"]);
const ui = (pid: number, ...args: string[]) => fakeProcess(pid, 50, "codex", [CODEX, ...args], { tty: `/dev/pts/${pid}` });

async function locate(rows: ProcessInfo[], environ: Record<number, Record<string, string>> = {}) {
  const world = {
    list: async () => rows.map((row) => ({ pid: row.pid, name: row.comm })),
    processes: fakeProcessSource(rows),
    environOf: async (pid: number) => environ[pid],
  };
  return codexHarness.locateUi({ session_id: SESSION, pid: daemon.pid }, world);
}

describe("namesSession", () => {
  it.each([
    [["codex", "resume", SESSION], true],
    [["codex", "-c", "model=x", "resume", "--yolo", SESSION], true],
    [["codex", "resume", SESSION, "keep going"], true],
    [["codex", "resume", OTHER], false],
    [["codex", "resume", "--last"], false],
    [["codex", "resume"], false],
    [["codex", SESSION], false],
    [["codex", SESSION, "resume"], false],
    [["codex", "fork", SESSION], false],
    [["codex", "resume", `${SESSION}x`], false],
  ])("%j -> %s", (argv, expected) => {
    expect(namesSession(argv, SESSION)).toBe(expected);
  });
});

describe("locateCodexUi", () => {
  it("finds the one UI started as `codex resume <session id>` and reads its terminal now", async () => {
    const found = await locate([daemon, ui(200), ui(300, "resume", SESSION), ui(400, "resume", OTHER)], {
      300: { TMUX: "/tmp/tmux-0/default,1,0", TMUX_PANE: "%3", HOME: "/root" },
    });
    expect(found).toEqual({
      ok: true,
      pid: 300,
      terminal: { env: { TMUX: "/tmp/tmux-0/default,1,0", TMUX_PANE: "%3" }, tty: "/dev/pts/300" },
      evidence: `Codex UI process 300 runs \`codex resume ${SESSION}\``,
    });
  });

  it.each([
    ["a fresh UI names no session", [daemon, ui(200), ui(201, "resume", "--last")], NO_EVIDENCE],
    ["no UI runs at all", [daemon], NO_EVIDENCE],
    [
      "a process not named codex proves nothing",
      [daemon, fakeProcess(250, 1, "node", ["node", "codex.js", "resume", SESSION])],
      NO_EVIDENCE,
    ],
    [
      "two UIs name it",
      [daemon, ui(300, "resume", SESSION), ui(301, "resume", SESSION)],
      "2 running Codex UIs (PIDs 300, 301) name this session in their arguments",
    ],
    [
      "its environment is unreadable",
      [daemon, ui(300, "resume", SESSION)],
      `the environment of Codex UI process 300 (codex resume ${SESSION}) cannot be read`,
    ],
  ])("answers unavailable when %s", async (_name, rows, reason) => {
    expect(await locate(rows)).toEqual({ ok: false, reason });
  });

  it("never takes the daemon itself, even if its arguments held the id", async () => {
    const odd = fakeProcess(100, 1, "codex", [CODEX, "app-server", "resume", SESSION]);
    expect(await locate([odd], { 100: { TMUX_PANE: "%0" } })).toEqual({ ok: false, reason: NO_EVIDENCE });
  });
});
