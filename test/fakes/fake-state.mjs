// Shared plumbing of the stateful fakes (MOCKED evidence: stand-ins for programs that cannot run here). Each fake keeps
// its world in `$TONGS_FAKE_STATE/<program>.json` and appends every invocation (argv plus the environment variables
// that steer it) to `$TONGS_FAKE_STATE/calls.jsonl`, so tests assert both the commands sent and the resulting state.
import { appendFileSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const dir = process.env.TONGS_FAKE_STATE;
if (!dir) {
  process.stderr.write("fake: TONGS_FAKE_STATE is not set\n");
  process.exit(127);
}

const ENV_LOGGED = ["WEZTERM_UNIX_SOCKET", "WEZTERM_PANE", "DISPLAY"];

export function logCall(program, argv) {
  const env = Object.fromEntries(ENV_LOGGED.filter((key) => process.env[key] !== undefined).map((key) => [key, process.env[key]]));
  appendFileSync(join(dir, "calls.jsonl"), `${JSON.stringify({ program, argv, env })}\n`);
}

export function loadState(program) {
  return JSON.parse(readFileSync(join(dir, `${program}.json`), "utf8"));
}

export function saveState(program, state) {
  const path = join(dir, `${program}.json`);
  writeFileSync(`${path}.tmp`, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
}

export function fail(message, code = 1) {
  process.stderr.write(message.endsWith("\n") ? message : `${message}\n`);
  process.exit(code);
}

export function print(text) {
  process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
}
