// Ask the real `codex app-server` (JSON-RPC over stdio) for hooks/list: each hook's key, currentHash and trustStatus,
// as Codex itself computes them.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

export interface CodexHookEntry {
  readonly key: string;
  readonly eventName: string;
  readonly command?: string;
  readonly timeoutSec: number;
  readonly currentHash: string;
  readonly trustStatus: "managed" | "untrusted" | "trusted" | "modified";
  readonly enabled: boolean;
}

export async function codexHooksList(env: NodeJS.ProcessEnv, cwd: string): Promise<CodexHookEntry[]> {
  const child = spawn("codex", ["app-server"], { env, cwd, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const lines = createInterface({ input: child.stdout });
  const waiting = new Map<number, (message: { result?: unknown; error?: unknown }) => void>();
  lines.on("line", (line) => {
    const message = JSON.parse(line) as { id?: number; result?: unknown; error?: unknown };
    if (message.id !== undefined) waiting.get(message.id)?.(message);
  });
  let nextId = 0;
  const request = (method: string, params: unknown) =>
    new Promise<{ result?: unknown; error?: unknown }>((resolve, reject) => {
      const id = ++nextId;
      const timer = setTimeout(
        () => reject(new Error(`codex app-server: no answer to ${method} in 30 s; stderr: ${stderr.slice(-500)}`)),
        30_000,
      );
      waiting.set(id, (message) => {
        clearTimeout(timer);
        resolve(message);
      });
      child.stdin.write(`${JSON.stringify({ id, method, params })}\n`);
    });
  try {
    const init = await request("initialize", { clientInfo: { name: "tongs-agents-live-test", version: "0" } });
    if (init.error) throw new Error(`initialize failed: ${JSON.stringify(init.error)}`);
    child.stdin.write(`${JSON.stringify({ method: "initialized" })}\n`);
    const listed = await request("hooks/list", { cwds: [cwd] });
    if (listed.error) throw new Error(`hooks/list failed: ${JSON.stringify(listed.error)}`);
    return (listed.result as { data: { hooks: CodexHookEntry[] }[] }).data.flatMap((entry) => entry.hooks);
  } finally {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  }
}
