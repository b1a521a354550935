// A state dir's sessions dir that kept `count` sessions, the first of them of live processes (`live`: child processes
// standing in for agents, each record naming its PID and start token as the hook writes them), a quarter of every
// kind ended, the rest of processes long gone. For bench/run.mjs and bench/list-many.mjs.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** A process's start token as the hook records it: the boot and the start time in clock ticks. */
export function startToken(pid = process.pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
  return `linux:${boot}:${stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]}`;
}

export function seedRecords(sessions, count, live) {
  mkdirSync(sessions, { recursive: true, mode: 0o700 });
  const now = new Date().toISOString();
  for (let index = 0; index < count; index++) {
    const id = createHash("sha256").update(`r${index}`).digest("hex");
    const standIn = live[index];
    const pid = standIn?.pid ?? 4_000_000 + index;
    const start = standIn ? startToken(pid) : "t";
    writeFileSync(
      join(sessions, `${id}.json`),
      JSON.stringify({
        schema_version: 1,
        canonical_id: `fleet:v1:claude:${id}`,
        harness: "claude",
        session_id: `s${index}`,
        instance_id: `pid:${pid}@${start}`,
        identity: "process",
        pid,
        process_start: start,
        cwd: `/work/project-${index % 50}`,
        status: ["running", "waiting", "idle", "ended"][index % 4],
        detail: "detail",
        tool: "",
        sequence: null,
        arrival_sequence: 3,
        last_event: "claude.stop",
        created_at: now,
        updated_at: now,
        status_changed_at: now,
        terminal: { env: { TMUX: "/tmp/tmux-0/default,1,0", TMUX_PANE: `%${index}` } },
      }),
    );
  }
}
