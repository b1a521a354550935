// Runs INSIDE the container (node with type stripping, built-ins only): appends every new version of every session
// record to a JSON-lines file, so a test can read the whole sequence of states a record went through, including the
// ones that last only milliseconds (Codex's SessionStart is followed at once by UserPromptSubmit).
//   node codex-record-watch.ts <sessions dir> <output.jsonl>
// Records are replaced by an atomic rename per applied event; each version carries a new arrival_sequence. The
// directory is watched (inotify) and also rescanned every 20 ms, so a missed notification costs at most that long; a
// test that finds a gap in arrival_sequence knows a version went unseen.
import { appendFileSync, mkdirSync, readFileSync, readdirSync, watch } from "node:fs";
import { join } from "node:path";

const [dirArg, outArg] = process.argv.slice(2);
if (!dirArg || !outArg) throw new Error("usage: codex-record-watch.ts <sessions dir> <output.jsonl>");
const dir: string = dirArg;
const out: string = outArg;
mkdirSync(dir, { recursive: true, mode: 0o700 });

const seen = new Map<string, number>();

function scan(): void {
  for (const name of readdirSync(dir)) {
    if (!/^[0-9a-f]{64}\.json$/.test(name)) continue;
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(readFileSync(join(dir, name), "utf8")) as Record<string, unknown>;
    } catch {
      continue; // Renamed away between readdir and read: the next scan sees the new version.
    }
    const id = String(record.canonical_id);
    const arrival = Number(record.arrival_sequence ?? -1);
    if (seen.get(id) === arrival) continue;
    seen.set(id, arrival);
    const { canonical_id, session_id, status, detail, tool, last_event, arrival_sequence, pid } = record;
    appendFileSync(out, `${JSON.stringify({ canonical_id, session_id, status, detail, tool, last_event, arrival_sequence, pid })}\n`);
  }
}

scan();
watch(dir, () => scan());
setInterval(scan, 20);
