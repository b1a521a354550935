// npm run bench, part 7: what reading the harnesses' own files (docs/contract.md, "Sources of state") costs `status`,
// which a tmux status line runs every few seconds. 100 records of this process, 40 of them running Claude sessions:
// without transcripts (the floor), with 4 MiB transcripts already read (the steady state: an fstat and a 256-byte
// digest per record), and with 64 KiB appended to each since the last look. Runs interleaved.
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const CLI = join(root, "bin", "tongs-agents.js");
const runs = Number(process.env.BENCH_RUNS ?? 30);
const temp = mkdtempSync(join(tmpdir(), "tongs-bench-stated-"));
const stat = readFileSync(`/proc/${process.pid}/stat`, "utf8");
const token = `linux:${readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim()}:${stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]}`;
const instance = `pid:${process.pid}@${token}`;
const updated = new Date().toISOString();
// A Claude transcript line of the usual kind (no interruption marker), about 1 KiB.
const LINE = `${JSON.stringify({ type: "assistant", sessionId: "s", timestamp: updated, message: { role: "assistant", content: [{ type: "text", text: "x".repeat(900) }] } })}\n`;

function world(name, { transcripts }) {
  const stateDir = join(temp, name, "state");
  const sessions = join(stateDir, "sessions");
  mkdirSync(sessions, { recursive: true, mode: 0o700 });
  const projects = join(temp, name, "claude", "projects", "-w");
  mkdirSync(projects, { recursive: true });
  const files = [];
  for (let index = 0; index < 100; index++) {
    const session = `bench-${index}`;
    const digest = createHash("sha256")
      .update(JSON.stringify(["claude", session, instance]))
      .digest("hex");
    const running = index < 40;
    const transcript = join(projects, `${session}.jsonl`);
    if (transcripts && running) {
      writeFileSync(transcript, LINE.repeat(4096));
      files.push(transcript);
    }
    writeFileSync(
      join(sessions, `${digest}.json`),
      JSON.stringify({
        schema_version: 1,
        canonical_id: `fleet:v1:claude:${digest}`,
        harness: "claude",
        session_id: session,
        instance_id: instance,
        identity: "process",
        pid: process.pid,
        process_start: token,
        cwd: "/w",
        status: running ? "running" : "idle",
        detail: "",
        tool: "",
        sequence: null,
        arrival_sequence: 1,
        last_event: "claude.prompt-submit",
        created_at: updated,
        updated_at: updated,
        status_changed_at: updated,
        terminal: { env: {} },
        ...(transcripts && running ? { transcript_path: transcript } : {}),
      }),
    );
  }
  const env = { ...process.env, HOME: join(temp, name), TONGS_AGENTS_STATE_DIR: stateDir, TONGS_AGENTS_DISCOVERY: "off" };
  for (const variable of ["TMUX", "TMUX_PANE", "TONGS_AGENTS_DEBUG"]) delete env[variable];
  return { env, files };
}

function time(env) {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [CLI, "status", "--format", "tmux"], { env, stdio: "ignore" });
  if (result.status !== 0) throw new Error(`status exited ${result.status}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5), p90: at(0.9) };
}

try {
  execFileSync(process.execPath, [join(root, "scripts", "build.mjs")], { stdio: "ignore" });
  const plain = world("plain", { transcripts: false });
  const steady = world("steady", { transcripts: true });
  const growing = world("growing", { transcripts: true });
  const chunk = LINE.repeat(64);
  const contenders = [
    { name: "`status`, 100 records, none with a transcript (floor)", run: () => time(plain.env) },
    { name: "`status`, 40 running with 4 MiB transcripts, nothing new", run: () => time(steady.env) },
    {
      name: "`status`, 40 running, 64 KiB appended to each since the last look",
      run: () => (growing.files.forEach((file) => appendFileSync(file, chunk)), time(growing.env)),
    },
  ];
  const samples = contenders.map(() => []);
  for (const contender of contenders) contender.run();
  for (let index = 0; index < runs; index++) contenders.forEach((contender, at) => samples[at].push(contender.run()));
  const floor = stats(samples[0]).median;
  console.log(`\n| status with transcripts (${runs} runs interleaved) | median | p90 | median vs floor |`);
  console.log("|---|---|---|---|");
  contenders.forEach((contender, at) => {
    const row = stats(samples[at]);
    console.log(`| ${contender.name} | ${row.median.toFixed(1)} ms | ${row.p90.toFixed(1)} ms | ${(row.median / floor).toFixed(2)}x |`);
  });
} finally {
  rmSync(temp, { recursive: true, force: true });
}
