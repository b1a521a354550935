// One stand-in agent of bench/fleet.mjs, run as a process named `claude` (a symlink to node), so the hook's ancestry walk
// finds its harness as under Claude Code. Like Claude Code it runs each hook with `/bin/sh -c <command>`, the payload on
// stdin, and waits for it (stdout and stderr closed) before its next event: an event offered while a hook still runs
// is not sent. `load`: from `startAt`, one event offered every 1000/rate ms for `seconds`; `burst`: `count` events back
// to back. It starts its session, alternates PreToolUse and PostToolUse, and ends its turn with Stop, whose state
// (idle) is the final one. Prints one JSON line: what it offered and sent, each hook's wall time, and when each event
// fired (epoch ms), for the drain lag.
import { spawn } from "node:child_process";

const config = JSON.parse(process.argv[2]);
const { command, session, mode } = config;

const fired = [];
const walls = [];
let offered = 0;

function payload(alias, index) {
  const base = { session_id: session, transcript_path: `/tmp/${session}.jsonl`, cwd: `/work/${session}` };
  if (alias === "session-start") return { ...base, hook_event_name: "SessionStart", source: "startup" };
  if (alias === "stop") return { ...base, hook_event_name: "Stop", stop_hook_active: false };
  return {
    ...base,
    hook_event_name: alias === "tool-use" ? "PreToolUse" : "PostToolUse",
    tool_name: "Bash",
    tool_input: { command: `ls -la /work/${session}/dir-${index}`, description: "List files" },
    tool_use_id: `toolu_${session}_${index}`,
    ...(alias === "tool-done" ? { tool_response: { stdout: "total 0\n".repeat(8), stderr: "", interrupted: false } } : {}),
  };
}

function send(alias, index) {
  return new Promise((resolve) => {
    const started = performance.now();
    fired.push(Date.now());
    const child = spawn("/bin/sh", ["-c", command.replaceAll("{alias}", alias)], { stdio: ["pipe", "ignore", "ignore"] });
    child.stdin.on("error", () => undefined);
    child.stdin.end(JSON.stringify(payload(alias, index)));
    child.on("close", () => {
      walls.push(performance.now() - started);
      resolve();
    });
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
let index = 0;
const nextAlias = () => (index === 0 ? "session-start" : index % 2 === 1 ? "tool-use" : "tool-done");

if (mode === "burst") {
  await sleep(Math.max(0, config.startAt - Date.now()));
  for (; index < config.count - 1; index++) await send(nextAlias(), index);
  await send("stop", index);
  offered = config.count;
} else {
  const interval = 1000 / config.rate;
  const end = config.startAt + config.seconds * 1000;
  await sleep(Math.max(0, config.startAt - Date.now()));
  let busy;
  for (let tick = config.startAt; tick < end; tick += interval) {
    await sleep(Math.max(0, tick - Date.now()));
    offered++;
    if (busy) continue; // the agent is still waiting for its last hook: this event is not sent
    const alias = nextAlias();
    busy = send(alias, index++).then(() => (busy = undefined));
  }
  await busy;
  offered++;
  await send("stop", index);
}
const cpu = process.cpuUsage();
process.stdout.write(
  `${JSON.stringify({ session, offered, sent: fired.length, walls, fired, selfCpuMs: (cpu.user + cpu.system) / 1000, pid: process.pid })}\n`,
);
