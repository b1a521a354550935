// A self-contained look at the core: three fake agent processes (named exactly like the harnesses) send real
// captured hook payloads through the real hook binary into a temporary state dir; then `tongs-agents list` shows them.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const temp = mkdtempSync(join(tmpdir(), "tongs-demo-"));
const env = { ...process.env, TONGS_AGENTS_STATE_DIR: join(temp, "state"), HOME: temp };
for (const name of ["TMUX", "TMUX_PANE", "TONGS_AGENTS_LAUNCH_ID", "TONGS_AGENTS_PROFILE"]) delete env[name];
const hook = join(root, "bin", "tongs-agents-hook.cjs");

/** A long-lived process whose name is exactly `name`, that runs hooks as its children, like a harness does. */
function agent(name) {
  const exe = join(temp, name);
  symlinkSync(process.execPath, exe);
  const script = `process.stdin.on("data", (line) => {
    for (const request of String(line).trim().split("\\n")) {
      const { alias, agent, payload } = JSON.parse(request);
      const child = require("node:child_process").spawnSync(process.execPath, [${JSON.stringify(hook)}, alias, "--agent", agent], { input: JSON.stringify(payload) });
      process.stdout.write(String(child.status) + "\\n");
    }
  });`;
  const child = spawn(exe, ["-e", script], { env, stdio: ["pipe", "pipe", "inherit"] });
  return {
    child,
    send: (alias, agentId, payload) =>
      new Promise((resolve) => {
        child.stdout.once("data", resolve);
        child.stdin.write(`${JSON.stringify({ alias, agent: agentId, payload })}\n`);
      }),
  };
}

const claude = agent("claude");
const codex = agent("codex");
const session = (id, cwd) => ({ session_id: id, cwd });
await claude.send("session-start", "claude", session("demo-claude-1", "/src/webapp"));
await claude.send("prompt-submit", "claude", session("demo-claude-1", "/src/webapp"));
await claude.send("permission-request", "claude", { ...session("demo-claude-1", "/src/webapp"), tool_name: "Bash" });
await codex.send("session-start", "codex", session("demo-codex-1", "/src/api"));
await codex.send("prompt-submit", "codex", session("demo-codex-1", "/src/api"));
await codex.send("stop", "codex", { ...session("demo-codex-1", "/src/api"), last_assistant_message: "Refactored the router; all 42 tests pass." });

console.log("$ tongs-agents list\n");
spawnSync(process.execPath, [join(root, "bin", "tongs-agents.js"), "list"], { env, stdio: "inherit" });
for (const { child } of [claude, codex]) child.kill();
rmSync(temp, { recursive: true, force: true });
