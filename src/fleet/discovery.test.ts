// Discovery of node-script harnesses (Gemini CLI, Qwen Code): found by the script their node runs, and counted once,
// as the innermost process of their relaunch chain (the one their hooks run under, so the one records name).
import { describe, expect, it } from "vitest";
import { fakeProcess, fakeProcessSource } from "../../test/fake-processes.ts";
import type { ListedProcess } from "../core/process-table.ts";
import { discoverProcesses } from "./discovery.ts";

const QWEN = "/usr/lib/node_modules/@qwen-code/qwen-code";
// `qwen` is a link to cli-entry.js in node_modules/.bin; node resolves it, and so does the fake realpath.
const realpath = (path: string) => path.replace("/usr/lib/node_modules/.bin/qwen", `${QWEN}/cli-entry.js`);

const listed: ListedProcess[] = [
  { pid: 10, ppid: 1, name: "bash", cmd: "bash" },
  { pid: 20, ppid: 10, name: "node", cmd: "node /usr/lib/node_modules/.bin/qwen" },
  { pid: 21, ppid: 20, name: "node", cmd: `node --expose-gc ${QWEN}/cli.js` },
  { pid: 22, ppid: 21, name: "node", cmd: `node --expose-gc ${QWEN}/cli.js` },
  { pid: 30, ppid: 10, name: "node", cmd: `node /home/u/notes.js ${QWEN}/cli.js` },
  { pid: 40, ppid: 10, name: "codex", cmd: "codex" },
  { pid: 41, ppid: 40, name: "codex", cmd: "codex exec" },
];
const processes = fakeProcessSource(listed.map((proc) => fakeProcess(proc.pid, proc.ppid ?? 1, proc.name)));

describe("discovering node-script harnesses", () => {
  it("finds Qwen Code once, as the innermost node of its chain; a script merely named in arguments is not it", async () => {
    const found = await discoverProcesses({ processes, list: async () => listed, scriptWorld: { realpath } });
    expect(found.map((proc) => [proc.harness, proc.pid])).toEqual([
      ["qwen", 22],
      // Harnesses by name keep the outermost of a chain, as before.
      ["codex", 40],
    ]);
  });
});
